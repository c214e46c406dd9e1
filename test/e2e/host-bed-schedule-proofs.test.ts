import { expect } from "chai";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { HostBed, requireHostBed, type BedHost } from "../support/host-bed.js";
import { impairLink, linkedHosts } from "../support/host-bed-link.js";

/** netemu's clock (SystemClock): the one a schedule's `schedule_set_at` is read on. */
const clockNow = (): number => performance.timeOrigin + performance.now();

/** A full-size TCP segment on the wire: 1500-byte IP packet + 14-byte Ethernet header, for 1448 bytes of payload (timestamps on). */
const WIRE_PER_PAYLOAD = 1514 / 1448;

interface Probe {
  readonly seq: number;
  /** When ping sent it, on netemu's clock, ms; for a lost probe, from its answered neighbours (see `probesOf`). */
  readonly sentMs: number;
  readonly answered: boolean;
  readonly rttMs?: number;
}

/**
 * Reads `ping -D -U -n` output: each reply's wall-clock time ([seconds.micros], CLOCK_REALTIME, taken when
 * ping printed it) less its RTT is its probe's send time. -U makes the RTT ping's own, from its clock
 * before the send to its clock when it read the reply, right before printing it: without it the RTT is the
 * kernel's receive time less the send, and a ping late to read the reply (a loaded machine) would place
 * the send that much later. A lost probe's send time is its nearest answered
 * probe's plus ping's pace (the slope of send time over sequence number among the answered ones) times the
 * distance: ping sends on its own timer, so over the 20 probes of a window the error is well under a ms.
 */
function probesOf(output: string, count: number, wallToClock: number): Probe[] {
  const replies = new Map<number, { sentMs: number; rttMs: number }>();
  for (const m of output.matchAll(/^\[(\d+\.\d+)\] \d+ bytes from .*? icmp_seq=(\d+) .*?time=([\d.]+) ms/gm)) {
    const rttMs = Number(m[3]);
    replies.set(Number(m[2]), { sentMs: Number(m[1]) * 1000 - rttMs - wallToClock, rttMs });
  }
  const answered = [...replies.entries()].sort(([x], [y]) => x - y);
  if (answered.length < 2) throw new Error(`ping answered fewer than 2 probes: ${output}`);
  const meanSeq = answered.reduce((s, [q]) => s + q, 0) / answered.length;
  const meanSent = answered.reduce((s, [, r]) => s + r.sentMs, 0) / answered.length;
  const pace = answered.reduce((s, [q, r]) => s + (q - meanSeq) * (r.sentMs - meanSent), 0) / answered.reduce((s, [q]) => s + (q - meanSeq) ** 2, 0);
  return Array.from({ length: count }, (_, i) => {
    const seq = i + 1;
    const reply = replies.get(seq);
    if (reply !== undefined) return { seq, sentMs: reply.sentMs, answered: true, rttMs: reply.rttMs };
    const [nearest, r] = answered.reduce((best, cur) => (Math.abs(cur[0] - seq) < Math.abs(best[0] - seq) ? cur : best));
    return { seq, sentMs: r.sentMs + (seq - nearest) * pace, answered: false };
  });
}

/**
 * Issue 29's proofs of schedules (ADR 0102) on real TCP/IP hosts: A ─ SW1 ══ link ══ SW2 ─ B, a link
 * end's schedule (`nodes[i].schedule`: what node i sends) set through the controller's link PUT, and
 * judged by what ping and iperf3 in the hosts see, against the schedule's own t=0 (`schedule_set_at`).
 */
