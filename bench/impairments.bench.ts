/**
 * Impairments (issue 12, ADR 0050), two parts:
 *
 * 1. The cost of each stage of the filter chain per frame, in-process, against the same chain with no
 *    impairment, measured in the same run (ns/frame and the ratio), 512-byte frames.
 * 2. Through a real netemu switch over UDP (the data-plane benchmark's generator, DUT and sink
 *    processes): the bandwidth limiter's accuracy (received rate / limit, offered at twice the limit) and
 *    the delay line's precision (p50/p99 of latency − 50 ms) at 5,000 and 50,000 frames/s.
 *
 *   node build/bench/impairments.bench.js [--quick] [--only stages|wire]
 *
 * Prints markdown tables on stdout (docs/benchmarks.md), progress on stderr.
 */
import { ethernet, ipv4Packet, udpDatagram } from "../test/support/bpf-frames.js";
import { FilterChain, type BpfMatcher } from "../src/domain/filters/filter-chain.js";
import type { FilterSettings } from "../src/domain/filters/filter-settings.js";
import { SeededRandom } from "../src/domain/filters/random.js";
import { compileExpressionLines } from "../src/domain/bpf/index.js";
import * as E from "fp-ts/lib/Either.js";
import { DataplaneRig, type Trial, withDut } from "./lib/dataplane-rig.js";
import { fmt, markdownTable, monoMs } from "./lib/util.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const onlyAt = argv.indexOf("--only");
const ONLY = onlyAt >= 0 ? argv[onlyAt + 1] : undefined;
const started = monoMs();
const log = (s: string): void => void process.stderr.write(`[${((monoMs() - started) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);

/** Each stage alone, configured so that it runs on every frame and lets (nearly) every frame through. */
const STAGES: [string, FilterSettings][] = [
  ["none", {}],
  ["bandwidth 10 Gbit/s", { bandwidth: [10_000_000, 10_000] }],
  ["burst_loss p 1 % r 100 %, losses 0 %", { burst_loss: [1, 100, 0, 0] }],
  ["duplicate 1 %", { duplicate: [1] }],
  ["delay 1 ms + reorder 1 %", { delay: [1], reorder: [1] }],
  ["delay 1 ± 1 ms, normal", { delay: [1, 1], delay_distribution: ["normal"] }],
  ["delay 1 ± 1 ms, pareto", { delay: [1, 1], delay_distribution: ["pareto"] }],
  ["delay 1 ms (GNS3's)", { delay: [1] }],
  ["match tcp port 80 + delay 1 ms", { match: ["tcp port 80"], delay: [1] }],
];

function stageCosts(): string {
  // A 512-byte UDP datagram in IPv4: not what `match tcp port 80` selects, so that stage measures the match alone.
  const frame = ethernet("ff:ff:ff:ff:ff:ff", "02:00:00:00:00:01", 0x0800, ipv4Packet(17, "10.0.0.1", "10.0.0.2", udpDatagram(40000, 5001, new Array<number>(512 - 42).fill(0x5a))));
  const matcher = compileExpressionLines(["tcp port 80"]);
  if (E.isLeft(matcher)) throw new Error("tcp port 80 does not compile");
  const classify: BpfMatcher = matcher.right;
  const nsPerFrame = (settings: FilterSettings): number => {
    const chain = new FilterChain({ settings, suspend: false, random: new SeededRandom(1), ...(settings.match ? { classify } : {}) });
    const n = QUICK ? 500_000 : 3_000_000;
    let t = 0;
    for (let i = 0; i < 200_000; i++) chain.process(frame, i & 1 ? "egress" : "ingress", (t += 0.001)); // warm-up
    const begin = process.hrtime.bigint();
    for (let i = 0; i < n; i++) chain.process(frame, i & 1 ? "egress" : "ingress", (t += 0.001));
    return Number(process.hrtime.bigint() - begin) / n;
  };
  // Alternate rounds so that a disturbed moment hits every stage alike; keep each stage's best round.
  const best = new Map<string, number>();
  for (let round = 0; round < (QUICK ? 2 : 5); round++) {
    for (const [name, settings] of STAGES) best.set(name, Math.min(best.get(name) ?? Infinity, nsPerFrame(settings)));
  }
  const none = best.get("none") as number;
  log(`stages: ${[...best].map(([k, v]) => `${k} ${v.toFixed(1)} ns`).join(", ")}`);
  return [
    `### Cost of each impairment stage per frame (in-process FilterChain.process, 512 B, best of ${QUICK ? 2 : 5} alternating rounds)`,
    "",
    markdownTable(
      ["stage", "ns/frame", "added to no impairment (ns)"],
      STAGES.map(([name]) => {
        const ns = best.get(name) as number;
        return [name, ns.toFixed(1), name === "none" ? "–" : (ns - none).toFixed(1)];
      }),
    ),
    "",
  ].join("\n");
}

