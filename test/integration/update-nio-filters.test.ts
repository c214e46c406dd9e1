import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { createNetemu, type LinkFilters, type Netemu } from "../../src/index.js";
import { type EmbeddedSwitch, openEmbeddedSwitch, rightOf as right } from "../support/embedded-switch.js";
import { type UdpPeer, ethernetFrame } from "../support/udp-peer.js";

/**
 * The embedding call that changes only a NIO's filters (updateNioFilters): the socket and the suspend
 * flag stay, and a filter set it does not touch keeps its live state (ADR 0055), on the main thread
 * and across the worker boundary alike, on real sockets on 127.0.0.1.
 */
const A = "00:50:79:66:68:01";
const BROADCAST = "ff:ff:ff:ff:ff:ff";

for (const workers of [0, 1]) {
  describe(`updateNioFilters, the filters-only change of a NIO (${workers === 0 ? "data plane on the main thread" : "data plane in a worker thread"}, real sockets)`, function () {
    this.timeout(30_000);
    let netemu: Netemu;
    let sw: EmbeddedSwitch;
    let projectId: string;
    let nodeId: string;
    let peers: UdpPeer[];
    let lports: number[];

    beforeEach(async () => {
      sw = await openEmbeddedSwitch(workers, "filters-only");
      ({ netemu, projectId, nodeId, peers, lports } = sw);
    });
    afterEach(() => sw.close());

    const at = (portNumber: number) => sw.at(portNumber);
    const attach = async (port: number, filters: { filters?: LinkFilters; filtersOut?: LinkFilters } = {}, suspend = false): Promise<void> => {
      right("addNio", await netemu.useCases.addNio.execute({ port: at(port), nio: { type: "nio_udp", lport: lports[port] as number, rhost: "127.0.0.1", rport: (peers[port] as UdpPeer).port, ...filters } }));
      if (suspend) right("suspend", await netemu.useCases.updateNio.execute({ port: at(port), nio: { type: "nio_udp", lport: lports[port] as number, rhost: "127.0.0.1", rport: (peers[port] as UdpPeer).port, suspend } }));
    };
    /** A frame from port 0's peer, flooded out of port 1 through port 1's filters; its last byte tells it apart. */
    const send = (fill: number): Promise<void> => {
      const frame = ethernetFrame(BROADCAST, A);
      frame[frame.length - 1] = fill;
      return (peers[0] as UdpPeer).send(frame, lports[0] as number);
    };
    const fills = (peer: UdpPeer): number[] => peer.received.map((f) => f[f.length - 1] as number);

    it("applies the new filters from the next frame on the same socket, and answers the NIO with them", async () => {
      await attach(0);
      await attach(1);
      await send(1);
      await (peers[1] as UdpPeer).waitFor(1);
      const nio = right("updateNioFilters", await netemu.useCases.updateNioFilters.execute({ port: at(1), filters: { frequency_drop: [-1] } }));
      expect(nio).to.deep.include({ type: "nio_udp", lport: lports[1], rport: (peers[1] as UdpPeer).port, suspend: false, filters: { frequency_drop: [-1] } });
      await send(2);
      await send(3);
      expect(await (peers[1] as UdpPeer).settle(200)).to.equal(1);
      right("clear", await netemu.useCases.updateNioFilters.execute({ port: at(1), filters: {} }));
      await send(4);
      await (peers[1] as UdpPeer).waitFor(2);
      expect(fills(peers[1] as UdpPeer)).to.deep.equal([1, 4]);
    });

    it("keeps the state of the filter set it does not touch: frequency_drop [3] out still drops the third frame after filters in change", async () => {
      await attach(0);
      await attach(1, { filtersOut: { frequency_drop: [3] } });
      await send(1);
      await send(2);
      await (peers[1] as UdpPeer).waitFor(2);
      right("updateNioFilters", await netemu.useCases.updateNioFilters.execute({ port: at(1), filtersIn: { delay: [5] } }));
      await send(3);
      await send(4);
      await (peers[1] as UdpPeer).waitFor(3);
      await (peers[1] as UdpPeer).settle(100);
      // A chain rebuilt from scratch would count again from 1 and let the third frame through.
      expect(fills(peers[1] as UdpPeer)).to.deep.equal([1, 2, 4]);
    });

    it("leaves the suspend flag as it was: a suspended NIO stays suspended and drops everything", async () => {
      await attach(0);
      await attach(1, {}, true);
      const nio = right("updateNioFilters", await netemu.useCases.updateNioFilters.execute({ port: at(1), filters: { delay: [1] } }));
      expect(nio).to.deep.include({ suspend: true });
      await send(1);
      expect(await (peers[1] as UdpPeer).settle(200)).to.equal(0);
      const view = right("get", await netemu.useCases.getComputeNode.execute({ projectId, nodeId }));
      expect(view.node.nios.get(1)).to.deep.include({ suspend: true, filters: { delay: [1] } });
    });
  });
}

