/**
 * The cost per frame of the bandwidth stage's queue disciplines (issue 29, ADR 0100), in-process:
 * 512-byte UDP frames of 64 flows arriving at 100,000 frames/s (one each 10 µs of simulated time) into
 * `bandwidth` under tail drop (the Shaper and a DelayLine), codel and fq_codel (a TransmitQueue), on a
 * link of 500 Mbit/s (no standing queue) and 300 Mbit/s (overloaded: CoDel acts). Time is simulated
 * (manual clock and timers, the same for all three), so what is measured is the CPU the frame path
 * spends per frame, timers included; the ratio to tail drop in the same run is the figure.
 *
 *   node build/bench/queue-disciplines.bench.js [--frames N]
 *
 * Prints a markdown table on stdout (docs/benchmarks.md).
 */
import { FilterChain } from "../src/domain/filters/filter-chain.js";
import type { FilterSettings } from "../src/domain/filters/filter-settings.js";
import { SeededRandom } from "../src/domain/filters/random.js";
import { DelayLine } from "../src/application/dataplane/delay-line.js";
import { TransmitQueue } from "../src/application/dataplane/transmit-queue.js";
import { flowFrame } from "../test/support/ip-frames.js";
import { fmt, markdownTable, monoMs } from "./lib/util.js";

const argv = process.argv.slice(2);
const at = argv.indexOf("--frames");
const FRAMES = at >= 0 ? Number(argv[at + 1]) : 1_000_000;
const FRAMES_PER_MS = 100;

/** Simulated time: a clock and timers that fire when `advance` passes them (like a 1 ms event-loop tick). */
class SimulatedTime {
  now = 0;
  private pending: { at: number; callback: () => void; handle: number }[] = [];
  private next = 1;
  nowMs(): number {
    return this.now;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.next++;
    this.pending.push({ at: this.now + Math.max(1, ms), callback, handle });
    return handle;
  }
  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((t) => t.handle !== handle);
  }
  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      let first = -1;
      for (let i = 0; i < this.pending.length; i++) if ((this.pending[i] as { at: number }).at <= until && (first < 0 || (this.pending[i] as { at: number }).at < (this.pending[first] as { at: number }).at)) first = i;
      if (first < 0) break;
      const [t] = this.pending.splice(first, 1);
      this.now = Math.max(this.now, (t as { at: number }).at);
      (t as { callback: () => void }).callback();
    }
    this.now = until;
  }
}

const frames = Array.from({ length: 64 }, (_, i) => flowFrame({ sport: 40000 + i, length: 512, ecn: 0 }));

/** ns per frame, and the share of frames that left, for one discipline at `rateKbps`. */
function run(settings: FilterSettings): { ns: number; sent: number } {
  const time = new SimulatedTime();
  const chain = new FilterChain({ settings, suspend: false, random: new SeededRandom(1) });
  let sent = 0;
  const deliver = (): void => void sent++;
  const line = new DelayLine(time, time, deliver);
  const queue = new TransmitQueue(time, time, deliver, () => undefined);
  const step = 1 / FRAMES_PER_MS;
  const start = monoMs();
  for (let i = 0; i < FRAMES; i++) {
    const frame = frames[i % 64] as Uint8Array;
    const o = chain.process(frame, "egress", time.now);
    if (o.drop === undefined) {
      if (o.queued && chain.queue !== undefined) queue.offer(frame, chain.queue.discipline, chain.queue.rateKbps);
      else line.push(frame, o.delayMs);
    }
    // Timers run every 1 ms of simulated time, as a loaded event loop's would.
    if (i % FRAMES_PER_MS === FRAMES_PER_MS - 1) time.advance(step);
    else time.now += step;
  }
  const ns = ((monoMs() - start) * 1e6) / FRAMES;
  return { ns, sent: sent / FRAMES };
}

const rows: string[][] = [];
for (const rateKbps of [500_000, 300_000]) {
  const results = (["tail_drop", "codel", "fq_codel"] as const).map((d) => {
    // Warm up, then measure.
    const settings: FilterSettings = { bandwidth: [rateKbps, 20], queue_discipline: [d] };
    run(settings);
    return [d, run(settings)] as const;
  });
  const base = (results[0] as readonly [string, { ns: number }])[1].ns;
  for (const [d, r] of results) rows.push([`${rateKbps / 1000} Mbit/s`, d, fmt(r.ns, 0), fmt(r.ns / base, 2), `${(r.sent * 100).toFixed(1)} %`]);
}
process.stdout.write(markdownTable(["link (offered 409.6 Mbit/s)", "discipline", "ns/frame", "× tail drop", "frames sent"], rows));
process.stdout.write("\n");
