import { expect } from "chai";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { HostBed, requireHostBed, type BedHost } from "../support/host-bed.js";
import { impairLink, linkedHosts } from "../support/host-bed-link.js";

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * A schedule as real TCP/IP hosts see it (ADR 0102): A ─ SW1 ══ link ══ SW2 ─ B, the link's A→B direction
 * scheduled on SW1's end (`nodes[0].schedule`). ping from A measures the round trip before and after the
 * step; the step is set 4 s after the schedule starts, and each ping keeps a second away from it, so a
 * timer late by hundreds of milliseconds on a busy machine still cannot blur the two.
 */
describe("end to end: a scheduled delay step on real TCP/IP hosts", function () {
  this.timeout(120_000);
  let s: TestServer | undefined;
  let bed: HostBed | undefined;
  let linkPath: string;
  let sw1: string, sw2: string;
  let a: BedHost, b: BedHost;

  before(async function () {
    requireHostBed(this);
    bed = await HostBed.open();
    s = await startTestServer();
    ({ linkPath, sw1, sw2, a, b } = await linkedHosts(s, bed, "host-bed-schedules"));
  });

  after(async () => {
    await bed?.close();
    await s?.close();
  });

  it("changes ping's round trip from about 20 ms to about 150 ms at the step's time, and back when the loop begins again", async () => {
    const r = await impairLink(s!, { linkPath, sw1, sw2 }, { aToB: { schedule: { period: 8, steps: [{ at: 0, filters: { delay: [20] } }, { at: 4, filters: { delay: [150] } }] } } });
    // The schedule's t=0 on this process's monotonic clock.
    const t0 = Date.parse(r.json.nodes[0].schedule_set_at as string) - (Date.now() - performance.now());
    const at = async (s: number): Promise<void> => void (await sleep(Math.max(0, t0 + s * 1000 - performance.now())));

    await at(0.5);
    const before = await a.ping(b.ip, { count: 10, intervalS: 0.2 }); // t = 0.5 .. 2.5 s: step 0
    await at(5);
    const after = await a.ping(b.ip, { count: 10, intervalS: 0.2 }); // t = 5 .. 7 s: step 1
    await at(8.5);
    const again = await a.ping(b.ip, { count: 10, intervalS: 0.2 }); // t = 8.5 .. 10.5 s: step 0 of the second period

    for (const [name, ping] of [["before", before], ["after", after], ["again", again]] as const) expect(ping.received, `${name}: ${ping.output}`).to.equal(10);
    // One direction delayed: the RTT is the step's delay plus the bed's own (a millisecond or two, more on a busy machine).
    expect(median(before.rttsMs), "before the step").to.be.within(19, 60);
    expect(median(after.rttsMs), "after the step").to.be.within(149, 200);
    expect(median(again.rttsMs), "after the loop began again").to.be.within(19, 60);
  });

  it("loses the echoes sent inside each window of 'down 1 s every 2 s' and answers the others", async () => {
    const r = await impairLink(s!, { linkPath, sw1, sw2 }, { aToB: { schedule: { period: 2, windows: [{ at: 0, for: 1, filters: { frequency_drop: [-1] } }] } } });
    const t0 = Date.parse(r.json.nodes[0].schedule_set_at as string) - (Date.now() - performance.now());
    // One echo every 100 ms for 6 s from t = 0.05 s: a lost echo is known by its icmp_seq, its send time
    // by ping's pace (echo n leaves (n - 1) × 100 ms after the first).
    await sleep(Math.max(0, t0 + 50 - performance.now()));
    const started = performance.now() - t0;
    const ping = await a.exec(["ping", "-n", "-c", "60", "-i", "0.1", "-W", "1", b.ip], 20_000);
    const answered = new Set([...ping.stdout.matchAll(/icmp_seq=(\d+)/g)].map((m) => Number(m[1])));
    // ping's pace is 100 ms an echo plus its own delays (4 ms and more under load): the mean pace is
    // what its summary says it took for the 59 intervals; 250 ms from each edge keeps what is left of
    // the drift (uneven pacing) out of the judgment.
    const took = /(\d+) received.*time (\d+)ms/.exec(ping.stdout);
    const paceMs = took === null ? 100 : Math.max(100, Number(took[2]) / 59);
    const phase = (seq: number): number => (started + (seq - 1) * paceMs) % 2_000;
    const inside = [...Array(60).keys()].map((i) => i + 1).filter((seq) => phase(seq) >= 250 && phase(seq) <= 750);
    const between = [...Array(60).keys()].map((i) => i + 1).filter((seq) => phase(seq) >= 1_250 && phase(seq) <= 1_750);
    expect(inside.length).to.be.greaterThan(10);
    expect(between.length).to.be.greaterThan(10);
    expect(inside.filter((seq) => answered.has(seq)), `answered while down: ${ping.stdout}`).to.deep.equal([]);
    expect(between.filter((seq) => !answered.has(seq)), `lost while up: ${ping.stdout}`).to.deep.equal([]);
  });
});