describe("updateNioFilters refuses, as a value, and changes nothing", function () {
  this.timeout(20_000);
  let netemu: Netemu;
  let configDir: string;
  let projectId: string;
  let nodeId: string;
  let lport: number;

  beforeEach(async () => {
    configDir = mkdtempSync(join(tmpdir(), "netemu-nio-filters-"));
    netemu = createNetemu({ logLevel: "silent", settings: { configDir } });
    const uc = netemu.useCases;
    projectId = right("project", await uc.createComputeProject.execute({ name: "refusals" })).projectId;
    nodeId = right("switch", await uc.createSwitch.execute({ projectId, name: "SW1" })).nodeId;
    lport = right("udp port", await uc.reserveUdpPort.execute({ projectId }));
    right("addNio", await uc.addNio.execute({ port: { projectId, nodeId, adapterNumber: 0, portNumber: 0 }, nio: { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { packet_loss: [5] } } }));
    right("nio_null", await uc.addNio.execute({ port: { projectId, nodeId, adapterNumber: 0, portNumber: 1 }, nio: { type: "nio_null" } }));
  });
  afterEach(async () => {
    await netemu.shutdown();
    rmSync(configDir, { recursive: true, force: true });
  });

  const port0 = () => ({ projectId, nodeId, adapterNumber: 0, portNumber: 0 });
  const refusal = async (input: Parameters<Netemu["useCases"]["updateNioFilters"]["execute"]>[0]): Promise<unknown> => {
    const answer = await netemu.useCases.updateNioFilters.execute(input);
    expect(E.isLeft(answer), JSON.stringify(answer)).to.equal(true);
    const nio = right("get", await netemu.useCases.getComputeNode.execute({ projectId, nodeId })).node.nios.get(0);
    expect(nio, "port 0's NIO unchanged").to.deep.equal({ type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { packet_loss: [5] }, suspend: false });
    return (answer as E.Left<unknown>).left;
  };

  it("answers ProjectNotFound for an unknown project", async () => {
    expect(await refusal({ port: { ...port0(), projectId: "11111111-2222-4333-8444-555555555555" }, filters: {} })).to.deep.include({ _tag: "ProjectNotFound" });
  });

  it("answers NodeNotFound for an unknown node", async () => {
    expect(await refusal({ port: { ...port0(), nodeId: "11111111-2222-4333-8444-555555555555" }, filters: {} })).to.deep.include({ _tag: "NodeNotFound" });
  });

  it("answers InvalidUuid for a node id that is not one", async () => {
    expect(await refusal({ port: { ...port0(), nodeId: "SW1" }, filters: {} })).to.deep.include({ _tag: "InvalidUuid" });
  });

  it("answers PortNotAllocated for a port without a NIO", async () => {
    expect(await refusal({ port: { ...port0(), portNumber: 2 }, filters: { delay: [5] } })).to.deep.equal({ _tag: "PortNotAllocated", portNumber: 2 });
  });

  it("answers AdapterNotFound for an adapter other than 0", async () => {
    expect(await refusal({ port: { ...port0(), adapterNumber: 1 }, filters: { delay: [5] } })).to.deep.include({ _tag: "AdapterNotFound", adapterNumber: 1 });
  });

  it("answers NioTypeMismatch for a nio_null, which has no filters", async () => {
    expect(await refusal({ port: { ...port0(), portNumber: 1 }, filters: { delay: [5] } })).to.deep.equal({ _tag: "NioTypeMismatch", portNumber: 1, current: "nio_null", requested: "nio_udp" });
  });

  it("answers InvalidFilterSettings for a value out of range, naming the field", async () => {
    expect(await refusal({ port: port0(), filtersOut: { packet_loss: [101] } })).to.deep.include({ _tag: "InvalidFilterSettings", field: "filters_out" });
  });

  it("answers InvalidFilterSettings for a kind the compiler was talked out of checking", async () => {
    const misspelt = { bandwith: [1000] } as unknown as LinkFilters;
    expect(await refusal({ port: port0(), filters: misspelt })).to.deep.include({ _tag: "InvalidFilterSettings", problem: { problem: "unknown_kind", kind: "bandwith" } });
  });

  it("answers InvalidFilterSettings for a bpf expression that does not compile", async () => {
    expect(await refusal({ port: port0(), filters: { bpf: ["tcp port"] } })).to.deep.include({ _tag: "InvalidFilterSettings" });
  });
});
