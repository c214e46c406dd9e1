import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { type CloudPort, DEFAULT_REMOTE_CONSOLE, createCloudNode, numberCloudPorts, parseCloudPorts, remapCloudPorts } from "../../../src/domain/switching/cloud-node.js";
import { hostFabricRecord } from "../../../src/domain/switching/host-node.js";
import { HOST_INSIDE_OFFSET } from "../../../src/domain/switching/node-kind.js";
import { answerChanged, attachNio, parseComputeNode } from "../../../src/domain/switching/compute-node.js";
import { NO_FILTERS } from "../../../src/domain/filters/filter-settings.js";
import type { UdpNio } from "../../../src/domain/switching/nio.js";

const tunnel = (lport: number, rhost = "127.0.0.1", port_number = 0, name = `t${lport}`): CloudPort => ({ name, port_number, type: "udp", lport, rhost, rport: 30_000 });
const link: UdpNio = { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, filters: { delay: [10] }, suspend: false };
const cloudWith = (ports: readonly CloudPort[]) => createCloudNode({ nodeId: "c", projectId: "p", name: "Cloud1", portsMapping: ports, remoteConsole: DEFAULT_REMOTE_CONSOLE, directory: "/d" });

describe("a cloud's ports (GNS3's PORT_OBJECT_SCHEMA, ADR 0082)", () => {
  it("reads UDP tunnels, TAP devices and host interfaces, each with GNS3's keys only", () => {
    const ports = parseCloudPorts([
      { ...tunnel(30001), extra: 1 },
      { name: "tap", port_number: 1, type: "tap", interface: "tap0" },
      { name: "eth", port_number: 2, type: "ethernet", interface: "eth0" },
    ]);
    expect(ports).to.deep.equal(E.right([tunnel(30001), { name: "tap", port_number: 1, type: "tap", interface: "tap0" }, { name: "eth", port_number: 2, type: "ethernet", interface: "eth0" }]));
  });

  it("takes an IPv4 or IPv6 address or a host name as rhost, nothing else", () => {
    for (const good of ["127.0.0.1", "10.0.0.255", "::1", "fe80::1", "2001:db8::2:1", "qemu-host", "lab.example.org", "host."]) expect(E.isRight(parseCloudPorts([tunnel(1, good)])), good).to.equal(true);
    for (const bad of ["not a host", "300.1.1.1", "1.2.3", "-lead", "a..b", "1::2::3", "host/x", "a_b"]) {
      const r = parseCloudPorts([tunnel(1, bad)]);
      expect(r, bad).to.deep.equal(E.left({ _tag: "InvalidConfiguration", field: "ports_mapping[0].rhost", rule: { rule: "host_address" }, got: bad }));
    }
  });

  it("refuses a port number, an lport or a device given twice, naming where it was first", () => {
    expect(parseCloudPorts([tunnel(1), tunnel(2)])).to.deep.equal(E.left({ _tag: "InvalidConfiguration", field: "ports_mapping[1].port_number", rule: { rule: "duplicate", first: "ports_mapping[0].port_number" }, got: 0 }));
    expect(parseCloudPorts([tunnel(1), tunnel(1, "127.0.0.1", 1)])).to.deep.equal(E.left({ _tag: "InvalidConfiguration", field: "ports_mapping[1].lport", rule: { rule: "duplicate_value", first: "ports_mapping[0].lport" }, got: 1 }));
    const tap = (n: number) => ({ name: `t${n}`, port_number: n, type: "tap", interface: "tap0" });
    expect(parseCloudPorts([tap(0), tap(1)])).to.deep.equal(E.left({ _tag: "InvalidConfiguration", field: "ports_mapping[1].interface", rule: { rule: "duplicate_value", first: "ports_mapping[0].interface" }, got: "tap0" }));
  });

  it("refuses an unknown type, a missing field, an lport out of range and a device name the kernel would refuse", () => {
    const field = (raw: unknown) => {
      const r = parseCloudPorts([raw]);
      return E.isLeft(r) ? `${r.left.field} ${r.left.rule.rule}` : "accepted";
    };
    expect(field({ name: "x", port_number: 0, type: "serial", interface: "x" })).to.equal("ports_mapping[0].type one_of");
    expect(field({ name: "x", port_number: 0, type: "udp", lport: 1, rport: 2 })).to.equal("ports_mapping[0].rhost required");
    expect(field({ ...tunnel(1), lport: 70000 })).to.equal("ports_mapping[0].lport maximum");
    expect(field({ name: "x", port_number: 0, type: "ethernet", interface: "a/b" })).to.equal("ports_mapping[0].interface interface_name");
    expect(field({ name: "x", port_number: 0, type: "tap" })).to.equal("ports_mapping[0].interface required");
  });

  it("numbers ports by their place in the list, as GNS3 does", () => {
    expect(numberCloudPorts([tunnel(1, "h", 7), tunnel(2, "h", 3)]).map((p) => p.port_number)).to.deep.equal([0, 1]);
  });

  it("changes its ports only while no port is linked (GNS3's rule), and keeps the same ports on a linked cloud", () => {
    const cloud = cloudWith([tunnel(1)]);
    expect(E.map((c: typeof cloud) => c.portsMapping)(remapCloudPorts(cloud, [tunnel(2)]))).to.deep.equal(E.right([tunnel(2)]));
    const linked = attachNio(cloud, 0, link);
    if (E.isLeft(linked)) throw new Error("attach");
    expect(remapCloudPorts(linked.right, [tunnel(2)])).to.deep.equal(E.left({ _tag: "NodeAlreadyConnected", nodeType: "cloud" }));
    expect(remapCloudPorts(linked.right, [tunnel(1)])).to.deep.equal(E.right(linked.right));
  });
});

