/**
 * The cost per frame of a capacity trace (ADR 0103) against plain `bandwidth` (the tail-drop Shaper),
 * in the filter chain alone: 512-byte frames arriving at 100,000 frames/s of simulated time (one each
 * 10 µs) on a link of about 1.2 Gbit/s either way (`bandwidth` 1,200,000 kbit/s; a trace of 100
 * opportunities every ms, 10,000 lines looping every 100 ms), so no frame waits long and none is dropped;
 * and the same with delay_trace and loss_trace (a value looked up per frame). The ratio to `bandwidth`
 * in the same run is the figure.
 *
 *   node build/bench/trace-replay.bench.js [--frames N]
 */
import { FilterChain, type ChainTraces } from "../src/domain/filters/filter-chain.js";
import type { FilterSettings } from "../src/domain/filters/filter-settings.js";
import { SeededRandom } from "../src/domain/filters/random.js";
import { type CapacityTrace, type ValueTrace, parseTrace } from "../src/domain/traces/trace.js";
import { fmt, markdownTable, monoMs } from "./lib/util.js";

const argv = process.argv.slice(2);
const at = argv.indexOf("--frames");
const FRAMES = at >= 0 ? Number(argv[at + 1]) : 2_000_000;
const frame = new Uint8Array(512);

const read = <T>(text: string): T => {
  const r = parseTrace(text);
  if (!r.ok) throw new Error(JSON.stringify(r.problem));
  return r.trace as T;
};
const capacity = read<CapacityTrace>(Array.from({ length: 10_000 }, (_, i) => String(Math.floor(i / 100) + 1)).join("\n"));
const delay = read<ValueTrace>(Array.from({ length: 1000 }, (_, i) => `${i * 10} ${i % 7}`).join("\n") + "\n10000\n");
const loss = read<ValueTrace>(Array.from({ length: 1000 }, (_, i) => `${i * 10} 0`).join("\n") + "\n10000\n");

function run(settings: FilterSettings, traces: ChainTraces): { ns: number; passed: number } {
  const chain = new FilterChain({ settings, suspend: false, random: new SeededRandom(7), traces });
  let passed = 0;
  const start = monoMs();
  for (let i = 0; i < FRAMES; i++) if (chain.process(frame, "egress", i * 0.01).drop === undefined) passed++;
  return { ns: ((monoMs() - start) * 1e6) / FRAMES, passed: passed / FRAMES };
}

const cases: [string, FilterSettings, ChainTraces][] = [
  ["bandwidth 1.2 Gbit/s (Shaper)", { bandwidth: [1_200_000, 50] }, {}],
  ["capacity_trace (100 opportunities/ms)", { capacity_trace: ["t", 100_000] }, { capacity }],
  ["capacity_trace + delay_trace + loss_trace", { capacity_trace: ["t", 100_000], delay_trace: ["d"], loss_trace: ["l"] }, { capacity, delay, loss }],
];
// A warm-up round, then three measured rounds: the median of each.
for (const [, s, t] of cases) run(s, t);
const rows: string[][] = [];
let base = 0;
for (const [name, s, t] of cases) {
  const runs = [run(s, t), run(s, t), run(s, t)].sort((x, y) => x.ns - y.ns);
  const mid = runs[1] as { ns: number; passed: number };
  if (base === 0) base = mid.ns;
  rows.push([name, fmt(mid.ns, 1), fmt(mid.ns / base, 2), fmt(mid.passed * 100, 1)]);
}
console.log(markdownTable(["stage", "ns/frame", "× bandwidth", "% passed"], rows));