describe("end to end: schedules as real TCP/IP hosts see them, over a minute", function () {
  let s: TestServer | undefined;
  let bed: HostBed | undefined;
  let linkPath: string;
  let sw1: string, sw2: string;
  let a: BedHost, b: BedHost;

  /** Sets what SW1 (A→B) and SW2 (B→A) send as schedules; answers the schedule's t=0 on netemu's clock. */
  const schedule = async (aToB: Record<string, unknown> | undefined, bToA: Record<string, unknown> | undefined): Promise<number> => {
    const end = (sch: Record<string, unknown> | undefined) => (sch === undefined ? undefined : { schedule: sch });
    const r = await impairLink(s!, { linkPath, sw1, sw2 }, { aToB: end(aToB), bToA: end(bToA) });
    const setAt = (r.json.nodes as { schedule_set_at?: string }[]).map((n) => n.schedule_set_at).find((x) => x !== undefined);
    return Date.parse(setAt as string);
  };

  before(async function () {
    this.timeout(30_000);
    requireHostBed(this);
    bed = await HostBed.open();
    s = await startTestServer();
    ({ linkPath, sw1, sw2, a, b } = await linkedHosts(s, bed, "host-bed-schedule-proofs"));
    // ARP sent inside a window would be lost with it, and take probes outside the windows along.
    await a.pinNeighbour(b.ip, b.mac);
    await b.pinNeighbour(a.ip, a.mac);
  });

  afterEach(async () => {
    if (s !== undefined && linkPath !== undefined) await schedule(undefined, undefined);
  });

  after(async () => {
    await bed?.close();
    await s?.close();
  });

  it("'down 2 s every 10 s' for 60 s: ping at 10/s loses exactly the probes sent inside the windows (about 120 of 600) and none outside", async function () {
    this.timeout(100_000);
    const PERIOD_MS = 10_000;
    const WINDOW_MS = 2_000;
    const COUNT = 600;
    // The event loop's delay, sampled every 50 ms for the whole minute (the server runs in this process).
    const lag = monitorEventLoopDelay({ resolution: 1 });
    const lags: { atMs: number; maxMs: number }[] = [];
    lag.enable();
    const sampler = setInterval(() => {
      lags.push({ atMs: clockNow(), maxMs: lag.max / 1e6 });
      lag.reset();
    }, 50);
    const t0 = await schedule({ period: PERIOD_MS / 1000, windows: [{ at: 0, for: WINDOW_MS / 1000, filters: { frequency_drop: [-1] } }] }, undefined);
    // -W 1: ping's wait for the last replies; a lost probe is known by its icmp_seq missing.
    const ping = await a.exec(["ping", "-n", "-D", "-U", "-c", String(COUNT), "-i", "0.1", "-W", "1", b.ip], 90_000).finally(() => {
      clearInterval(sampler);
      lag.disable();
    });
    const wallToClock = Date.now() - clockNow();
    const probes = probesOf(ping.stdout, COUNT, wallToClock);

    // Where a probe meets the window is where its echo request reaches SW1's port 7, its one-way time
    // after it left (under its RTT: the reply direction is not scheduled), judged on a step that begins
    // when the schedule's timer rings. ADR 0102: that timer is a setTimeout, late by the event loop's
    // delay and up to 1 ms early (ADR 0101: Node's timers fire on the loop's cached time);
    // `schedule_set_at` is floored to the ms, and a lost probe's send time is read from its neighbours
    // (≤ 1 ms). So a probe sent within [edge − (RTT + 3 ms), edge + (loop delay + 3 ms)] of a window's
    // edge may go either way, the RTT the largest of the probes sent within a second of the edge and the
    // loop delay the largest sampled from 100 ms before the edge to 500 ms after (a sample is taken when
    // the loop is free again); every other probe must be where the schedule says.
    const worst = (xs: readonly number[]): number => xs.reduce((m, x) => Math.max(m, x), 0);
    const margins = (edge: number): { early: number; late: number } => ({
      early: worst(probes.flatMap((p) => (p.rttMs !== undefined && Math.abs(p.sentMs - t0 - edge) <= 1_000 ? [p.rttMs] : []))) + 3,
      late: worst(lags.filter((l) => l.atMs - t0 >= edge - 100 && l.atMs - t0 <= edge + 500).map((l) => l.maxMs)) + 3,
    });
    const nearEdge = (x: number): boolean => {
      const k = Math.floor(x / PERIOD_MS) * PERIOD_MS;
      return [k, k + WINDOW_MS, k + PERIOD_MS].some((edge) => {
        const { early, late } = margins(edge);
        return x >= edge - early && x <= edge + late;
      });
    };
    const maxRttMs = worst(probes.flatMap((p) => (p.rttMs === undefined ? [] : [p.rttMs])));
    const maxLagMs = worst(lags.map((l) => l.maxMs));
    const inWindow = (x: number): boolean => ((x % PERIOD_MS) + PERIOD_MS) % PERIOD_MS < WINDOW_MS;
    const judged = probes.filter((p) => !nearEdge(p.sentMs - t0));
    const answeredInside = judged.filter((p) => inWindow(p.sentMs - t0) && p.answered).map((p) => p.seq);
    const lostOutside = judged.filter((p) => !inWindow(p.sentMs - t0) && !p.answered).map((p) => p.seq);
    const lost = probes.filter((p) => !p.answered).length;
    const expected = probes.filter((p) => inWindow(p.sentMs - t0)).length;
    const ambiguous = probes.length - judged.length;
    const span = ((probes[COUNT - 1]!.sentMs - probes[0]!.sentMs) / 1000).toFixed(1);
    console.log(`      ${lost} of ${COUNT} lost over ${span} s, ${expected} sent inside the windows; ${ambiguous} near an edge (max RTT ${maxRttMs.toFixed(2)} ms, max loop delay ${maxLagMs.toFixed(1)} ms)`);

    expect(answeredInside, `answered though sent inside a window: ${ping.stdout.slice(-400)}`).to.deep.equal([]);
    expect(lostOutside, `lost though sent outside the windows: ${ping.stdout.slice(-400)}`).to.deep.equal([]);
    expect(judged.length, "most probes judged").to.be.at.least(COUNT * 0.9);
    // 20 probes a window, six windows in the minute (a seventh begun when a loaded machine stretches ping's pace).
    expect(lost, "about 120 lost").to.be.within(expected - ambiguous, expected + ambiguous).and.within(110, 145);
  });

  /**
   * The bandwidth stage on B→A stepped 10 → 1 → 10 Mbit/s at t = 5 and 10 s, iperf3 -R (B sends, A
   * receives and reports every second). The client's intervals count from its test's start, which lies
   * between the client's launch and its exit less the test's length: an interval counts as inside a step
   * only if it is for every start in that span. The steps fall about half a second into an interval,
   * so that span (tens of ms) never hides one.
   */
  it("steps a rate 10 → 1 → 10 Mbit/s: iperf3's per-second report follows each step from the first second wholly in it", async function () {
    this.timeout(200_000);
    const steps = [
      { atMs: 0, kbps: 10_000 },
      { atMs: 5_000, kbps: 1_000 },
      { atMs: 10_000, kbps: 10_000 },
    ];
    const SECONDS = 15;
    const measure = async () => {
      // Cleared first: the same schedule set again is no change, and would keep the first run's t=0.
      await schedule(undefined, undefined);
      const t0 = await schedule(undefined, { steps: steps.map((st) => ({ at: st.atMs / 1000, filters: { bandwidth: [st.kbps, 100] } })) });
      const run = await bed!.iperf3(a, b, { seconds: SECONDS, reverse: true });
      const intervals = (run.json.intervals as { sum: { start: number; end: number; bits_per_second: number } }[]).map((i) => i.sum);
      const lastEnd = intervals[intervals.length - 1]!.end;
      const earliest = run.client.startedMs - t0;
      const latest = run.client.endedMs - t0 - lastEnd * 1000;
      return { intervals, earliest, latest, attempts: run.attempts };
    };
    /** Each interval wholly in a step, with its rate as a share of the step's rate on the wire. */
    const judge = (m: Awaited<ReturnType<typeof measure>>) =>
      m.intervals.flatMap((i, n) => {
        const step = steps.findIndex((st, k) => m.earliest + i.start * 1000 >= st.atMs && m.latest + i.end * 1000 <= (steps[k + 1]?.atMs ?? Infinity));
        return step < 0 ? [] : [{ n, step, startMs: m.latest + i.start * 1000, ratio: (i.bits_per_second * WIRE_PER_PAYLOAD) / 1000 / steps[step]!.kbps }];
      });
    const runs: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const m = await measure();
      const judged = judge(m);
      const shown = judged.map((j) => `${j.n}:${j.step}:${j.ratio.toFixed(2)}`).join(" ");
      console.log(`      run ${attempt}: test start ${m.earliest.toFixed(0)}..${m.latest.toFixed(0)} ms after t=0 (${m.attempts} iperf3 start(s)); interval:step:rate/step's ${shown}`);
      // A client that had to start again (iperf3 now and then fails to open its stream) began its test
      // seconds after t=0, past the first step: the steps cannot be judged from that run.
      if (m.latest > 1_000) {
        runs.push(`run ${attempt}'s test began ${m.latest.toFixed(0)} ms after t=0 (${m.attempts} iperf3 start(s)), not judged`);
        continue;
      }
      // Every step is seen, its first whole second beginning within a second of it (plus the start's span).
      for (const [k, st] of steps.entries()) {
        const first = judged.find((j) => j.step === k);
        expect(first, `an interval wholly in step ${k}`).to.not.equal(undefined);
        if (k > 0) expect(first!.startMs - st.atMs, `the first second wholly in step ${k} begins within a second of it`).to.be.below(1_000 + (m.latest - m.earliest));
      }
      // A shaper is never overshot. iperf3 counts bytes when its process reads them: a read late by up to
      // 200 ms (this machine's event loops stall up to 150 ms under load) moves a fifth of a second's
      // bytes into the next second, so one second may show 20 % more; a step's seconds together, 5 %.
      // More than 20 % only right after a second of the same step short by as much (0.79 then 1.21 in a
      // loaded CI run): bytes read late, none created, the two seconds together within 5 %.
      for (const [i, j] of judged.entries()) {
        const before = judged[i - 1];
        const late = before !== undefined && before.step === j.step && before.n === j.n - 1 && (before.ratio + j.ratio) / 2 <= 1.05;
        expect(j.ratio, `interval ${j.n} above step ${j.step}'s ${steps[j.step]!.kbps} kbit/s (${shown})`).to.be.at.most(late ? 1.5 : 1.2);
      }
      for (const k of steps.keys()) {
        const inStep = judged.filter((j) => j.step === k);
        const mean = inStep.reduce((sum, j) => sum + j.ratio, 0) / inStep.length;
        expect(mean, `step ${k}'s seconds together (${shown})`).to.be.at.most(1.05);
      }
      // A rate below is a starved CPU (socat, netemu and iperf3 share two cores with other runs): measured
      // again. Not the first second of a step up: TCP takes round trips to fill a rate ten times the last
      // one (0.57 of it seen in that second).
      const rampingUp = (j: { step: number }): boolean => j.step > 0 && steps[j.step]!.kbps > steps[j.step - 1]!.kbps && judged.find((x) => x.step === j.step) === j;
      if (judged.every((j) => rampingUp(j) || j.ratio >= 0.6)) return;
      runs.push(shown);
    }
    expect.fail(`no run both began within a second of t=0 and kept every interval at 60 % of its step's rate or more (the first second of a step up aside): ${runs.join(" | ")}`);
  });
});
