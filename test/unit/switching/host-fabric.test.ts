import { expect } from "chai";
import { egressList } from "../../../src/domain/switching/forwarding.js";
import { HubFabric } from "../../../src/domain/switching/hub-fabric.js";
import { createVpcsNode, hostFabricRecord, hostPairOf, hostStarted, hostStopped } from "../../../src/domain/switching/host-node.js";
import { HOST_INSIDE_OFFSET } from "../../../src/domain/switching/node-kind.js";
import { parseComputeNode } from "../../../src/domain/switching/compute-node.js";
import { NO_FILTERS } from "../../../src/domain/filters/filter-settings.js";
import type { UdpNio } from "../../../src/domain/switching/nio.js";
import { BROADCAST, eth, hex } from "./support.js";

const H1 = 0x020000000001;
const inside = (lport: number): UdpNio => ({ type: "nio_udp", lport, rhost: "127.0.0.1", rport: lport + 1, filters: NO_FILTERS, suspend: false });
const link: UdpNio = { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, filters: NO_FILTERS, suspend: false };

describe("host fabric: each host port wired to its inside port (ADR 0081)", () => {
  function hostWith(...ports: number[]): HubFabric {
    const fabric = new HubFabric(hostPairOf);
    for (const p of ports) fabric.setPort(p);
    return fabric;
  }

  it("sends a frame from a link port only to its inside port, and back, byte for byte", () => {
    const fabric = hostWith(0, 1, HOST_INSIDE_OFFSET, HOST_INSIDE_OFFSET + 1);
    const frame = eth(BROADCAST, H1);
    expect(egressList(fabric.forward(0, frame)).map((e) => [e.port, hex(e.frame)])).to.deep.equal([[HOST_INSIDE_OFFSET, hex(frame)]]);
    expect(egressList(fabric.forward(HOST_INSIDE_OFFSET + 1, frame)).map((e) => e.port)).to.deep.equal([1]);
  });

  it("drops a frame whose pair is not attached (a stopped host), counting it", () => {
    const fabric = hostWith(0);
    const result = fabric.forward(0, eth(BROADCAST, H1));
    expect(result.drop).to.equal("no_route");
    expect(fabric.counters(0)!.snapshot().ingressDrops).to.deep.equal({ no_route: 1 });
  });
});

describe("a VPCS record as the data plane runs it", () => {
  const pc = createVpcsNode({ nodeId: "n", projectId: "p", name: "PC1", console: 5000, consoleType: "telnet", directory: "/d" });

  it("is made stopped with its one port Ethernet0 and no inside tunnel", () => {
    expect(pc.status).to.equal("stopped");
    expect(pc.portsMapping).to.deep.equal([{ name: "Ethernet0", port_number: 0 }]);
    expect(hostFabricRecord(pc)).to.equal(pc);
  });

  it("gets, once started, its inside tunnel as a port above HOST_INSIDE_OFFSET, which a stop takes away", () => {
    const started = hostStarted({ ...pc, nios: new Map([[0, link]]) }, new Map([[0, inside(20002)]]), "vpcs -p 5000");
    const record = hostFabricRecord(started);
    expect(record.portsMapping.map((p) => p.port_number)).to.deep.equal([0, HOST_INSIDE_OFFSET]);
    expect([...record.nios.keys()]).to.deep.equal([0, HOST_INSIDE_OFFSET]);
    expect(hostFabricRecord(hostStopped(started)).portsMapping).to.deep.equal(pc.portsMapping);
  });

  it("crosses a worker's door whole: its parse keeps kind, console, command line and both ports", () => {
    const started = hostStarted({ ...pc, nios: new Map([[0, link]]) }, new Map([[0, inside(20002)]]), "vpcs -p 5000");
    const parsed = parseComputeNode(structuredClone(hostFabricRecord(started)));
    expect(parsed._tag).to.equal("Right");
    if (parsed._tag !== "Right") return;
    expect(parsed.right).to.deep.include({ nodeType: "vpcs", console: 5000, consoleType: "telnet", commandLine: "vpcs -p 5000", status: "started" });
    expect([...parsed.right.nios.keys()]).to.deep.equal([0, HOST_INSIDE_OFFSET]);
  });
});
