import { expect } from "chai";
import fc from "fast-check";
import { EthernetSwitchFabric, egressList } from "../../src/domain/switching/forwarding.js";
import { countersBalance, type PortCountersSnapshot } from "../../src/domain/switching/port-counters.js";
import type { PortMode } from "../../src/domain/switching/port.js";
import { FilterChain } from "../../src/domain/filters/filter-chain.js";
import { parseFilterSettings } from "../../src/domain/filters/filter-settings.js";
import { SeededRandom } from "../../src/domain/filters/random.js";
import * as E from "fp-ts/lib/Either.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";
import { FC_SEED, eventually, sleep } from "../support/hardening-kit.js";
import { filtersArb, frameArb, liveSnapshots } from "../support/hardening-frames.js";

const MODES: readonly PortMode[] = [
  { kind: "access", vlan: 10 },
  { kind: "access", vlan: 20 },
  { kind: "dot1q", nativeVlan: 1 },
  { kind: "dot1q", nativeVlan: 10 },
  { kind: "qinq", outerVlan: 10, ethertype: 0x88a8 },
  { kind: "qinq", outerVlan: 20, ethertype: 0x8100 },
];

const sumOf = (r: Readonly<Record<string, number>>): number => Object.values(r).reduce((a, b) => a + b, 0);

function describeBalance(port: number, s: PortCountersSnapshot): string {
  return `port ${port}: in ${s.framesIn} = forwarded ${s.framesForwarded} + ingress drops ${JSON.stringify(s.ingressDrops)}; offered ${s.framesOffered} = out ${s.framesOut} + egress drops ${JSON.stringify(s.egressDrops)}`;
}

