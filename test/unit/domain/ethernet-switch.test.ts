import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { createEthernetSwitch, remapPorts } from "../../../src/domain/switching/ethernet-switch.js";
import { attachNio, detachNio, replaceNio } from "../../../src/domain/switching/compute-node.js";
import { defaultPortsMapping, portFromMapping } from "../../../src/domain/switching/port.js";
import type { Nio } from "../../../src/domain/switching/nio.js";
import { checkNewLink, type Link } from "../../../src/domain/topology/link.js";
import { isValidUuid } from "../../../src/domain/topology/ids.js";
import { checkClientVersion } from "../../../src/domain/server/version.js";
import { mergeIouLicense, DEFAULT_IOU_LICENSE } from "../../../src/domain/server/iou-license.js";

const sw = createEthernetSwitch({ nodeId: "n", projectId: "p", name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
const udp: Nio = { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, filters: {}, suspend: false };

describe("Ethernet switch ports and NIOs", () => {
  it("attaches a NIO to a free port of its ports_mapping", () => {
    const r = attachNio(sw, 3, udp);
    expect(E.isRight(r) && r.right.nios.get(3)).to.deep.equal(udp);
    expect(sw.nios.size, "the original is unchanged").to.equal(0);
  });

  it("refuses a busy port, a port outside ports_mapping, and detaching an empty port", () => {
    const once = attachNio(sw, 3, udp);
    if (E.isLeft(once)) throw new Error("first attach must work");
    expect(attachNio(once.right, 3, udp), "naming the node and the NIO the port holds").to.deep.equal(
      E.left({ _tag: "PortNotFree", portNumber: 3, nodeName: "SW1", nodeType: "ethernet_switch", held: { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001 } }),
    );
    expect(attachNio(sw, 8, udp)).to.deep.equal(E.left({ _tag: "PortNotFound", portNumber: 8, nodeName: "SW1", nodeType: "ethernet_switch" }));
    expect(detachNio(sw, 3)).to.deep.equal(E.left({ _tag: "PortNotAllocated", portNumber: 3 }));
    expect(replaceNio(sw, 3, udp)).to.deep.equal(E.left({ _tag: "PortNotAllocated", portNumber: 3 }));
  });

  it("renames and renumbers a new ports_mapping, and keeps the port count of a connected switch", () => {
    const mapping = [{ name: "a", port_number: 7, type: "dot1q" as const, vlan: 5 }];
    const r = remapPorts(sw, mapping);
    expect(E.isRight(r) && r.right.portsMapping).to.deep.equal([{ name: "Ethernet0", port_number: 0, type: "dot1q", vlan: 5 }]);
    const connected = attachNio(sw, 0, udp);
    if (E.isLeft(connected)) throw new Error("attach must work");
    expect(remapPorts(connected.right, mapping)).to.deep.equal(E.left({ _tag: "NodeAlreadyConnected", nodeType: "ethernet_switch" }));
    const same = defaultPortsMapping().map((p) => ({ ...p, vlan: 10 }));
    expect(E.isRight(remapPorts(connected.right, same))).to.equal(true);
  });

  it("reads a port's mode from its mapping entry, VLAN 1 and 0x8100 by default", () => {
    expect(portFromMapping({ name: "E", port_number: 1, type: "access" }).mode).to.deep.equal({ kind: "access", vlan: 1 });
    expect(portFromMapping({ name: "E", port_number: 1, type: "dot1q", vlan: 9 }).mode).to.deep.equal({ kind: "dot1q", nativeVlan: 9 });
    expect(portFromMapping({ name: "E", port_number: 1, type: "qinq", vlan: 9, ethertype: "" }).mode).to.deep.equal({ kind: "qinq", outerVlan: 9, ethertype: 0x8100 });
    expect(portFromMapping({ name: "E", port_number: 1, type: "qinq", vlan: 9, ethertype: "0x9200" }).mode).to.deep.equal({ kind: "qinq", outerVlan: 9, ethertype: 0x9200 });
  });
});

describe("links", () => {
  const end = (nodeId: string, port: number) => ({ nodeId, adapterNumber: 0, portNumber: port });
  const existing: Link = {
    linkId: "l", projectId: "p", filters: {}, suspend: false, linkStyle: {}, capture: null,
    nodes: [{ ...end("a", 1), label: { text: "0/1" }, udpPort: 1 }, { ...end("b", 1), label: { text: "0/1" }, udpPort: 2 }],
  };

  it("refuses a link from a port to itself and a port another link holds, naming the link that holds it", () => {
    expect(checkNewLink([end("a", 2), end("a", 2)], [])).to.deep.equal(E.left({ _tag: "CannotConnectToItself" }));
    expect(checkNewLink([end("c", 1), end("b", 1)], [existing])).to.deep.equal(E.left({ _tag: "PortHeldByLink", endpoint: end("b", 1), link: existing }));
    expect(E.isRight(checkNewLink([end("a", 2), end("b", 2)], [existing]))).to.equal(true);
  });
});

describe("server rules", () => {
  it("accepts exactly the server's version, without stripping a build suffix", () => {
    expect(checkClientVersion("2.2.59", "2.2.59")).to.deep.equal(E.right("2.2.59"));
    expect(E.isLeft(checkClientVersion("2.2.59+abc", "2.2.59"))).to.equal(true);
  });

  it("merges IOU license updates key by key", () => {
    expect(mergeIouLicense(DEFAULT_IOU_LICENSE, { license_check: false })).to.deep.equal({ iourc_content: "", license_check: false });
  });

  it("parses ids as Python's uuid.UUID does", () => {
    for (const ok of ["11111111-2222-4333-8444-555555555555", "11111111222243338444555555555555", "{11111111-2222-4333-8444-555555555555}", "urn:uuid:11111111-2222-4333-8444-555555555555"]) {
      expect(isValidUuid(ok), ok).to.equal(true);
    }
    for (const bad of ["abc", "not-a-uuid", "11111111-2222-4333-8444-55555555555g", ""]) expect(isValidUuid(bad), bad).to.equal(false);
  });
});
