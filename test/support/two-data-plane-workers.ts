import * as E from "fp-ts/lib/Either.js";
import { expect } from "chai";
import type { WorkerDataPlane } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { attachNio, type ComputeNode } from "../../src/domain/switching/compute-node.js";
import { testWorkerDataPlane } from "./live-data-planes.js";
import { UdpPeer, freeUdpPort } from "./udp-peer.js";

/**
 * A data plane in 2 real worker threads on 127.0.0.1, as the placement and move tests use it (ADR 0069);
 * `overrides` replace any of its options (a worker script, the load interval, placement ...).
 */
export function twoDataPlaneWorkers(overrides: Partial<ConstructorParameters<typeof WorkerDataPlane>[0]> = {}): WorkerDataPlane {
  return testWorkerDataPlane({ workers: 2, ...overrides });
}

/**
 * `node` with UDP NIOs on ports 0 and 1, each towards a peer of its own on 127.0.0.1 (kept in `opened`
 * for the test to close), synced on `dp`.
 */
export async function wiredSwitch(
  dp: Pick<WorkerDataPlane, "sync">,
  node: ComputeNode,
  opened: UdpPeer[],
): Promise<{ node: ComputeNode; peers: [UdpPeer, UdpPeer]; lports: [number, number] }> {
  const peers = [await UdpPeer.open(), await UdpPeer.open()] as [UdpPeer, UdpPeer];
  opened.push(...peers);
  const lports = [await freeUdpPort(), await freeUdpPort()] as [number, number];
  let wired = node;
  for (const [i, peer] of peers.entries()) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(wired, i, { type: "nio_udp", lport: lports[i] as number, rhost: "127.0.0.1", rport: peer.port, filters: {}, suspend: false });
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    wired = attached.right;
  }
  expect(E.isRight(await dp.sync(wired))).to.equal(true);
  return { node: wired, peers, lports };
}