describe("Frames: random and mutated frames through every port type and filter kind", function () {
  this.timeout(60_000);

  it("the fabric with a filter chain on every port never throws, never alters headers, and every port's counters add up", () => {
    fc.assert(
      fc.property(
        fc.array(filtersArb(true), { minLength: MODES.length, maxLength: MODES.length }),
        fc.array(fc.boolean(), { minLength: MODES.length, maxLength: MODES.length }),
        fc.array(fc.record({ port: fc.integer({ min: 0, max: MODES.length - 1 }), frame: frameArb }), { minLength: 1, maxLength: 40 }),
        fc.integer(),
        (filters, suspends, inputs, seed) => {
          const fabric = new EthernetSwitchFabric({ capacity: 8, agingTimeMs: 1000 });
          MODES.forEach((mode, n) => fabric.setPort(n, mode));
          const chains = filters.map((raw, n) => {
            const settings = parseFilterSettings(raw);
            if (E.isLeft(settings)) throw new Error(`generated filters refused: ${JSON.stringify(settings.left.problem)}`);
            return new FilterChain({
              settings: settings.right,
              suspend: suspends[n] ?? false,
              random: new SeededRandom(seed + n),
              bpf: (frame) => frame.length % 3 === 0,
            });
          });
          let now = 0;
          for (const { port, frame } of inputs) {
            now += 7;
            const original = Uint8Array.from(frame);
            const counters = fabric.counters(port)!;
            const ingress = chains[port]!.process(frame);
            if (ingress.drop !== undefined) {
              counters.countInDropped(frame.length, ingress.drop);
              continue;
            }
            expect(ingress.frame.length).to.equal(frame.length);
            expect(Buffer.from(ingress.frame.subarray(0, 14)).equals(Buffer.from(frame.subarray(0, 14))), "corrupt kept the Ethernet header").to.equal(true);
            const result = fabric.forward(port, ingress.frame, now);
            for (const { port: out, frame: sent } of egressList(result)) {
              expect(out).to.not.equal(port);
              expect(Math.abs(sent.length - frame.length)).to.be.at.most(4);
              const egress = chains[out]!.process(sent);
              if (egress.drop !== undefined) fabric.counters(out)!.countEgressDrop(egress.drop);
              else fabric.counters(out)!.countOut(egress.frame.length);
            }
            expect(Buffer.from(frame).equals(Buffer.from(original)), "the received buffer is never changed").to.equal(true);
          }
          for (let n = 0; n < MODES.length; n++) {
            const s = fabric.counters(n)!.snapshot();
            expect(countersBalance(s), describeBalance(n, s)).to.deep.equal({ ingress: true, egress: true });
            expect(s.framesIn).to.equal(inputs.filter((i) => i.port === n).length);
          }
          expect(fabric.macTableSize).to.be.at.most(8);
        },
      ),
      { numRuns: 300, seed: FC_SEED },
    );
  });

  describe("through the real data plane over UDP (127.0.0.1)", () => {
    let s: TestServer;
    let base: string;
    let peers: UdpPeer[];
    let lports: number[];
    let bpfAccepted = false;
    const PROJECT = "77777777-3333-4444-8555-666666666666";
    const MAPPING = [
      { name: "Ethernet0", port_number: 0, type: "access", vlan: 10 },
      { name: "Ethernet1", port_number: 1, type: "dot1q", vlan: 1 },
      { name: "Ethernet2", port_number: 2, type: "qinq", vlan: 10, ethertype: "0x88A8" },
      { name: "Ethernet3", port_number: 3, type: "access", vlan: 20 },
      { name: "Ethernet4", port_number: 4, type: "dot1q", vlan: 10 },
    ];
    let nodeId: string;

    before(async () => {
      s = await startTestServer();
      await s.request("POST", "/v2/compute/projects", { name: "frames", project_id: PROJECT });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW", ports_mapping: MAPPING })).json;
      nodeId = sw.node_id;
      base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${nodeId}`;
      peers = await Promise.all(MAPPING.map(() => UdpPeer.open()));
      // Room for bursts of 64 KiB datagrams, so that any loss is netemu's, not the test peers'.
      for (const p of peers) p.socket.setRecvBufferSize(8 * 1024 * 1024);
      lports = [];
      for (let i = 0; i < MAPPING.length; i++) {
        const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
        lports.push(lport);
        const r = await s.request("POST", `${base}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peers[i]!.port });
        expect(r.status).to.equal(201);
      }
      const probe = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: lports[0], rhost: "127.0.0.1", rport: peers[0]!.port, filters: { bpf: ["ip"] } });
      bpfAccepted = probe.status === 201;
      if (!bpfAccepted) console.log(`      (bpf filters not accepted by this build: ${probe.json?.message as string}; bpf left out)`);
      await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: lports[0], rhost: "127.0.0.1", rport: peers[0]!.port, filters: {} });
    });
    after(async () => {
      await s.close();
      await Promise.all(peers.map((p) => p.close()));
    });

    it("no frame breaks a port, frames_in counts every datagram, frames_out every delivery, and the live counters add up", async () => {
      const sent = MAPPING.map(() => 0);
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(filtersArb(bpfAccepted), { minLength: MAPPING.length, maxLength: MAPPING.length }),
          fc.array(fc.boolean(), { minLength: MAPPING.length, maxLength: MAPPING.length }),
          fc.array(fc.record({ port: fc.integer({ min: 0, max: MAPPING.length - 1 }), frame: frameArb }), { minLength: 1, maxLength: 25 }),
          async (filters, suspends, inputs) => {
            runs++;
            for (let i = 0; i < MAPPING.length; i++) {
              const r = await s.request("PUT", `${base}/adapters/0/ports/${i}/nio`, {
                type: "nio_udp",
                lport: lports[i],
                rhost: "127.0.0.1",
                rport: peers[i]!.port,
                filters: filters[i],
                suspend: (suspends[i] ?? false) && runs % 3 === 0,
              });
              expect(r.status, `PUT filters ${JSON.stringify(filters[i])}: ${r.text}`).to.equal(201);
            }
            for (const { port, frame } of inputs) {
              await peers[port]!.send(frame, lports[port]!);
              sent[port]!++;
            }
            // Wait until every datagram has been taken in (delays are at most 20 ms) and nothing is in flight.
            const settled = await eventually(() => {
              const snaps = liveSnapshots(s.netemu, nodeId);
              return MAPPING.every((_, n) => {
                const snap = snaps.get(n);
                return snap !== undefined && snap.framesIn === sent[n] && countersBalance(snap).ingress && countersBalance(snap).egress;
              });
            }, 3000);
            const snaps = liveSnapshots(s.netemu, nodeId);
            const detail = [...snaps].map(([n, snap]) => describeBalance(n, snap)).join("\n");
            expect(settled, `counters did not settle:\nsent ${JSON.stringify(sent)}\n${detail}`).to.equal(true);
            // The API shows the same: frames_in, frames_out, and drops = ingress + egress drops.
            const stats = (await s.request("GET", base)).json.ports_statistics as { port_number: number; frames_in: number; frames_out: number; drops: Record<string, number> }[];
            for (const st of stats) {
              const snap = snaps.get(st.port_number)!;
              expect(st.frames_in).to.equal(sent[st.port_number]);
              expect(st.frames_out).to.equal(snap.framesOut);
              expect(sumOf(st.drops)).to.equal(sumOf(snap.ingressDrops) + sumOf(snap.egressDrops));
            }
            // What each port sent out reached its peer (loopback does not lose datagrams at this rate).
            const delivered = await eventually(() => peers.every((p, n) => p.received.length === snaps.get(n)!.framesOut), 2000);
            expect(delivered, `peers got ${peers.map((p) => p.received.length)}, frames_out ${[...snaps.values()].map((x) => x.framesOut)}`).to.equal(true);
          },
        ),
        { numRuns: 40, seed: FC_SEED, endOnFailure: true },
      );
      expect((await s.request("GET", "/v2/version")).status).to.equal(200);
    });

    it("a 65,507-byte frame that leaves tagged (65,511 bytes, over the UDP maximum) is counted as dropped, not as sent", async () => {
      for (let i = 0; i < MAPPING.length; i++) {
        const nio = { type: "nio_udp", lport: lports[i], rhost: "127.0.0.1", rport: peers[i]!.port, filters: {}, suspend: false };
        expect((await s.request("PUT", `${base}/adapters/0/ports/${i}/nio`, nio)).status).to.equal(201);
      }
      const before = liveSnapshots(s.netemu, nodeId).get(1)!;
      const receivedBefore = peers[1]!.received.length;
      // Access port 0 (VLAN 10) → dot1q port 1 (native 1): the frame gets a 4-byte tag on the way out.
      await peers[0]!.send(ethernetFrame("ff:ff:ff:ff:ff:ff", "00:50:79:66:68:01", { payload: 65507 - 14 }), lports[0]!);
      await sleep(200);
      const after = liveSnapshots(s.netemu, nodeId).get(1)!;
      const delivered = peers[1]!.received.length - receivedBefore;
      expect(after.framesOffered - before.framesOffered).to.equal(1);
      expect(after.framesOut - before.framesOut, `frames_out counted, peer got ${delivered}`).to.equal(delivered);
      expect(countersBalance(after), describeBalance(1, after)).to.deep.equal({ ingress: true, egress: true });
    });

    it("a nio_null port offered frames keeps offered = out + egress drops", async () => {
      // Port 4 gets a nio_null: the switch floods VLAN 10 traffic to it, and nothing can be sent.
      expect((await s.request("DELETE", `${base}/adapters/0/ports/4/nio`)).status).to.equal(204);
      expect((await s.request("POST", `${base}/adapters/0/ports/4/nio`, { type: "nio_null" })).status).to.equal(201);
      for (let i = 0; i < 4; i++) {
        const nio = { type: "nio_udp", lport: lports[i], rhost: "127.0.0.1", rport: peers[i]!.port, filters: {}, suspend: false };
        expect((await s.request("PUT", `${base}/adapters/0/ports/${i}/nio`, nio)).status).to.equal(201);
      }
      await peers[0]!.send(ethernetFrame("ff:ff:ff:ff:ff:ff", "00:50:79:66:68:01"), lports[0]!);
      await sleep(100);
      const snap = liveSnapshots(s.netemu, nodeId).get(4);
      expect(snap, "port 4 is attached").to.not.equal(undefined);
      expect(snap!.framesOffered).to.be.greaterThan(0);
      expect(countersBalance(snap!), describeBalance(4, snap!)).to.deep.equal({ ingress: true, egress: true });
    });
  });

  describe("datagrams from strangers (real sockets on 127.0.0.1 and 127.0.0.2)", () => {
    it("never enter the switch: 40 strangers × 50 frames leave frames_in at 0 and reach no peer, while the real peer still gets through", async () => {
      const s = await startTestServer();
      const PROJECT = "88888888-3333-4444-8555-666666666666";
      const peers: UdpPeer[] = [];
      const strangers: UdpPeer[] = [];
      try {
        await s.request("POST", "/v2/compute/projects", { name: "strangers", project_id: PROJECT });
        const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW" })).json;
        const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
        peers.push(await UdpPeer.open(), await UdpPeer.open());
        const lports: number[] = [];
        for (let i = 0; i < 2; i++) {
          const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
          lports.push(lport);
          expect((await s.request("POST", `${base}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peers[i]!.port })).status).to.equal(201);
        }
        for (let i = 0; i < 39; i++) strangers.push(await UdpPeer.open());
        // The cunning one: the real peer's port number, on another loopback address.
        const twin = await openOn("127.0.0.2", peers[0]!.port);
        const frames = [ethernetFrame("ff:ff:ff:ff:ff:ff", "00:50:79:66:68:0a"), ethernetFrame("00:50:79:66:68:02", "00:50:79:66:68:0b"), Buffer.alloc(0)];
        for (let k = 0; k < 50; k++) {
          const frame = frames[k % frames.length]!;
          await Promise.all(strangers.map((st) => st.send(frame, lports[0]!)));
          await new Promise<void>((resolve, reject) => twin.send(frame, lports[0]!, "127.0.0.1", (err) => (err ? reject(err) : resolve())));
        }
        await sleep(150);
        const stats = (await s.request("GET", base)).json.ports_statistics as { port_number: number; frames_in: number; frames_out: number }[];
        expect(stats.find((p) => p.port_number === 0)).to.deep.include({ frames_in: 0, frames_out: 0 });
        expect(stats.find((p) => p.port_number === 1)).to.deep.include({ frames_in: 0, frames_out: 0 });
        expect(peers[1]!.received).to.have.length(0);
        expect((await s.request("GET", `${base}/mac_table`)).json).to.deep.equal([]);
        await new Promise<void>((resolve) => twin.close(() => resolve()));
        // The NIO is alive: its own peer's frame goes through.
        await peers[0]!.send(ethernetFrame("ff:ff:ff:ff:ff:ff", "00:50:79:66:68:01"), lports[0]!);
        await peers[1]!.waitFor(1);
        const after = (await s.request("GET", base)).json.ports_statistics as { port_number: number; frames_in: number }[];
        expect(after.find((p) => p.port_number === 0)?.frames_in).to.equal(1);
      } finally {
        await s.close();
        await Promise.all([...peers, ...strangers].map((p) => p.close()));
      }
    });
  });
});

async function openOn(address: string, port: number): Promise<import("node:dgram").Socket> {
  const { createSocket } = await import("node:dgram");
  const socket = createSocket("udp4");
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, address, () => resolve());
  });
  return socket;
}
