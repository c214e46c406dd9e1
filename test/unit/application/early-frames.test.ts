import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { UdpEndpoint, UdpEndpointOptions } from "../../../src/application/ports/udp-transport.js";
import { attachNio, type ComputeNode } from "../../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import { InMemoryUdpTransport, inMemoryDataPlane } from "../../support/in-memory-data-plane.js";

const NODE = "aaaaaaaa-0000-4000-8000-0000000000f1";

/** Opens port 20001 only when the test lets it: the node's first port is open (and read) meanwhile. */
class GatedTransport extends InMemoryUdpTransport {
  release: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  opened: () => void = () => undefined;
  readonly firstOpen = new Promise<void>((resolve) => (this.opened = resolve));
  override async open(options: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>> {
    if (options.lport === 20001) {
      this.opened();
      await this.gate;
    }
    return super.open(options);
  }
}

describe("frames that reach a port before its node is attached (a socket taken over is read at once: ADR 0069)", () => {
  it("are forwarded once the node's ports are all attached, in order, not dropped", async () => {
    const parts = inMemoryDataPlane();
    const transport = new GatedTransport();
    // The data plane's own transport is replaced by the gated one (same in-memory sockets).
    (parts.dp as unknown as { transport: InMemoryUdpTransport }).transport = transport;
    let node: ComputeNode = createEthernetSwitch({ nodeId: NODE, projectId: "77777777-3333-4444-8555-77777777777c", name: "SW", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
    for (const [i, lport] of [20000, 20001].entries()) {
      const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, i, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 30000 + i, filters: {}, suspend: false });
      if (E.isLeft(attached)) throw new Error(attached.left._tag);
      node = attached.right;
    }
    const syncing = parts.dp.sync(node);
    await transport.firstOpen;
    const broadcast = (n: number) => Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0x50, 0x79, 0x66, 0x68, 1, 0x08, 0x00, n, ...new Array(45).fill(0)]);
    transport.at(20000).fromPeer(broadcast(1));
    transport.at(20000).fromPeer(broadcast(2));
    transport.release();
    expect(E.isRight(await syncing)).to.equal(true);
    expect(transport.at(20001).sent.map((f) => f[14])).to.deep.equal([1, 2]);
  });
});
