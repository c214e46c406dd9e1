import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { readFileSync, readdirSync } from "node:fs";
import { describeLabFileInvalid, parseLab } from "../../../../src/application/labs/parse-lab.js";
import type { Lab } from "../../../../src/application/labs/lab.js";

const LABS = new URL("../../../../../labs/", import.meta.url);

const portsOf = (node: unknown): unknown[] => (node as { ports: unknown[] }).ports;

function ok(text: string): Lab {
  const r = parseLab(text, "lab.yml");
  if (E.isLeft(r)) throw new Error(describeLabFileInvalid(r.left));
  return r.right;
}

/** What the CLI prints for a lab file that cannot be used. */
function refusal(text: string): string {
  const r = parseLab(text, "lab.yml");
  if (E.isRight(r)) throw new Error("the lab was taken");
  return describeLabFileInvalid(r.left);
}

const lines = (...l: string[]): string => `${l.join("\n")}\n`;
const switchLab = (...rest: string[]): string => lines("name: lab", "nodes:", "  sw1: {kind: ethernet_switch}", "  sw2: {kind: ethernet_switch}", ...rest);

describe("lab files: parsing (ADR 0084)", () => {
  describe("what a lab says", () => {
    it("reads every example lab under labs/, each starting with the schema line for editors", () => {
      const files = readdirSync(LABS).filter((f) => f.endsWith(".yml"));
      expect(files).to.include.members(["vpcs.yml", "wan.yml", "trunk.yml"]);
      for (const file of files) {
        const text = readFileSync(new URL(file, LABS), "utf8");
        expect(text.split("\n")[0], file).to.equal("# yaml-language-server: $schema=../schemas/lab.schema.json");
        const r = parseLab(text, file);
        expect(E.isRight(r), E.isLeft(r) ? describeLabFileInvalid(r.left) : file).to.equal(true);
      }
    });

    it("gives a switch GNS3's eight access ports in VLAN 1 unless the lab lists its ports", () => {
      const lab = ok(lines("name: lab", "nodes:", "  sw1: {kind: ethernet_switch}", "  sw2: {kind: ethernet_switch, ports: 2}"));
      const [sw1, sw2] = lab.nodes;
      expect(sw1).to.deep.include({ name: "sw1", kind: "ethernet_switch" });
      expect(portsOf(sw1)).to.have.length(8);
      expect(portsOf(sw2)).to.deep.equal([
        { name: "Ethernet0", port_number: 0, type: "access", vlan: 1 },
        { name: "Ethernet1", port_number: 1, type: "access", vlan: 1 },
      ]);
    });

    it("reads switch ports with VLANs, trunks and QinQ tunnels, filling GNS3's names and defaults", () => {
      const lab = ok(lines("name: lab", "nodes:", "  sw1:", "    kind: ethernet_switch", "    ports:", "      - {port: 0, vlan: 10}", "      - {port: 7, type: dot1q}", "      - {port: 3, name: uplink, type: qinq, vlan: 100, ethertype: '0x88A8'}"));
      expect(portsOf(lab.nodes[0])).to.deep.equal([
        { name: "Ethernet0", port_number: 0, type: "access", vlan: 10 },
        { name: "Ethernet7", port_number: 7, type: "dot1q", vlan: 1 },
        { name: "uplink", port_number: 3, type: "qinq", vlan: 100, ethertype: "0x88A8" },
      ]);
    });

    it("reads hubs, VPCS PCs, clouds with UDP tunnels and Linux hosts", () => {
      const lab = ok(lines(
        "name: lab",
        "nodes:",
        "  hub1: {kind: ethernet_hub, ports: 3}",
        "  pc1: {kind: vpcs, address: 10.0.0.1/24, gateway: 10.0.0.254}",
        "  cloud1:",
        "    kind: cloud",
        "    ports:",
        "      - {name: tunnel0, lport: 20000, rhost: 127.0.0.1, rport: 30000}",
        "  h1:",
        "    kind: host",
        "    interfaces: [{name: eth0, address: 10.0.0.2/24}]",
        "    gateway: 10.0.0.254",
      ));
      expect(lab.nodes.map((n) => n.kind)).to.deep.equal(["ethernet_hub", "vpcs", "cloud", "host"]);
      expect(lab.nodes[1]).to.deep.include({ address: "10.0.0.1/24", gateway: "10.0.0.254" });
      expect(portsOf(lab.nodes[2])).to.deep.equal([{ name: "tunnel0", port_number: 0, type: "udp", lport: 20000, rhost: "127.0.0.1", rport: 30000 }]);
      expect(lab.nodes[3]).to.deep.include({ interfaces: [{ name: "eth0", address: "10.0.0.2/24" }], gateway: "10.0.0.254" });
    });

    it("names a link's ports by name, by GNS3's short name eN or by number, and reads filters with or without their list", () => {
      const lab = ok(switchLab("links:", "  - endpoints: [sw1:Ethernet3, sw2:e4]", "    filters: {packet_loss: 1}", "    a_to_b: {delay: [40, 5], bandwidth: 10000}", "    b_to_a: {delay: 40, bpf: icmp}", "  - endpoints: ['sw1:5', 'sw2:6']", "    suspend: true"));
      expect(lab.links[0]).to.deep.equal({
        ends: [{ node: "sw1", port: 3 }, { node: "sw2", port: 4 }],
        filters: { packet_loss: [1] },
        aToB: { delay: [40, 5], bandwidth: [10000] },
        bToA: { delay: [40], bpf: ["icmp"] },
        suspend: false,
      });
      expect(lab.links[1]?.ends).to.deep.equal([{ node: "sw1", port: 5 }, { node: "sw2", port: 6 }]);
      expect(lab.links[1]?.suspend).to.equal(true);
    });

    it("reads netem's granularity: chances to 0.01 %, times to the µs, rates with tc's units, as the numbers the API answers (ADR 0101)", () => {
      const lab = ok(switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    filters: {packet_loss: 0.5%, corrupt: 0.25}", "    a_to_b: {delay: [500us, 0.25], bandwidth: [10mbit, 2.5ms]}", "    b_to_a: {delay: 1.5ms, bandwidth: 1kbps, duplicate: 0.01}"));
      expect(lab.links[0]).to.deep.include({
        filters: { packet_loss: [0.5], corrupt: [0.25] },
        aToB: { delay: [0.5, 0.25], bandwidth: [10_000, 2.5] },
        bToA: { delay: [1.5], bandwidth: [8], duplicate: [0.01] },
      });
    });

    it("takes a filter of 0 as off, as GNS3 does", () => {
      expect(ok(switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    filters: {delay: 0, packet_loss: 5}")).links[0]?.filters).to.deep.equal({ packet_loss: [5] });
    });
  });

  describe("every refusal names the file, the line and the field", () => {
    const cases: [string, string, string][] = [
      ["text that is not YAML", lines("name: lab", "nodes: [", "  a"), "lab.yml:4:1: not YAML: "],
      ["an empty file", "", "lab.yml:0: the file holds no lab (it needs name and nodes)"],
      ["a file that is not a mapping", lines("- a"), "lab.yml:1:1: expected a mapping, got a list"],
      ["a missing name", lines("nodes: {}"), 'lab.yml:1:1: "name" is required'],
      ["an unknown top-level key", lines("name: lab", "nodes: {}", "topology: {}"), 'lab.yml:3:11: topology: unknown key "topology" (known here: name, nodes, links, traces)'],
      ["an unknown key in a node", switchLab("  sw3: {kind: ethernet_switch, colour: red}"), 'lab.yml:5:40: nodes.sw3.colour: unknown key "colour" (known here: kind, ports, x, y)'],
      ["a node without a kind", lines("name: lab", "nodes:", "  sw1: {ports: 4}"), 'lab.yml:3:8: nodes.sw1: "kind" is required (one of ethernet_switch, ethernet_hub, vpcs, cloud, host)'],
      ["an unknown kind", lines("name: lab", "nodes:", "  r1: {kind: router}"), 'lab.yml:3:14: nodes.r1.kind: "router" is not one of ethernet_switch, ethernet_hub, vpcs, cloud, host'],
      ["a node named with a colon", lines("name: lab", "nodes:", "  'a:b': {kind: ethernet_hub}"), 'lab.yml:3:10: nodes.a:b: "a:b" is not a node name (no colon, no space at either end)'],
      ["a node named twice", switchLab("  sw1: {kind: ethernet_hub}"), 'lab.yml:5:3: nodes.sw1: "sw1" is given twice (first on line 3)'],
      ["a VLAN out of range", lines("name: lab", "nodes:", "  sw1:", "    kind: ethernet_switch", "    ports:", "      - {port: 0, vlan: 4095}"), "lab.yml:6:25: nodes.sw1.ports[0].vlan: 4095 is above the maximum of 4094"],
      ["a port type GNS3 has not", lines("name: lab", "nodes:", "  sw1:", "    kind: ethernet_switch", "    ports:", "      - {port: 0, type: trunk}"), 'lab.yml:6:25: nodes.sw1.ports[0].type: "trunk" is not one of "access", "dot1q", "qinq"'],
      ["a switch port number given twice", lines("name: lab", "nodes:", "  sw1:", "    kind: ethernet_switch", "    ports:", "      - {port: 0}", "      - {port: 0, vlan: 2}"), "lab.yml:7:16: nodes.sw1.ports[1].port: port 0 is given twice"],
      ["an ethertype on an access port", lines("name: lab", "nodes:", "  sw1:", "    kind: ethernet_switch", "    ports:", "      - {port: 0, ethertype: '0x88A8'}"), "lab.yml:6:30: nodes.sw1.ports[0].ethertype: an ethertype is for qinq ports only"],
      ["a PC address without its prefix length", lines("name: lab", "nodes:", "  pc1: {kind: vpcs, address: 10.0.0.1}"), 'lab.yml:3:30: nodes.pc1.address: "10.0.0.1" is not an IPv4 address with its prefix length, e.g. 10.0.0.1/24'],
      ["a PC gateway outside its subnet", lines("name: lab", "nodes:", "  pc1: {kind: vpcs, address: 10.0.0.1/24, gateway: 10.0.1.1}"), "lab.yml:3:52: nodes.pc1.gateway: 10.0.1.1 is not in 10.0.0.1/24's subnet"],
      ["a PC gateway without an address", lines("name: lab", "nodes:", "  pc1: {kind: vpcs, gateway: 10.0.1.1}"), "lab.yml:3:30: nodes.pc1.gateway: a gateway needs the PC's address"],
      ["a host gateway in no interface's subnet", lines("name: lab", "nodes:", "  h1: {kind: host, interfaces: [{name: eth0, address: 10.0.0.1/24}], gateway: 192.168.0.1}"), "lab.yml:3:79: nodes.h1.gateway: 192.168.0.1 is in no interface's subnet (give an interface an address there)"],
      ["a host interface named twice", lines("name: lab", "nodes:", "  h1: {kind: host, interfaces: [{name: eth0}, {name: eth0}]}"), 'lab.yml:3:54: nodes.h1.interfaces[1].name: the interface name "eth0" is given twice'],
      ["a cloud without ports", lines("name: lab", "nodes:", "  c1: {kind: cloud}"), 'lab.yml:3:7: nodes.c1: "ports" is required'],
      ["a UDP port of two tunnels", lines("name: lab", "nodes:", "  c1: {kind: cloud, ports: [{name: t0, lport: 20000, rhost: h, rport: 1}]}", "  c2: {kind: cloud, ports: [{name: t0, lport: 20000, rhost: h, rport: 2}]}"), "lab.yml:4:47: nodes.c2.ports[0].lport: UDP port 20000 is also c1:t0's"],
      ["a link to a node the lab has not", switchLab("links:", "  - endpoints: [sw1:e0, sw3:e0]"), 'lab.yml:6:25: links[0].endpoints[1]: no node "sw3" in the lab (its nodes: sw1, sw2)'],
      ["a link to a port the node has not", switchLab("links:", "  - endpoints: [sw1:e8, sw2:e0]"), 'lab.yml:6:17: links[0].endpoints[0]: sw1 has no port "e8" (its ports: e0, e1, e2, e3, e4, e5, e6, e7)'],
      ["an endpoint without a port", switchLab("links:", "  - endpoints: [sw1, sw2:e0]"), 'lab.yml:6:17: links[0].endpoints[0]: "sw1" is not an endpoint node:port, e.g. sw1:e0'],
      ["a link with one end", switchLab("links:", "  - endpoints: [sw1:e0]"), "lab.yml:6:16: links[0].endpoints: expected 2 values, got 1"],
      ["a port used by two links", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "  - endpoints: [sw2:e1, sw1:Ethernet0]"), "lab.yml:7:25: links[1].endpoints[1]: sw1's port Ethernet0 is already an end of links[0]"],
      ["a link from a port to itself", switchLab("links:", "  - endpoints: [sw1:e0, sw1:e0]"), "lab.yml:6:25: links[0].endpoints[1]: sw1's port Ethernet0 is already an end of this link"],
      ["an unknown filter", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    a_to_b: {latency: 40}"), 'lab.yml:7:23: links[0].a_to_b.latency: unknown key "latency" (known here: frequency_drop, packet_loss, delay, corrupt, bpf, bandwidth, burst_loss, duplicate, reorder, delay_distribution, delay_correlation, loss_correlation, corrupt_correlation, duplicate_correlation, reorder_correlation, match, queue_discipline, capacity_trace, delay_trace, loss_trace)'],
      ["a filter value out of range", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    filters: {packet_loss: 101}"), "lab.yml:7:28: links[0].filters.packet_loss: 101 is above the maximum of 100"],
      ["a jitter out of range", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    b_to_a: {delay: [40, 40000]}"), "lab.yml:7:26: links[0].b_to_a.delay[1]: 40000 is above the maximum of 32767"],
      ["too many values", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    b_to_a: {delay: [40, 5, 1]}"), "lab.yml:7:21: links[0].b_to_a.delay: expected 1 to 2 values, got 3"],
      ["a burst loss with one value", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    b_to_a: {burst_loss: 5}"), "lab.yml:7:26: links[0].b_to_a.burst_loss: expected a list of numbers, got 5"],
      ["a delay distribution netemu has not", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    b_to_a: {delay_distribution: poisson}"), 'lab.yml:7:34: links[0].b_to_a.delay_distribution: expected a distribution name, got "poisson"'],
      ["too many pcap-filter expressions", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", `    filters: {bpf: [${Array.from({ length: 63 }, () => "icmp").join(", ")}, "tcp\\nudp"]}`), "lab.yml:7:20: links[0].filters.bpf: bpf: 65 expressions, at most 64"],
      ["a loss finer than 0.01 %", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    filters: {packet_loss: 0.001%}"), "lab.yml:7:28: links[0].filters.packet_loss: packet_loss: 0.001% is finer than netemu takes (0.01 %)"],
      ["a delay with too many decimals", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    a_to_b: {delay: 0.0001}"), "lab.yml:7:21: links[0].a_to_b.delay: delay: 0.0001 is finer than netemu takes (0.001 ms, 1 µs)"],
      ["a rate unit tc has not", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    a_to_b: {bandwidth: 10xbit}"), 'lab.yml:7:25: links[0].a_to_b.bandwidth: "10xbit" is not a number of kbit/s, or a rate with its unit: bit, kbit, mbit, gbit, or bytes/s as bps, kbps, mbps, gbps (kibit, mibit, gibit, kibps, mibps, gibps for powers of 1024), e.g. 10mbit'],
      ["a negative delay", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    a_to_b: {delay: -5ms}"), 'lab.yml:7:21: links[0].a_to_b.delay: delay: -5ms (-5 ms) is not in 0..32767 ms'],
      ["a negative chance", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    a_to_b: {duplicate: -0.5}"), "lab.yml:7:25: links[0].a_to_b.duplicate: -0.5 is below the minimum of 0"],
      ["a NaN delay", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    a_to_b: {delay: .nan}"), "lab.yml:7:21: links[0].a_to_b.delay: expected a number, got NaN"],
      ["a suspend that is not true or false", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    suspend: yes"), 'lab.yml:7:14: links[0].suspend: expected true or false, got "yes"'],
      ["codel beside a capacity trace, which the trace's tail-drop link would ignore (ADR 0103)", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    filters: {capacity_trace: lte.down, queue_discipline: codel}"), "lab.yml:7:14: links[0].filters: queue_discipline codel and capacity_trace cannot be set together: a capacity trace's link is tail drop only, so codel would not run; drop queue_discipline, or use bandwidth instead of capacity_trace"],
      ["fq_codel in one direction over a capacity trace on the link", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    filters: {capacity_trace: lte.down}", "    b_to_a: {queue_discipline: fq_codel}"), "lab.yml:8:13: links[0].b_to_a: queue_discipline fq_codel and capacity_trace cannot be set together: a capacity trace's link is tail drop only, so fq_codel would not run; drop queue_discipline, or use bandwidth instead of capacity_trace"],
      ["bandwidth in one direction over a capacity trace on the link, two rates", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    filters: {capacity_trace: lte.down}", "    a_to_b: {bandwidth: 10mbit}"), "lab.yml:8:13: links[0].a_to_b: capacity_trace and bandwidth are two rates: set one"],
      ["a link style colour that is not one", switchLab("links:", "  - endpoints: [sw1:e0, sw2:e0]", "    style: {color: red}"), 'lab.yml:7:20: links[0].style.color: "red" is not a colour such as #ff0000'],
    ];
    for (const [what, text, expected] of cases) {
      it(`refuses ${what}`, () => {
        const got = refusal(text);
        if (expected.endsWith(": ")) expect(got.startsWith(expected), got).to.equal(true);
        else expect(got).to.equal(expected);
      });
    }

    it("names the file it was given", () => {
      const r = parseLab(lines("name: lab"), "labs/mine.yml");
      expect(E.isLeft(r) && describeLabFileInvalid(r.left)).to.equal('labs/mine.yml:1:1: "nodes" is required');
    });
  });
});
