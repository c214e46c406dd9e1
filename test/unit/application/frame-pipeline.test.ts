import { expect } from "chai";
import { ethernet, icmpMessage, ipv4Packet, tcpSegment } from "../../support/bpf-frames.js";
import * as E from "fp-ts/lib/Either.js";
import type { SwitchDataPlane } from "../../../src/application/dataplane/switch-data-plane.js";
import type { RandomSourceFactory } from "../../../src/application/ports/timers.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { SeededRandom } from "../../../src/domain/filters/random.js";
import { type ComputeNode, attachNio, replaceNio, withStatus } from "../../../src/domain/switching/compute-node.js";
import { createEthernetHub, defaultHubPorts } from "../../../src/domain/switching/ethernet-hub.js";
import { type EthernetSwitch, createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import type { Nio, UdpNio } from "../../../src/domain/switching/nio.js";
import { countersBalance } from "../../../src/domain/switching/port-counters.js";
import { type PortMappingEntry, defaultPortsMapping } from "../../../src/domain/switching/port.js";
import { BROADCAST, Q, eth, hex } from "../switching/support.js";
import {
  type InMemoryCaptureSink,
  type InMemoryUdpTransport,
  ManualTime,
  constantRandomness,
  inMemoryDataPlane,
  liveCounters,
  scriptedRandomness,
  seededRandomness,
} from "../../support/in-memory-data-plane.js";

/**
 * The whole frame path of the real SwitchDataPlane, frame by frame, on in-memory sockets and a
 * manual clock: a frame received on port P meets P's filters (ADR 0030's fixed order), P's capture,
 * the switch; each egress port Q: Q's filters, Q's delay, Q's capture, Q's socket.
 */

const PROJECT = "11111111-2222-4333-8444-555555555555";
const SWITCH_ID = "aaaaaaaa-0000-4000-8000-00000000f001";
const HUB_ID = "bbbbbbbb-0000-4000-8000-00000000f002";
const H1 = 0x020000000001;
const H2 = 0x020000000002;
const H3 = 0x020000000003;
/** The largest UDP payload over IPv4. */
const MAX_UDP_PAYLOAD = 65_507;
/** Port p's NIO binds local port LPORT + p. */
const LPORT = 5000;

const access = (port: number, vlan: number): PortMappingEntry => ({ name: `Ethernet${port}`, port_number: port, type: "access", vlan });
const trunk = (port: number, nativeVlan = 1): PortMappingEntry => ({ name: `Ethernet${port}`, port_number: port, type: "dot1q", vlan: nativeVlan });
const tunnel = (port: number, outerVlan: number): PortMappingEntry => ({ name: `Ethernet${port}`, port_number: port, type: "qinq", vlan: outerVlan, ethertype: "0x88A8" });

function udpNio(port: number, filters: FilterSettings = {}, suspend = false): UdpNio {
  return { type: "nio_udp", lport: LPORT + port, rhost: "127.0.0.1", rport: LPORT + 1000 + port, filters, suspend };
}

function switchNode(portsMapping: readonly PortMappingEntry[] = defaultPortsMapping()): EthernetSwitch {
  return createEthernetSwitch({ nodeId: SWITCH_ID, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping });
}

/** The node with these NIOs attached (port number → NIO). */
function withNios<N extends ComputeNode>(node: N, nios: Record<number, Nio>): N {
  let out = node;
  for (const [port, nio] of Object.entries(nios)) {
    const attached = attachNio(out, Number(port), nio);
    if (E.isLeft(attached)) throw new Error(`attach port ${port}: ${attached.left._tag}`);
    out = attached.right;
  }
  return out;
}

/** `frame` with a payload of `payload` bytes, all `fill`: frames told apart by their content. */
function marked(dst: number, src: number, payload: number, fill: number, tags: Parameters<typeof eth>[2] = []): Uint8Array {
  const f = eth(dst, src, tags, payload);
  f.fill(fill, f.length - payload);
  return f;
}

/**
 * Where the record comes from: the very object a use case built, or a copy of it, as a worker thread
 * or an embedder's database hands it over (ADR 0055): the frame path must be the same.
 */
const BOUNDARIES: readonly { readonly name: string; readonly across: <N>(node: N) => N }[] = [
  { name: "the record itself", across: (node) => node },
  { name: "a structuredClone of the record, as a worker or a database sees it", across: (node) => structuredClone(node) },
];

for (const boundary of BOUNDARIES) describe(`the frame path of the data plane, frame by frame (${boundary.name})`, () => {
  let dp: SwitchDataPlane;
  let transport: InMemoryUdpTransport;
  let sink: InMemoryCaptureSink;
  let time: ManualTime;

  function build(randomness: RandomSourceFactory = constantRandomness(0.5), clock = new ManualTime()): void {
    ({ dp, transport, sink, time } = inMemoryDataPlane({ randomness, time: clock }));
  }
  beforeEach(() => build());
  afterEach(async () => dp.close());

  async function live<N extends ComputeNode>(node: N): Promise<N> {
    const synced = await dp.sync(boundary.across(node));
    if (E.isLeft(synced)) throw new Error(`sync: ${JSON.stringify(synced.left)}`);
    return node;
  }
  const peer = (port: number) => transport.at(LPORT + port);
  const sentTo = (port: number) => peer(port).sent.map(hex);
  const countersOf = (nodeId: string, port: number) => {
    const c = liveCounters(dp, nodeId).get(port);
    if (c === undefined) throw new Error(`no live counters for port ${port}`);
    return c;
  };

  describe("filters on a link end", () => {
    it("act on the frames the port receives and on the frames the switch sends out of it", async () => {
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { frequency_drop: [2] }) }));
      const inbound = [1, 2, 3, 4].map((i) => marked(BROADCAST, H2, 46, 0x10 + i));
      const outbound = [1, 2, 3, 4].map((i) => marked(BROADCAST, H1, 46, 0x20 + i));
      for (const f of inbound) peer(1).fromPeer(f);
      for (const f of outbound) peer(0).fromPeer(f);

      expect(sentTo(0), "received on port 1: every 2nd dropped").to.deep.equal([hex(inbound[0]!), hex(inbound[2]!)]);
      expect(sentTo(1), "sent out of port 1: every 2nd dropped").to.deep.equal([hex(outbound[0]!), hex(outbound[2]!)]);
      const c = countersOf(SWITCH_ID, 1);
      expect(c).to.deep.include({ framesIn: 4, framesForwarded: 2, framesOffered: 4, framesOut: 2 });
      expect(c.ingressDrops).to.deep.equal({ frequency_drop: 2 });
      expect(c.egressDrops).to.deep.equal({ frequency_drop: 2 });
      expect((await dp.counters(SWITCH_ID)).get(1)?.drops).to.deep.equal({ frequency_drop: 4 });
      expect((await dp.counters(SWITCH_ID)).get(0)?.drops, "port 0 has no filter").to.deep.equal({});
    });

    it("limit each direction of a port to its bandwidth: frames leave one transmission time apart, the excess over the queue is dropped and counted", async () => {
      // 1000-byte frames at 800 kbit/s take 10 ms each; a 35 ms queue admits the frames that start within 35 ms.
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { bandwidth: [800, 35] }) }));
      const frames = [1, 2, 3, 4, 5, 6].map((i) => marked(BROADCAST, H1, 986, 0x30 + i));
      for (const f of frames) peer(0).fromPeer(f);
      expect(sentTo(1), "nothing leaves before its last bit is sent").to.deep.equal([]);
      time.advance(10);
      expect(sentTo(1)).to.deep.equal([hex(frames[0]!)]);
      time.advance(30);
      expect(sentTo(1)).to.deep.equal(frames.slice(0, 4).map((f) => hex(f)));
      time.advance(100);
      expect(sentTo(1), "frames 5 and 6 would have waited 40 and 50 ms").to.have.length(4);
      expect(countersOf(SWITCH_ID, 1).egressDrops).to.deep.equal({ bandwidth: 2 });
      // The other direction of port 1 has its own transmitter: a frame in at once is held 10 ms only.
      peer(1).fromPeer(marked(BROADCAST, H2, 986, 0x40));
      expect(sentTo(0)).to.deep.equal([]);
      time.advance(10);
      expect(sentTo(0)).to.have.length(1);
    });

    it("hold a frame 0.5 ms for a delay of 500us, by turns of the event loop rather than a whole-ms timer (ADR 0101)", async () => {
      // The record holds what the door read: "500us" is 0.5.
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { delay: [0.5] }) }));
      const start = time.now;
      const frame = marked(BROADCAST, H1, 46, 0x55);
      const timers = time.timersWaiting;
      peer(0).fromPeer(frame);
      expect(time.timersWaiting, "no whole-ms timer for it").to.equal(timers);
      let turns = 0;
      while (sentTo(1).length === 0 && turns < 100) {
        time.now += 0.05;
        time.runOneDeferred();
        turns++;
      }
      expect(sentTo(1)).to.deep.equal([hex(frame)]);
      expect(time.now - start).to.be.within(0.5, 0.55 + 1e-9);
    });

    it("let a reordered frame overtake the delayed ones", async () => {
      // One draw per frame for reorder 50 %: the first frame keeps its delay, the second skips it.
      build(scriptedRandomness([0.9, 0.0]));
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { delay: [50], reorder: [50] }) }));
      const [first, second] = [marked(BROADCAST, H1, 46, 0x61), marked(BROADCAST, H1, 46, 0x62)];
      peer(0).fromPeer(first);
      peer(0).fromPeer(second);
      expect(sentTo(1), "the second leaves at once").to.deep.equal([hex(second)]);
      time.advance(50);
      expect(sentTo(1)).to.deep.equal([hex(second), hex(first)]);
    });

    it("impair only the frames their match expression selects: a delay on tcp port 80 leaves ICMP alone", async () => {
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { match: ["tcp port 80"], delay: [30] }) }));
      const web = ethernet("ff:ff:ff:ff:ff:ff", "02:00:00:00:00:01", 0x0800, ipv4Packet(6, "10.0.0.1", "10.0.0.2", tcpSegment(40000, 80)));
      const ping = ethernet("ff:ff:ff:ff:ff:ff", "02:00:00:00:00:01", 0x0800, ipv4Packet(1, "10.0.0.1", "10.0.0.2", icmpMessage(8)));
      peer(0).fromPeer(web);
      peer(0).fromPeer(ping);
      expect(sentTo(1), "ICMP at once").to.deep.equal([hex(ping)]);
      time.advance(30);
      expect(sentTo(1), "TCP port 80 after its delay").to.deep.equal([hex(ping), hex(web)]);
    });

    it("apply direction-specific filters to their direction only, a kind given for a direction replacing the both-ways one", async () => {
      const nio: UdpNio = { ...udpNio(1, { delay: [10] }), filtersOut: { delay: [30] } };
      await live(withNios(switchNode(), { 0: udpNio(0), 1: nio }));
      const out = marked(BROADCAST, H1, 46, 0x71);
      const into = marked(BROADCAST, H2, 46, 0x72);
      peer(0).fromPeer(out);
      peer(1).fromPeer(into);
      time.advance(10);
      expect([sentTo(0), sentTo(1)], "in from port 1's peer: the both-ways 10 ms").to.deep.equal([[hex(into)], []]);
      time.advance(20);
      expect(sentTo(1), "out to port 1's peer: its own 30 ms").to.deep.equal([hex(out)]);
    });

    it("send a duplicated frame twice, in both directions", async () => {
      build(constantRandomness(0));
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { duplicate: [100] }) }));
      const f = marked(BROADCAST, H1, 46, 0x51);
      peer(0).fromPeer(f);
      expect(sentTo(1)).to.deep.equal([hex(f), hex(f)]);
      const g = marked(BROADCAST, H2, 46, 0x52);
      peer(1).fromPeer(g);
      expect(sentTo(0), "the switch received the frame twice").to.deep.equal([hex(g), hex(g)]);
    });

    it("share one frequency_drop count between the two directions of the port", async () => {
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { frequency_drop: [2] }) }));
      const inbound = [marked(BROADCAST, H2, 46, 1), marked(BROADCAST, H2, 46, 3)];
      const outbound = [marked(BROADCAST, H1, 46, 2), marked(BROADCAST, H1, 46, 4)];
      // in, out, in, out: the 2nd and 4th frame the port sees are the outbound ones.
      peer(1).fromPeer(inbound[0]!);
      peer(0).fromPeer(outbound[0]!);
      peer(1).fromPeer(inbound[1]!);
      peer(0).fromPeer(outbound[1]!);
      expect(sentTo(0)).to.deep.equal(inbound.map(hex));
      expect(sentTo(1)).to.deep.equal([]);
      expect(countersOf(SWITCH_ID, 1).egressDrops).to.deep.equal({ frequency_drop: 2 });
    });
  });

  describe("the fixed order of the chain (ADR 0030), whatever the order of the settings' keys", () => {
    it("drops a bpf-matched frame at once, without delaying it and without advancing frequency_drop", async () => {
      // Keys given delay-first: the chain still runs bpf, then frequency_drop, then delay.
      const filters: FilterSettings = { delay: [30], frequency_drop: [2], bpf: ["ether src 02:00:00:00:00:01"] };
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, filters) }));

      peer(0).fromPeer(marked(BROADCAST, H1, 46, 0xa1));
      expect(countersOf(SWITCH_ID, 1).egressDrops, "dropped on arrival").to.deep.equal({ bpf: 1 });
      expect(time.timersWaiting, "nothing held for a frame bpf drops").to.equal(0);

      // H1 (bpf) and H3 frames interleaved: frequency_drop counts the H3 frames only.
      const h3 = [1, 2, 3, 4].map((i) => marked(BROADCAST, H3, 46, 0x30 + i));
      peer(0).fromPeer(h3[0]!);
      peer(0).fromPeer(marked(BROADCAST, H1, 46, 0xa2));
      peer(0).fromPeer(h3[1]!);
      peer(0).fromPeer(h3[2]!);
      peer(0).fromPeer(marked(BROADCAST, H1, 46, 0xa3));
      peer(0).fromPeer(h3[3]!);
      expect(countersOf(SWITCH_ID, 1).egressDrops).to.deep.equal({ bpf: 3, frequency_drop: 2 });
      expect(sentTo(1), "the passing frames wait out their delay").to.deep.equal([]);
      time.advance(29);
      expect(sentTo(1)).to.deep.equal([]);
      time.advance(1);
      expect(sentTo(1)).to.deep.equal([hex(h3[0]!), hex(h3[2]!)]);
    });

    it("corrupts only the payload: a frame keeps its Ethernet header and VLAN tag, in both directions", async () => {
      // Port 0 in VLAN 10, port 1 a trunk (native VLAN 1): VLAN 10 crosses port 1 tagged.
      await live(withNios(switchNode([access(0, 10), trunk(1)]), { 0: udpNio(0), 1: udpNio(1, { corrupt: [100] }) }));

      const outbound = eth(BROADCAST, H1, [], 46);
      peer(0).fromPeer(outbound);
      const tagged = eth(BROADCAST, H1, [Q(10)], 46); // what the switch sends to port 1 before corrupt
      const out = peer(1).sent[0];
      expect(out, "sent out of port 1").to.not.equal(undefined);
      expect(out!.length).to.equal(tagged.length);
      expect(hex(out!.subarray(0, 18)), "addresses, tag and ethertype untouched").to.equal(hex(tagged.subarray(0, 18)));
      expect(hex(out!.subarray(18)), "the payload is corrupted").to.not.equal(hex(tagged.subarray(18)));

      // Received tagged on the trunk: corrupted there, the tag still says VLAN 10, so it reaches port 0.
      const inbound = eth(BROADCAST, H2, [Q(10)], 46);
      peer(1).fromPeer(inbound);
      const untagged = eth(BROADCAST, H2, [], 46);
      const got = peer(0).sent[0];
      expect(got, "the corrupted frame still belongs to VLAN 10").to.not.equal(undefined);
      expect(got!.length).to.equal(untagged.length);
      expect(hex(got!.subarray(0, 14))).to.equal(hex(untagged.subarray(0, 14)));
      expect(hex(got!.subarray(14))).to.not.equal(hex(untagged.subarray(14)));
      expect(countersOf(SWITCH_ID, 1).ingressDrops).to.deep.equal({});
    });

    it("drops every frame of a suspended link end, both ways, before any other filter acts", async () => {
      const filters: FilterSettings = { delay: [10], corrupt: [100], bpf: ["ether src 02:00:00:00:00:99"] };
      const sw = await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, filters, true) }));
      for (let i = 0; i < 3; i++) {
        peer(1).fromPeer(marked(BROADCAST, H2, 46, i));
        peer(0).fromPeer(marked(BROADCAST, H1, 46, i));
      }
      expect(time.timersWaiting, "nothing delayed").to.equal(0);
      time.advance(50);
      expect(sentTo(0)).to.deep.equal([]);
      expect(sentTo(1)).to.deep.equal([]);
      const c = countersOf(SWITCH_ID, 1);
      expect(c.ingressDrops).to.deep.equal({ suspend: 3 });
      expect(c.egressDrops).to.deep.equal({ suspend: 3 });

      // Resumed (same filters): frames flow again, after their delay.
      await live(E.getOrElseW(() => sw)(replaceNio(sw, 1, udpNio(1, filters, false))));
      const f = marked(BROADCAST, H1, 46, 0x77);
      peer(0).fromPeer(f);
      time.advance(10);
      expect(peer(1).sent).to.have.length(1);
    });
  });

  describe("delay", () => {
    // delay 20 ± 10 with the jitter scripted: frames get 30, 10, 20, then 10 ms.
    // uniformInt(−10, 10) = −10 + floor(r·21): r 0.99 → +10, 0 → −10, 0.5 → 0.
    const script = [0.99, 0, 0.5, 0, 0.99, 0, 0.5, 0];
    const delays = [30, 10, 20, 10];
    const arrivalOffsets = [0, 1, 2, 25];

    for (const [how, earlyByMs] of [
      ["firing on time", 0],
      ["firing up to a millisecond early, as Node's can", 0.7],
    ] as const) {
      it(`keeps the order of each direction and never sends a frame before its time, with timers ${how}`, async () => {
        build(scriptedRandomness(script), new ManualTime(1_000_000, earlyByMs));
        await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { delay: [20, 10] }) }));

        /** Sends 4 frames from `from` at the arrival offsets; answers each one's earliest departure. */
        const burst = (from: number, src: number, fill: number) => {
          const start = time.now;
          const frames: Uint8Array[] = [];
          const due: number[] = [];
          for (let i = 0; i < 4; i++) {
            time.advanceTo(start + arrivalOffsets[i]!);
            const f = marked(BROADCAST, src, 46, fill + i);
            frames.push(f);
            due.push(time.now + delays[i]!);
            peer(from).fromPeer(f);
          }
          time.advanceTo(start + 60);
          return { frames, due };
        };
        const check = (to: number, b: { frames: Uint8Array[]; due: number[] }, what: string) => {
          expect(sentTo(to), `${what}: in arrival order`).to.deep.equal(b.frames.map(hex));
          const at = peer(to).sentAtMs;
          for (let i = 0; i < 4; i++) {
            expect(at[i], `${what} frame ${i}: not before its delay`).to.be.at.least(b.due[i]!);
            // Held behind the frame before it at most (departure = max(arrival + delay, previous)).
            const departure = Math.max(b.due[i]!, ...b.due.slice(0, i));
            expect(at[i]! - departure, `${what} frame ${i}: late by less than 1 ms`).to.be.lessThan(1);
          }
        };

        const inbound = burst(1, H2, 0x10);
        check(0, inbound, "received on port 1");
        const outbound = burst(0, H1, 0x20);
        check(1, outbound, "sent out of port 1");
        expect(peer(0).sentAtMs.slice(0, 3).map((t) => Math.floor(t - inbound.due[0]!)), "frames 2 and 3 waited behind frame 1").to.deep.equal([0, 0, 0]);
      });
    }
  });

  describe("capture", () => {
    it("records the frames after the port's filters, in both directions, stamped with the clock's time", async () => {
      const filters: FilterSettings = { frequency_drop: [2], corrupt: [100], delay: [5] };
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, filters) }));
      const path = "/captures/port1.pcap";
      expect(E.isRight(await dp.start(SWITCH_ID, 1, path))).to.equal(true);
      const t0 = time.now;

      const a = marked(BROADCAST, H2, 46, 0xaa);
      peer(1).fromPeer(a); // 1st frame of the port: passes, corrupted, held 5 ms
      time.advance(1);
      peer(1).fromPeer(marked(BROADCAST, H2, 46, 0xbb)); // 2nd: dropped
      time.advance(1);
      const c = marked(BROADCAST, H1, 46, 0xcc);
      peer(0).fromPeer(c); // 3rd, towards port 1: passes, corrupted, held 5 ms
      time.advance(1);
      peer(0).fromPeer(marked(BROADCAST, H1, 46, 0xdd)); // 4th: dropped
      time.advance(20);

      const inbound = peer(0).sent;
      const outbound = peer(1).sent;
      expect(inbound).to.have.length(1);
      expect(outbound).to.have.length(1);
      expect(hex(inbound[0]!), "corrupted on the way in").to.not.equal(hex(a));
      expect(hex(outbound[0]!), "corrupted on the way out").to.not.equal(hex(c));
      const captured = sink.writerOf(path).frames.map((f) => ({ frame: hex(f.frame), timestampMs: f.timestampMs }));
      expect(captured).to.deep.equal([
        { frame: hex(inbound[0]!), timestampMs: t0 + 5 },
        { frame: hex(outbound[0]!), timestampMs: t0 + 2 + 5 },
      ]);
      expect(peer(0).sentAtMs[0]).to.equal(t0 + 5);
      expect(peer(1).sentAtMs[0]).to.equal(t0 + 7);
    });
  });

  describe("what cannot leave", () => {
    it('counts a frame that grew past 65,507 bytes with a pushed tag as an "oversize" drop and does not send it', async () => {
      // Port 0 and 2 in VLAN 10; port 1 a trunk with native VLAN 1: VLAN 10 leaves it tagged (+4 bytes).
      await live(withNios(switchNode([access(0, 10), trunk(1), access(2, 10)]), { 0: udpNio(0), 1: udpNio(1), 2: udpNio(2) }));
      const tooBig = marked(BROADCAST, H1, MAX_UDP_PAYLOAD - 14, 1); // 65,507 bytes: 65,511 tagged
      const fits = marked(BROADCAST, H1, MAX_UDP_PAYLOAD - 18, 2); // 65,503 bytes: 65,507 tagged
      peer(0).fromPeer(tooBig);
      peer(0).fromPeer(fits);

      expect(peer(1).sent.map((f) => f.length), "only the frame that still fits").to.deep.equal([MAX_UDP_PAYLOAD]);
      expect(peer(2).sent.map((f) => f.length), "untagged towards the access port: both fit").to.deep.equal([MAX_UDP_PAYLOAD, MAX_UDP_PAYLOAD - 4]);
      const c = countersOf(SWITCH_ID, 1);
      expect(c).to.deep.include({ framesOffered: 2, framesOut: 1, bytesOut: MAX_UDP_PAYLOAD });
      expect(c.egressDrops).to.deep.equal({ oversize: 1 });
      expect(countersOf(SWITCH_ID, 0)).to.deep.include({ framesIn: 2, framesForwarded: 2 });
    });

    it('counts the frames offered to a nio_null port as "nio_null" egress drops', async () => {
      await live(withNios(switchNode(), { 0: udpNio(0), 1: { type: "nio_null" }, 2: udpNio(2) }));
      for (let i = 0; i < 3; i++) peer(0).fromPeer(marked(BROADCAST, H1, 46, i));

      expect(transport.attempts, "a nio_null port has no socket").to.deep.equal([LPORT, LPORT + 2]);
      expect(peer(2).sent).to.have.length(3);
      const c = countersOf(SWITCH_ID, 1);
      expect(c).to.deep.include({ framesIn: 0, framesOffered: 3, framesOut: 0 });
      expect(c.egressDrops).to.deep.equal({ nio_null: 3 });
      expect((await dp.counters(SWITCH_ID)).get(1)?.drops).to.deep.equal({ nio_null: 3 });
    });
  });

  describe("a fault on the path", () => {
    it("costs the frame it struck, is logged with its node and port, and never escapes the socket's event", async () => {
      let logger: ReturnType<typeof inMemoryDataPlane>["logger"];
      ({ dp, transport, sink, time, logger } = inMemoryDataPlane());
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1) }));
      peer(1).sendThrows = new Error("ERR_SOCKET_DGRAM_NOT_RUNNING");
      for (let i = 0; i < 1000; i++) expect(() => peer(0).fromPeer(marked(BROADCAST, H1, 46, i & 0xff))).to.not.throw();
      // 1,000 frames in one turn are more than a port's work budget (ADR 0075): the rest runs at the next turns.
      expect(() => time.runDeferred()).to.not.throw();

      const faults = logger.lines.filter((l) => l.level === "error");
      expect(faults.map((l) => l.fields?.faults), "the 1st fault of the port, then every 1,000th").to.deep.equal([1, 1000]);
      expect(faults[0]?.fields).to.deep.include({ projectId: PROJECT, nodeId: SWITCH_ID, port: 0 });
      expect(String(faults[0]?.fields?.reason)).to.contain("ERR_SOCKET_DGRAM_NOT_RUNNING");

      peer(1).sendThrows = undefined;
      const after = marked(BROADCAST, H1, 46, 0xee);
      peer(0).fromPeer(after);
      time.runDeferred();
      expect(sentTo(1), "the port works again once its socket does").to.deep.equal([hex(after)]);
    });

    it("costs only the delayed frame it struck: the frames held behind it still leave, and the timer does not throw", async () => {
      let logger: ReturnType<typeof inMemoryDataPlane>["logger"];
      ({ dp, transport, sink, time, logger } = inMemoryDataPlane());
      await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1, { delay: [10] }) }));
      const frames = [1, 2, 3].map((i) => marked(BROADCAST, H1, 46, i));
      for (const f of frames) peer(0).fromPeer(f);
      // The socket breaks for the first departure only.
      const endpoint = peer(1);
      const original = endpoint.send.bind(endpoint);
      let first = true;
      endpoint.send = (f: Uint8Array) => {
        if (first) {
          first = false;
          throw new Error("EBADF");
        }
        original(f);
      };
      expect(() => time.advance(20)).to.not.throw();
      expect(sentTo(1)).to.deep.equal([hex(frames[1]!), hex(frames[2]!)]);
      expect(logger.lines.filter((l) => l.level === "error").map((l) => l.fields?.port)).to.deep.equal([1]);
    });
  });

  describe("counters", () => {
    /** Every drop reason a port can count. */
    const ALL_REASONS = ["bpf", "frequency_drop", "packet_loss", "suspend", "runt", "vlan", "no_route", "nio_null", "oversize", "stopped"];
    const host = (port: number) => 0x020000000010 + port;

    /**
     * Checks both balances on every port once the delays are over, and that framesIn is what its
     * peer sent and framesOut what reached it; answers the drop reasons seen.
     */
    function checkBalances(nodeId: string, sentByPeer: Map<number, number>): Set<string> {
      const reasons = new Set<string>();
      const snapshots = liveCounters(dp, nodeId);
      expect(snapshots.size).to.be.greaterThan(0);
      for (const [port, s] of snapshots) {
        expect(countersBalance(s), `port ${port}: ${JSON.stringify(s)}`).to.deep.equal({ ingress: true, egress: true });
        expect(s.framesIn, `port ${port}: frames_in is every datagram its peer sent`).to.equal(sentByPeer.get(port) ?? 0);
        const endpoint = transport.endpoints.get(LPORT + port);
        expect(s.framesOut, `port ${port}: frames_out is what reached its peer`).to.equal(endpoint?.sent.length ?? 0);
        for (const r of Object.keys(s.drops)) reasons.add(r);
      }
      return reasons;
    }

    it("balance on every switch port: frames_in = forwarded + ingress drops, offered = out + egress drops", async () => {
      build(seededRandomness(2024));
      const mapping = [access(0, 1), access(1, 1), trunk(2), access(3, 20), access(4, 1), access(5, 1), tunnel(6, 100)];
      const sw = await live(
        withNios(switchNode(mapping), {
          0: udpNio(0),
          1: udpNio(1, { frequency_drop: [3], packet_loss: [30], delay: [5, 3] }),
          2: udpNio(2, { bpf: [`ether src 02:00:00:00:00:11`], corrupt: [50], delay: [2] }),
          3: udpNio(3),
          4: { type: "nio_null" },
          5: udpNio(5, {}, true),
          6: udpNio(6, { packet_loss: [10] }),
        }),
      );
      const senders = [0, 1, 2, 3, 5, 6];
      const sentByPeer = new Map<number, number>();
      const rng = new SeededRandom(7);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)] as T;
      for (let i = 0; i < 600; i++) {
        if (i === 300) await live(withStatus(sw, "stopped"));
        if (i === 360) await live(sw);
        const from = pick(senders);
        const kind = rng.next();
        let frame: Uint8Array;
        if (kind < 0.05) frame = new Uint8Array(10); // runt
        else if (kind < 0.1 && from === 3) frame = marked(BROADCAST, host(3), MAX_UDP_PAYLOAD - 14, 3); // oversize on the trunk
        else if (kind < 0.2 && from === 2) frame = eth(BROADCAST, host(2), [Q(pick([20, 4095, 1, 100]))], 46); // tagged on the trunk, 4095: vlan
        else if (kind < 0.3) frame = eth(host(from), host(from), [], 46); // to itself: no_route once learned
        else if (kind < 0.6) frame = eth(host(pick([0, 1, 2, 3, 5, 6])), host(from), [], 20 + Math.floor(rng.next() * 200));
        else frame = eth(BROADCAST, host(from), [], 46 + Math.floor(rng.next() * 100));
        peer(from).fromPeer(frame);
        sentByPeer.set(from, (sentByPeer.get(from) ?? 0) + 1);
        time.advance(Math.floor(rng.next() * 3));
      }
      time.advance(100);

      const reasons = checkBalances(SWITCH_ID, sentByPeer);
      expect([...reasons].sort(), "the traffic exercised every drop reason").to.deep.equal([...ALL_REASONS].sort());
      // What dp.counters shows agrees with the live counters.
      for (const [port, s] of liveCounters(dp, SWITCH_ID)) {
        expect((await dp.counters(SWITCH_ID)).get(port)).to.deep.include({ framesIn: s.framesIn, bytesIn: s.bytesIn, framesOut: s.framesOut, bytesOut: s.bytesOut, drops: s.drops });
      }
    });

    it("balance on every hub port too", async () => {
      build(seededRandomness(99));
      const hub = await live(
        withNios(createEthernetHub({ nodeId: HUB_ID, projectId: PROJECT, name: "HUB1", portsMapping: defaultHubPorts() }), {
          0: udpNio(0),
          1: udpNio(1, { frequency_drop: [2], delay: [3, 2] }),
          2: { type: "nio_null" },
          3: udpNio(3, {}, true),
          4: udpNio(4, { packet_loss: [50], corrupt: [50] }),
        }),
      );
      const sentByPeer = new Map<number, number>();
      const rng = new SeededRandom(11);
      for (let i = 0; i < 300; i++) {
        if (i === 150) await live(withStatus(hub, "suspended"));
        if (i === 180) await live(hub);
        const from = [0, 1, 3, 4][Math.floor(rng.next() * 4)] as number;
        const frame = rng.next() < 0.1 ? new Uint8Array(5) : eth(BROADCAST, host(from), [], 46 + Math.floor(rng.next() * 50));
        peer(from).fromPeer(frame);
        sentByPeer.set(from, (sentByPeer.get(from) ?? 0) + 1);
        time.advance(Math.floor(rng.next() * 2));
      }
      time.advance(100);
      const reasons = checkBalances(HUB_ID, sentByPeer);
      expect([...reasons].sort()).to.deep.equal(["frequency_drop", "nio_null", "packet_loss", "runt", "stopped", "suspend"]);
    });
  });

  describe("sync, all or nothing (ADR 0037)", () => {
    it("leaves an existing node as it was when the second of two new NIOs cannot open its local port", async () => {
      const before = await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1) }));
      transport.refuse(LPORT + 3);
      // Everything changes at once: port 0 drops everything, port 1 moves to VLAN 20, the switch
      // stops, and ports 2 and 3 get NIOs (port 3's local port is taken).
      let after = E.getOrElseW(() => before)(replaceNio(before, 0, udpNio(0, { frequency_drop: [-1] })));
      after = withStatus({ ...after, portsMapping: [access(0, 1), access(1, 20), access(2, 1), access(3, 1)] }, "stopped");
      after = withNios(after, { 2: udpNio(2), 3: udpNio(3) });

      const synced = await dp.sync(boundary.across(after));
      expect(synced).to.deep.equal(E.left({ _tag: "UdpConnectionFailed", rhost: "127.0.0.1", rport: LPORT + 1003, reason: `bind EADDRINUSE 0.0.0.0:${LPORT + 3}` }));
      expect(transport.attempts, "port 2's socket was opened, then port 3's refused").to.deep.equal([LPORT, LPORT + 1, LPORT + 2, LPORT + 3]);
      expect(transport.openLports(), "port 2's socket closed again").to.deep.equal([LPORT, LPORT + 1]);
      expect([...(await dp.counters(SWITCH_ID)).keys()]).to.deep.equal([0, 1]);

      // Still started, port 0 without filters, port 1 in VLAN 1.
      const f = eth(BROADCAST, H1);
      peer(0).fromPeer(f);
      expect(sentTo(1)).to.deep.equal([hex(f)]);
      expect(peer(2).sent).to.deep.equal([]);
    });

    it("brings nothing up for a new node whose second NIO cannot open its local port", async () => {
      transport.refuse(LPORT + 1);
      const sw = withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1) });
      const synced = await dp.sync(boundary.across(sw));
      expect(E.isLeft(synced) && synced.left._tag).to.equal("UdpConnectionFailed");
      expect(transport.attempts).to.deep.equal([LPORT, LPORT + 1]);
      expect(transport.openLports(), "neither socket open").to.deep.equal([]);
      expect((await dp.counters(SWITCH_ID)).size).to.equal(0);

      // Port 0's local port was given back: the node comes up once port 1 uses another one.
      const retry = withNios(switchNode(), { 0: udpNio(0), 1: udpNio(2) });
      expect(await dp.sync(boundary.across(retry))).to.deep.equal(E.right(undefined));
      expect(transport.openLports()).to.deep.equal([LPORT, LPORT + 2]);
    });

    it("changes nothing, and opens no socket, when a bpf line does not compile", async () => {
      const before = await live(withNios(switchNode(), { 0: udpNio(0), 1: udpNio(1) }));
      let after = E.getOrElseW(() => before)(replaceNio(before, 0, udpNio(0, { bpf: ["ether src 02:00:00:00:00:01"] })));
      after = E.getOrElseW(() => after)(replaceNio(after, 1, udpNio(1, { bpf: ["ip", "ether src"] })));
      after = withNios(after, { 2: udpNio(2) });

      const synced = await dp.sync(boundary.across(after));
      expect(E.isLeft(synced) && synced.left).to.deep.include({ _tag: "InvalidFilterSettings" });
      expect(E.isLeft(synced) && synced.left._tag === "InvalidFilterSettings" && synced.left.problem).to.deep.include({ problem: "bpf_invalid", line: 2 });
      expect(transport.attempts, "no socket opened for port 2").to.deep.equal([LPORT, LPORT + 1]);
      expect([...(await dp.counters(SWITCH_ID)).keys()]).to.deep.equal([0, 1]);

      // Port 0's valid bpf line was not applied either: H1's frames still pass.
      const f = eth(BROADCAST, H1);
      peer(0).fromPeer(f);
      peer(1).fromPeer(eth(BROADCAST, H2, [], 50));
      expect(sentTo(1)).to.deep.equal([hex(f)]);
      expect(sentTo(0)).to.have.length(1);
      expect((await dp.counters(SWITCH_ID)).get(0)?.drops).to.deep.equal({});
    });
  });
});
