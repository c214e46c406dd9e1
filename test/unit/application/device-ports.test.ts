import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { SwitchDataPlane } from "../../../src/application/dataplane/switch-data-plane.js";
import { type ComputeNode, attachNio } from "../../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import { createEthernetHub, defaultHubPorts } from "../../../src/domain/switching/ethernet-hub.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import type { Nio } from "../../../src/domain/switching/nio.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import { BROADCAST, eth, hex } from "../switching/support.js";
import { type InMemoryDataPlane, type InMemoryHostDevices, type InMemoryUdpTransport, type ManualTime, inMemoryDataPlane } from "../../support/in-memory-data-plane.js";

const PROJECT = "11111111-2222-4333-8444-555555555555";
const SWITCH_ID = "aaaaaaaa-0000-4000-8000-00000000f083";
const H1 = 0x020000000001;
const H2 = 0x020000000002;

const tap = (device: string, filtersOut: FilterSettings = {}): Nio => ({ type: "nio_tap", tapDevice: device, filters: {}, ...(Object.keys(filtersOut).length > 0 ? { filtersOut } : {}), suspend: false });
const ethernet = (device: string): Nio => ({ type: "nio_ethernet", ethernetDevice: device, filters: {}, suspend: false });
const udp = (lport: number): Nio => ({ type: "nio_udp", lport, rhost: "127.0.0.1", rport: lport + 1000, filters: {}, suspend: false });

function withNios<N extends ComputeNode>(node: N, nios: Record<number, Nio>): N {
  let out = node;
  for (const [port, nio] of Object.entries(nios)) {
    const attached = attachNio(out, Number(port), nio);
    if (E.isLeft(attached)) throw new Error(`attach port ${port}: ${attached.left._tag}`);
    out = attached.right;
  }
  return out;
}

const switchNode = () => createEthernetSwitch({ nodeId: SWITCH_ID, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });

/**
 * A TAP or host-interface port on the real SwitchDataPlane, with devices in memory: its frames take
 * the same intake, filters, fabric and counters as a UDP port's (ADR 0083).
 */
describe("ports on host devices (nio_tap, nio_ethernet) in the data plane", () => {
  let dp: SwitchDataPlane;
  let devices: InMemoryHostDevices;
  let transport: InMemoryUdpTransport;
  let time: ManualTime;

  let told: InMemoryDataPlane["told"];
  beforeEach(() => ({ dp, devices, transport, time, told } = inMemoryDataPlane()));
  afterEach(() => dp.close());

  const live = async (node: ComputeNode): Promise<void> => {
    const synced = await dp.sync(structuredClone(node));
    if (E.isLeft(synced)) throw new Error(`sync: ${JSON.stringify(synced.left)}`);
  };

  it("switches frames between a TAP port, a host interface port and a UDP port, both ways", async () => {
    await live(withNios(switchNode(), { 0: tap("tap0"), 1: ethernet("eth1"), 2: udp(5002) }));
    const fromTap = eth(BROADCAST, H1);
    devices.at("tap0").fromWire(fromTap);
    expect(devices.at("eth1").sent.map(hex)).to.deep.equal([hex(fromTap)]);
    expect(transport.at(5002).sent.map(hex)).to.deep.equal([hex(fromTap)]);
    const reply = eth(H1, H2);
    transport.at(5002).fromPeer(reply);
    expect(devices.at("tap0").sent.map(hex), "learned: unicast to the TAP port only").to.deep.equal([hex(reply)]);
    expect(devices.at("eth1").sent).to.have.length(1);
    expect((await dp.counters(SWITCH_ID)).get(0)).to.deep.include({ framesIn: 1, framesOut: 1 });
  });

  it("runs the NIO's filters on a device port: a delay holds the frames out to the TAP", async () => {
    await live(withNios(switchNode(), { 0: tap("tap0", { delay: [40] }), 1: ethernet("eth1") }));
    const frame = eth(BROADCAST, H2);
    devices.at("eth1").fromWire(frame);
    expect(devices.at("tap0").sent, "held by the delay").to.deep.equal([]);
    time.advance(40);
    expect(devices.at("tap0").sent.map(hex)).to.deep.equal([hex(frame)]);
  });

  it("works on a hub port too", async () => {
    const hub = createEthernetHub({ nodeId: SWITCH_ID, projectId: PROJECT, name: "HUB1", portsMapping: defaultHubPorts() });
    await live(withNios(hub, { 0: tap("tap0"), 1: ethernet("eth1") }));
    const frame = eth(H2, H1);
    devices.at("tap0").fromWire(frame);
    expect(devices.at("eth1").sent.map(hex)).to.deep.equal([hex(frame)]);
  });

  it("refuses the sync when a device cannot be opened, naming it and why, and opens nothing else", async () => {
    devices.refuse("eth9", { problem: "missing_capability", capability: "CAP_NET_RAW" });
    const synced = await dp.sync(withNios(switchNode(), { 0: tap("tap0"), 1: ethernet("eth9") }));
    expect(synced).to.deep.equal(E.left({ _tag: "NioDeviceFailed", nioType: "nio_ethernet", device: "eth9", problem: { problem: "missing_capability", capability: "CAP_NET_RAW" } }));
    expect(devices.at("tap0").closed, "the TAP opened before it is closed again").to.equal(true);
    expect((await dp.counters(SWITCH_ID)).size).to.equal(0);
  });

  it("keeps the device open when only the NIO's filters change", async () => {
    const node = withNios(switchNode(), { 0: tap("tap0") });
    await live(node);
    const first = devices.at("tap0");
    await live(withNios(switchNode(), { 0: tap("tap0", { delay: [10] }) }));
    expect(devices.at("tap0")).to.equal(first);
    expect(first.closed).to.equal(false);
  });

  it("closes the device when its NIO goes", async () => {
    await live(withNios(switchNode(), { 0: tap("tap0"), 1: tap("tap1") }));
    await live(withNios(switchNode(), { 1: tap("tap1") }));
    expect(devices.at("tap0").closed).to.equal(true);
    expect(devices.at("tap1").closed).to.equal(false);
  });

  it("tells once that a device failed, naming it, until frames come from it again", async () => {
    await live(withNios(switchNode(), { 0: tap("tap0"), 1: ethernet("eth1") }));
    devices.at("tap0").fail("EBADFD: File descriptor in bad state");
    devices.at("tap0").fail("EBADFD: File descriptor in bad state");
    const failed = told.filter((n) => n.kind === "device_failed");
    expect(failed.map((n) => n.kind === "device_failed" && [n.portNumber, n.device, n.reason])).to.deep.equal([[0, "tap0", "EBADFD: File descriptor in bad state"]]);
    devices.at("tap0").fromWire(eth(BROADCAST, H1));
    devices.at("tap0").fail("EIO");
    expect(told.filter((n) => n.kind === "device_failed")).to.have.length(2);
  });
});
