import { expect } from "chai";
import fc from "fast-check";
import * as E from "fp-ts/lib/Either.js";
import type { SwitchDataPlane } from "../../../src/application/dataplane/switch-data-plane.js";
import type { RandomSourceFactory } from "../../../src/application/ports/timers.js";
import type { FilterChain } from "../../../src/domain/filters/filter-chain.js";
import { type FilterSettings, filterSettingsEqual, parseFilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { type ComputeNode, attachNio, detachNio, renameNode, replaceNio, withStatus } from "../../../src/domain/switching/compute-node.js";
import { type EthernetSwitch, createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import { type Nio, type UdpNio, withFilters } from "../../../src/domain/switching/nio.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import { NO_FILTERS } from "../../../src/domain/filters/filter-settings.js";
import { BROADCAST, eth, hex } from "../switching/support.js";
import { type InMemoryUdpTransport, ManualTime, constantRandomness, inMemoryDataPlane, liveCounters } from "../../support/in-memory-data-plane.js";

/**
 * A live switch reconciled by value (ADR 0055): re-syncing a node keeps the live state of whatever did
 * not change, whatever object the record is (the same, or a copy as a worker thread or a database
 * hands it over), and each change that does touch a port's filters keeps what the decision table says.
 */

const PROJECT = "11111111-2222-4333-8444-555555555555";
const SWITCH_ID = "aaaaaaaa-0000-4000-8000-00000000f001";
const H1 = 0x020000000001;
const H2 = 0x020000000002;
const LPORT = 6000;

/** A parsed settings value, as every door makes one. */
function filters(raw: Record<string, unknown>): FilterSettings {
  const parsed = parseFilterSettings(raw);
  if (E.isLeft(parsed)) throw new Error(JSON.stringify(parsed.left));
  return parsed.right;
}

function udpNio(port: number, both: Record<string, unknown> = {}, oneWay: { in?: Record<string, unknown>; out?: Record<string, unknown> } = {}, suspend = false): UdpNio {
  return withFilters(
    { type: "nio_udp", lport: LPORT + port, rhost: "127.0.0.1", rport: LPORT + 1000 + port, filters: NO_FILTERS, suspend: false },
    { filters: filters(both), filtersIn: filters(oneWay.in ?? {}), filtersOut: filters(oneWay.out ?? {}) },
    suspend,
  ) as UdpNio;
}

function switchWith(nios: Record<number, Nio>): EthernetSwitch {
  let node = createEthernetSwitch({ nodeId: SWITCH_ID, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  for (const [port, nio] of Object.entries(nios)) node = E.getOrElseW((e) => { throw new Error(JSON.stringify(e)); })(attachNio(node, Number(port), nio));
  return node;
}

const must = <N>(r: E.Either<unknown, N>): N => E.getOrElseW((e) => { throw new Error(JSON.stringify(e)); })(r);

/** Where the record comes from at every sync: the record a use case made, or a copy of it. */
const BOUNDARIES: readonly { readonly name: string; readonly across: <N>(node: N) => N }[] = [
  { name: "the same record objects", across: (node) => node },
  { name: "a structuredClone at every sync, as a worker or a database sees it", across: (node) => structuredClone(node) },
];

for (const boundary of BOUNDARIES) {
  describe(`re-syncing a live switch keeps what did not change (${boundary.name})`, () => {
    let dp: SwitchDataPlane;
    let transport: InMemoryUdpTransport;
    let time: ManualTime;

    function build(randomness: RandomSourceFactory = constantRandomness(0.5)): void {
      ({ dp, transport, time } = inMemoryDataPlane({ randomness, time: new ManualTime() }));
    }
    beforeEach(() => build());
    afterEach(async () => dp.close());

    async function sync<N extends ComputeNode>(node: N): Promise<N> {
      const synced = await dp.sync(boundary.across(node));
      if (E.isLeft(synced)) throw new Error(`sync: ${JSON.stringify(synced.left)}`);
      return node;
    }
    const peer = (port: number) => transport.at(LPORT + port);
    /** Frames from port 0's peer to everyone: they leave through port 1's egress filters. */
    const sendOut = (fill: number, payload = 46): Uint8Array => {
      const f = eth(BROADCAST, H1, [], payload);
      f.fill(fill, f.length - payload);
      peer(0).fromPeer(f);
      return f;
    };
    const sentTo = (port: number) => peer(port).sent.map(hex);
    const drops = (port: number) => liveCounters(dp, SWITCH_ID).get(port)?.egressDrops ?? {};

    /** Every change of the node that leaves port 1's NIO as it is. */
    const unrelated: readonly { name: string; change: (sw: EthernetSwitch) => Promise<EthernetSwitch> }[] = [
      { name: "a rename", change: async (sw) => sync(renameNode(sw, "SW1-renamed")) },
      { name: "a stop and a start", change: async (sw) => (await sync(withStatus(sw, "stopped")), sync(withStatus(sw, "started"))) },
      { name: "a suspend and a resume", change: async (sw) => (await sync(withStatus(sw, "suspended")), sync(withStatus(sw, "started"))) },
      { name: "a NIO added on another port", change: async (sw) => sync(must(attachNio(sw, 2, udpNio(2)))) },
      { name: "a NIO removed from another port", change: async (sw) => sync(must(detachNio(sw, 0))).then(() => sync(sw)) },
      { name: "the same record synced again", change: async (sw) => sync(sw) },
    ];

    for (const { name, change } of unrelated) {
      it(`keeps frequency_drop's count through ${name}`, async () => {
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { frequency_drop: [3] }) }));
        const [a, b] = [sendOut(1), sendOut(2)];
        await change(sw);
        const c = sendOut(3);
        const d = sendOut(4);
        expect(sentTo(1), "the third frame is the third: dropped").to.deep.equal([hex(a), hex(b), hex(d)]);
        expect(c).to.have.length.above(0);
        expect(drops(1)).to.deep.include({ frequency_drop: 1 });
      });

      it(`keeps a bandwidth backlog through ${name}: no frame is dropped or leaves early`, async () => {
        // 1,000-byte frames at 400 kbit/s take 20 ms each; the queue holds 10 s of them.
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { bandwidth: [400, 10_000] }) }));
        for (let i = 0; i < 20; i++) sendOut(i, 986);
        await change(sw);
        for (let i = 20; i < 40; i++) sendOut(i, 986);
        time.advance(799);
        expect(peer(1).sent, "39 frames have left after 799 ms").to.have.length(39);
        time.advance(1);
        expect(peer(1).sent, "the 40th leaves at 800 ms").to.have.length(40);
        expect(drops(1)).to.deep.equal({});
      });

      it(`keeps the burst-loss state through ${name}`, async () => {
        // p 100 %: the first frame finds the link good (it passes) and turns it bad; r 1 %: a bad link
        // loses the next frame whatever the draw: a link rebuilt good would let it through.
        build(constantRandomness(0.5));
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { burst_loss: [100, 1] }) }));
        const first = sendOut(1);
        await change(sw);
        sendOut(2);
        expect(sentTo(1)).to.deep.equal([hex(first)]);
        expect(drops(1)).to.deep.equal({ burst_loss: 1 });
      });

      it(`lets frames held by a delay leave at their time through ${name}`, async () => {
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { delay: [300] }) }));
        const held = sendOut(1);
        time.advance(50);
        await change(sw);
        time.advance(249);
        expect(sentTo(1)).to.deep.equal([]);
        time.advance(1);
        expect(sentTo(1)).to.deep.equal([hex(held)]);
      });
    }

    it("keeps a direction's state when only the other direction's filters change", async () => {
      const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, {}, { out: { frequency_drop: [3] }, in: { delay: [10] } }) }));
      const [a, b] = [sendOut(1), sendOut(2)];
      await sync(must(replaceNio(sw, 1, udpNio(1, {}, { out: { frequency_drop: [3] }, in: { delay: [20] } }))));
      sendOut(3);
      const d = sendOut(4);
      expect(sentTo(1)).to.deep.equal([hex(a), hex(b), hex(d)]);
    });

    describe("what a change of the port's own filters keeps (ADR 0055)", () => {
      it("a new delay: the held frames leave at their time, the next ones at the new delay and never before them", async () => {
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { delay: [300] }) }));
        const held = sendOut(1);
        await sync(must(replaceNio(sw, 1, udpNio(1, { delay: [100] }))));
        const next = sendOut(2);
        time.advance(100);
        expect(sentTo(1), "the new frame waits behind the held one").to.deep.equal([]);
        time.advance(200);
        expect(sentTo(1)).to.deep.equal([hex(held), hex(next)]);
      });

      it("no delay any more: the next frames still leave after the held ones, in order", async () => {
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { delay: [300] }) }));
        const held = sendOut(1);
        await sync(must(replaceNio(sw, 1, udpNio(1))));
        const next = sendOut(2);
        expect(sentTo(1)).to.deep.equal([]);
        time.advance(300);
        expect(sentTo(1)).to.deep.equal([hex(held), hex(next)]);
        // Once nothing is held, frames leave at once again.
        const later = sendOut(3);
        expect(sentTo(1)).to.deep.equal([hex(held), hex(next), hex(later)]);
      });

      it("a new rate: frames already admitted leave at their time; the next starts after them, at the new rate", async () => {
        // 1,000-byte frames: 20 ms at 400 kbit/s, 10 ms at 800.
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { bandwidth: [400, 10_000] }) }));
        for (let i = 0; i < 5; i++) sendOut(i, 986);
        await sync(must(replaceNio(sw, 1, udpNio(1, { bandwidth: [800, 10_000] }))));
        sendOut(5, 986);
        time.advance(100);
        expect(peer(1).sent, "five frames at 20 ms each").to.have.length(5);
        time.advance(9);
        expect(peer(1).sent).to.have.length(5);
        time.advance(1);
        expect(peer(1).sent, "the sixth 10 ms after them").to.have.length(6);
      });

      it("another filter changed: frequency_drop's count goes on", async () => {
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { frequency_drop: [3] }) }));
        const [a, b] = [sendOut(1), sendOut(2)];
        await sync(must(replaceNio(sw, 1, udpNio(1, { frequency_drop: [3], packet_loss: [0] }))));
        await sync(must(replaceNio(sw, 1, udpNio(1, { frequency_drop: [3], corrupt: [0], delay: [0] }))));
        sendOut(3);
        expect(sentTo(1)).to.deep.equal([hex(a), hex(b)]);
      });

      it("suspend on and off: the count goes on, the frames in between are dropped as suspended", async () => {
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { frequency_drop: [3] }) }));
        const [a, b] = [sendOut(1), sendOut(2)];
        await sync(must(replaceNio(sw, 1, udpNio(1, { frequency_drop: [3] }, {}, true))));
        sendOut(9);
        await sync(must(replaceNio(sw, 1, udpNio(1, { frequency_drop: [3] }))));
        sendOut(3);
        expect(sentTo(1)).to.deep.equal([hex(a), hex(b)]);
        expect(drops(1)).to.deep.equal({ suspend: 1, frequency_drop: 1 });
      });

      it("frequency_drop's N changed: the count starts again", async () => {
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { frequency_drop: [3] }) }));
        sendOut(1);
        sendOut(2);
        await sync(must(replaceNio(sw, 1, udpNio(1, { frequency_drop: [2] }))));
        const c = sendOut(3);
        sendOut(4);
        expect(sentTo(1).slice(2)).to.deep.equal([hex(c)]);
      });

      it("direction-specific filters added: the direction that did not change keeps its state", async () => {
        const sw = await sync(switchWith({ 0: udpNio(0), 1: udpNio(1, { frequency_drop: [3] }) }));
        const [a, b] = [sendOut(1), sendOut(2)];
        // Ingress gets its own filters; egress still runs the both-ways ones, and its count.
        await sync(must(replaceNio(sw, 1, udpNio(1, { frequency_drop: [3] }, { in: { delay: [5] } }))));
        sendOut(3);
        const d = sendOut(4);
        expect(sentTo(1)).to.deep.equal([hex(a), hex(b), hex(d)]);
      });
    });
  });
}

