/**
 * What a held frame's own copy costs (ADR 0072): DelayLine.push + release per frame, in-process, for
 * frames that own their buffer (node:dgram's: not copied) against frames that are views into a batch
 * of 64 (the batched path's: copied), at 64 B and 1,400 B, in alternating rounds, best of each.
 *
 *   node build/bench/delay-line-copy.bench.js [--quick]
 *
 * Prints a markdown table on stdout (docs/benchmarks.md).
 */
import { DelayLine } from "../src/application/dataplane/delay-line.js";
import { HoldBudget } from "../src/domain/filters/hold-limit.js";
import type { Clock } from "../src/application/ports/system.js";
import type { Timers } from "../src/application/ports/timers.js";
import { markdownTable } from "./lib/util.js";

const QUICK = process.argv.includes("--quick");
const FRAMES = QUICK ? 200_000 : 1_000_000;
/** Frames pushed before the line is released, as a delay holds them. */
const HELD = 4096;

/** A clock the bench moves, and timers it fires: the line's own work only. */
class BenchTime implements Clock, Timers {
  now = 0;
  private pending: (() => void) | undefined;
  nowMs(): number {
    return this.now;
  }
  setTimeout(fn: () => void): unknown {
    this.pending = fn;
    return 1;
  }
  clearTimeout(): void {
    this.pending = undefined;
  }
  fire(): void {
    const fn = this.pending;
    this.pending = undefined;
    fn?.();
  }
}

function nsPerFrame(size: number, views: boolean): number {
  const time = new BenchTime();
  let delivered = 0;
  const line = new DelayLine(time, time, () => void delivered++, () => undefined, new HoldBudget({ frames: 1e9, bytes: 1e15 }));
  const batch = new Uint8Array(64 * size);
  const owned = Array.from({ length: 64 }, () => new Uint8Array(size));
  const frameAt = (i: number): Uint8Array => (views ? batch.subarray((i & 63) * size, ((i & 63) + 1) * size) : (owned[i & 63] as Uint8Array));
  const begin = process.hrtime.bigint();
  for (let i = 0; i < FRAMES; i++) {
    line.push(frameAt(i), 1);
    if (i % HELD === HELD - 1) {
      time.now += 1;
      time.fire();
    }
  }
  time.now += 1;
  time.fire();
  const ns = Number(process.hrtime.bigint() - begin) / FRAMES;
  if (delivered !== FRAMES) throw new Error(`delivered ${delivered} of ${FRAMES}`);
  return ns;
}

const cases: [string, number, boolean][] = [
  ["64 B, own buffer (node:dgram)", 64, false],
  ["64 B, view into a batch (batched path: copied)", 64, true],
  ["1,400 B, own buffer (node:dgram)", 1400, false],
  ["1,400 B, view into a batch (batched path: copied)", 1400, true],
];
const best = new Map<string, number>();
for (let round = 0; round < (QUICK ? 2 : 5); round++) {
  for (const [name, size, views] of cases) best.set(name, Math.min(best.get(name) ?? Infinity, nsPerFrame(size, views)));
}
process.stdout.write(
  [
    `### DelayLine.push + release per frame (in-process, ${FRAMES.toLocaleString("en")} frames, ${HELD} held at a time, best of ${QUICK ? 2 : 5} alternating rounds)`,
    "",
    markdownTable(
      ["frames", "ns/frame"],
      cases.map(([name]) => [name, (best.get(name) as number).toFixed(1)]),
    ),
    "",
  ].join("\n"),
);
