/**
 * BPF matcher benchmark: frames matched per second for typical expressions on a realistic frame mix
 * (the seeded generator of the differential test). Run: npm run bench:bpf
 */
import * as E from "fp-ts/lib/Either.js";
import { compileExpression, compileExpressionLines } from "../src/domain/bpf/index.js";
import type { FrameMatcher } from "../src/domain/bpf/index.js";
import { generateFrames } from "../test/support/bpf-frames.js";

const frames = generateFrames(20_000, 42).map((f) => f.data);

const FIVE_LINES = ["icmp", "tcp port 22", "udp port 53 and host 10.0.0.1", "vlan 10 and arp", "tcp[tcpflags] & tcp-rst != 0"];

const cases: { name: string; matcher: FrameMatcher }[] = [];
const add = (name: string, r: E.Either<unknown, FrameMatcher>): void => {
  if (E.isLeft(r)) throw new Error(`${name} does not compile`);
  cases.push({ name, matcher: r.right });
};
add("icmp", compileExpression("icmp"));
add("tcp port 80 and host 10.0.0.1", compileExpression("tcp port 80 and host 10.0.0.1"));
add("vlan 10 and ip net 10.0.0.0/8", compileExpression("vlan 10 and ip net 10.0.0.0/8"));
add("5-line filter", compileExpressionLines(FIVE_LINES));

function measure(m: FrameMatcher): { rate: number; matched: number } {
  let matched = 0;
  for (let i = 0; i < 3; i++) for (const f of frames) if (m(f)) matched++; // warm-up
  matched = 0;
  let n = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < 1e9) {
    for (const f of frames) if (m(f)) matched++;
    n += frames.length;
    elapsed = Number(process.hrtime.bigint() - start);
  }
  return { rate: n / (elapsed / 1e9), matched: matched / (n / frames.length) };
}

const rows = cases.map((c) => ({ ...c, ...measure(c.matcher) }));
const width = Math.max(...rows.map((r) => r.name.length), "expression".length);
console.log(`BPF matcher, ${frames.length} generated frames, Node ${process.version}`);
console.log(`${"expression".padEnd(width)} | frames/s (millions) | matches per ${frames.length}`);
console.log(`${"-".repeat(width)}-|---------------------|--------------`);
for (const r of rows) {
  console.log(`${r.name.padEnd(width)} | ${(r.rate / 1e6).toFixed(1).padStart(19)} | ${String(Math.round(r.matched)).padStart(12)}`);
}