/** White-box: the chains port `port` of the switch runs. */
function chainsOf(dp: SwitchDataPlane, port: number): { ingress: FilterChain; egress: FilterChain } {
  const inside = dp as unknown as { nodes: Map<string, { ports: Map<number, { chains: { ingress: FilterChain; egress: FilterChain } }> }> };
  const chains = inside.nodes.get(SWITCH_ID)?.ports.get(port)?.chains;
  if (chains === undefined) throw new Error("SwitchDataPlane's shape changed: update test/unit/application/resync.test.ts");
  return chains;
}

/** Any valid filter settings (bpf and match left out: their programs are tested on their own). */
const settingsArb: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    frequency_drop: fc.tuple(fc.integer({ min: -1, max: 50 })),
    packet_loss: fc.tuple(fc.integer({ min: 0, max: 100 })),
    delay: fc.tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 50 })),
    corrupt: fc.tuple(fc.integer({ min: 0, max: 100 })),
    bandwidth: fc.tuple(fc.integer({ min: 8, max: 100_000 }), fc.integer({ min: 1, max: 1000 })),
    burst_loss: fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 100 })),
    duplicate: fc.tuple(fc.integer({ min: 0, max: 100 })),
    reorder: fc.tuple(fc.integer({ min: 0, max: 100 })),
    loss_correlation: fc.tuple(fc.integer({ min: 0, max: 99 })),
  },
  { requiredKeys: [] },
);