async function onTheWire(): Promise<string> {
  const rig = await DataplaneRig.start();
  const rateRows: string[][] = [];
  const delayRows: string[][] = [];
  try {
    await withDut(rig, { mode: "netemu", bufferBytes: 4 * 1024 * 1024 }, async (dut) => {
      // Bandwidth: 512-byte frames offered at twice each limit; what reaches the sink over the trial.
      for (const limitKbps of [2_000, 20_000, 100_000]) {
        await dut.child.call("setFilters", { filters: { bandwidth: [limitKbps, 50] }, ports: [1] });
        const size = 512;
        const rate = Math.round((2 * limitKbps * 1000) / (size * 8));
        const durationMs = QUICK ? 2000 : 5000;
        const t: Trial = await rig.trial(dut, { rate, durationMs, size, settleMs: 100 });
        // The queue (≤ 50 ms) drains after the last frame was sent: count it into the window.
        const achievedKbps = (t.received * size * 8) / (durationMs + 50);
        log(`bandwidth ${limitKbps} kbit/s: offered ${fmt(rate)} frames/s, received ${fmt(t.received)} → ${achievedKbps.toFixed(0)} kbit/s`);
        rateRows.push([`${fmt(limitKbps)} kbit/s`, `${fmt(rate)} × ${size} B (${fmt((rate * size * 8) / 1000)} kbit/s)`, fmt(t.received), achievedKbps.toFixed(0), (achievedKbps / limitKbps).toFixed(3)]);
      }
      // Delay precision: 50 ms on the ingress NIO at 5,000 and 50,000 frames/s of 64 B.
      await dut.child.call("setFilters", { filters: {}, ports: [1] });
      await dut.child.call("setFilters", { filters: { delay: [50] }, ports: [0] });
      for (const rate of [5_000, 50_000]) {
        const t = await rig.trial(dut, { rate, durationMs: QUICK ? 2000 : 5000, size: 64, latency: true, settleMs: 100 });
        const e = (x: number | undefined): string => (x === undefined ? "–" : (x - 50).toFixed(3));
        log(`delay 50 ms at ${rate}/s: loss ${(t.loss * 100).toFixed(3)} %, error p50 ${e(t.latency?.p50)} p99 ${e(t.latency?.p99)}`);
        delayRows.push([`${fmt(rate)} frames/s`, fmt(t.sent), `${(t.loss * 100).toFixed(3)} %`, e(t.latency?.min), e(t.latency?.p50), e(t.latency?.p99), e(t.latency?.max)]);
      }
    });
  } finally {
    await rig.stop();
  }
  return [
    "### bandwidth on a switch port's egress, offered at twice the limit (512 B frames, 50 ms queue)",
    "",
    markdownTable(["limit", "offered", "frames received", "received kbit/s", "received / limit"], rateRows),
    "",
    "### delay 50 ms: the delay line's error (one-way latency − 50 ms, ms), 64 B frames",
    "",
    markdownTable(["rate", "frames", "loss", "min", "p50", "p99", "max"], delayRows),
    "",
  ].join("\n");
}

const out = [`## Impairments (${QUICK ? "--quick" : "full"} run, Node ${process.version})`, ""];
if (ONLY === undefined || ONLY === "stages") out.push(stageCosts());
if (ONLY === undefined || ONLY === "wire") out.push(await onTheWire());
process.stdout.write(`${out.join("\n")}\n`);
