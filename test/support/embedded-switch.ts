import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { createNetemu, type Netemu, type PortAddress } from "../../src/index.js";
import { UdpPeer } from "./udp-peer.js";

/** The answer of a use case that must succeed; its refusal, named, fails the test. */
export function rightOf<L, R>(what: string, e: E.Either<L, R>): R {
  if (E.isLeft(e)) throw new Error(`${what}: ${JSON.stringify(e.left)}`);
  return e.right;
}

/** An embedded netemu holding one switch, with a UDP peer and a reserved lport for each of its first ports (no NIO yet). */
export interface EmbeddedSwitch {
  readonly netemu: Netemu;
  readonly projectId: string;
  readonly nodeId: string;
  readonly peers: UdpPeer[];
  readonly lports: number[];
  /** Port N of the switch's adapter 0. */
  at(portNumber: number): PortAddress;
  /** Shuts netemu down, closes the peers and removes its configuration directory. */
  close(): Promise<void>;
}

export async function openEmbeddedSwitch(workers: number, projectName: string, ports = 2): Promise<EmbeddedSwitch> {
  const configDir = mkdtempSync(join(tmpdir(), `netemu-${projectName}-`));
  const netemu = createNetemu({ logLevel: "silent", dataPlaneWorkers: workers, settings: { configDir } });
  const uc = netemu.useCases;
  const projectId = rightOf("project", await uc.createComputeProject.execute({ name: projectName })).projectId;
  const nodeId = rightOf("switch", await uc.createSwitch.execute({ projectId, name: "SW1" })).nodeId;
  const peers: UdpPeer[] = [];
  const lports: number[] = [];
  for (let i = 0; i < ports; i++) {
    peers.push(await UdpPeer.open());
    lports.push(rightOf("udp port", await uc.reserveUdpPort.execute({ projectId })));
  }
  return {
    netemu,
    projectId,
    nodeId,
    peers,
    lports,
    at: (portNumber) => ({ projectId, nodeId, adapterNumber: 0, portNumber }),
    close: async () => {
      await netemu.shutdown();
      await Promise.all(peers.map((p) => p.close()));
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