describe("reconciling by value: the property", () => {
  it("an equal value, however copied, never rebuilds a port's chains; a changed one always does", async () => {
    await fc.assert(
      fc.asyncProperty(settingsArb, settingsArb, fc.boolean(), async (first, second, split) => {
        const { dp } = inMemoryDataPlane({ time: new ManualTime() });
        try {
          const nio = (s: Record<string, unknown>) => udpNio(1, s, split ? { out: { duplicate: [5] } } : {});
          const sw = switchWith({ 0: udpNio(0), 1: nio(first) });
          expect(E.isRight(await dp.sync(sw))).to.equal(true);
          const before = chainsOf(dp, 1);
          expect(E.isRight(await dp.sync(structuredClone(sw)))).to.equal(true);
          const same = chainsOf(dp, 1);
          expect(same.ingress, "an equal copy keeps the ingress chain").to.equal(before.ingress);
          expect(same.egress, "an equal copy keeps the egress chain").to.equal(before.egress);
          const changed = !filterSettingsEqual(filters(first), filters(second));
          expect(E.isRight(await dp.sync(must(replaceNio(sw, 1, nio(second)))))).to.equal(true);
          const after = chainsOf(dp, 1);
          expect(after.ingress !== before.ingress, "a changed value rebuilds the direction it changes").to.equal(changed);
          expect(filterSettingsEqual(after.ingress.settings, filters(second)), "the ingress chain runs the new value").to.equal(true);
        } finally {
          await dp.close();
        }
      }),
      { seed: 16, numRuns: 200 },
    );
  });
});