describe("a cloud in the host fabric: an inside end per linked port (ADR 0082)", () => {
  const cloud = cloudWith([tunnel(30001), { name: "tap", port_number: 1, type: "tap", interface: "tap7" }, { name: "eth", port_number: 2, type: "ethernet", interface: "eth0" }]);

  it("has no inside end while no port is linked: a host interface is not touched", () => {
    expect(hostFabricRecord(cloud)).to.equal(cloud);
  });

  it("pairs each linked port with its tunnel or device, without the link's filters, and the record crosses the worker door as it is", () => {
    let node = cloud;
    for (const p of [0, 1]) {
      const attached = attachNio(node, p, { ...link, lport: 20000 + p });
      if (E.isLeft(attached)) throw new Error("attach");
      node = attached.right;
    }
    const record = hostFabricRecord(node);
    expect(record.nios.get(HOST_INSIDE_OFFSET)).to.deep.equal({ type: "nio_udp", lport: 30001, rhost: "127.0.0.1", rport: 30000, filters: NO_FILTERS, suspend: false });
    expect(record.nios.get(HOST_INSIDE_OFFSET + 1)).to.deep.equal({ type: "nio_tap", tapDevice: "tap7", filters: NO_FILTERS, suspend: false });
    expect(record.nios.has(HOST_INSIDE_OFFSET + 2)).to.equal(false);
    expect(record.portsMapping.map((p) => p.port_number)).to.deep.equal([0, 1, 2, HOST_INSIDE_OFFSET, HOST_INSIDE_OFFSET + 1]);
    // What a worker receives: postMessage's structured clone, parsed at its door.
    const viaClone = parseComputeNode(structuredClone(record));
    expect(E.isRight(viaClone), JSON.stringify(viaClone)).to.equal(true);
    if (E.isRight(viaClone)) expect(viaClone.right).to.deep.equal(record);
  });

  it("tells listeners of a change of its remote console or its ports, as GNS3's node.updated does", () => {
    expect(answerChanged(cloud, { ...cloud, remoteConsole: { ...DEFAULT_REMOTE_CONSOLE, port: 2323 } })).to.equal(true);
    expect(answerChanged(cloud, { ...cloud, portsMapping: [tunnel(1)] })).to.equal(true);
    expect(answerChanged(cloud, { ...cloud })).to.equal(false);
  });
});
