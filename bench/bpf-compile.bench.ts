/**
 * pcap-filter compile times: the expressions that crashed or froze the compiler before issue 16, long
 * realistic lists, and the costliest expressions the limits accept (docs/benchmarks.md, docs/bpf.md
 * "Limits"). Each is compiled through the public API (a trailing space makes every run a cache miss), after
 * two warm-up runs of every case; the table gives the median and the slowest of the timed runs, the compile
 * steps the work budget counted, and the result. Run: npm run bench:bpf-compile [-- --runs N]
 */
import * as E from "fp-ts/lib/Either.js";
import { generateSource } from "../src/domain/bpf/codegen.js";
import { buildDag } from "../src/domain/bpf/dag.js";
import { compileCaptureMatcher } from "../src/domain/bpf/index.js";
import { WorkBudget } from "../src/domain/bpf/limits.js";
import { parse } from "../src/domain/bpf/parser.js";
import { compilePredicate } from "../src/domain/bpf/semantics.js";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;

const list = (n: number, f: (i: number) => string, separator = " or "): string => Array.from({ length: n }, (_, i) => f(i)).join(separator);
const v4 = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

const cases: readonly (readonly [string, string, string])[] = [
  ["issue 16", "1 000 nested parentheses", `${"(".repeat(1000)}tcp${")".repeat(1000)}`],
  ["issue 16", "3 000 nested parentheses", `${"(".repeat(3000)}tcp${")".repeat(3000)}`],
  ["issue 16", "4 000 × not", `${"not ".repeat(4000)}tcp`],
  ["issue 16", "7 000 × not", `${"not ".repeat(7000)}tcp`],
  ["issue 16", "100 hosts or-ed", list(100, (i) => `host ${v4(i)}`)],
  ["issue 16", "300 hosts or-ed", list(300, (i) => `host ${v4(i)}`)],
  ["issue 16", "600 hosts or-ed", list(600, (i) => `host ${v4(i)}`)],
  ["issue 16", "100 × vlan and", list(100, () => "vlan", " and ")],
  ["issue 16", "600 × vlan and", list(600, () => "vlan", " and ")],
  ["issue 16", "30 port ranges or-ed", list(30, (i) => `portrange ${i + 1}-${i + 1000}`)],
  ["issue 16", "200 port ranges or-ed", list(200, (i) => `portrange ${i + 1}-${i + 1000}`)],
  ["issue 16", "30 × geneve or", list(30, (i) => `geneve ${i + 1}`)],
  ["issue 16", "2 000 × tcp and (left-deep)", list(2000, () => "tcp", " and ")],
  ["one-liner", "tcp port 80 and host 10.0.0.1", "tcp port 80 and host 10.0.0.1"],
  ["one-liner", "vlan 10 and ip net 10.0.0.0/8", "vlan 10 and ip net 10.0.0.0/8"],
  ["one-liner", "tcp[tcpflags] & (tcp-syn|tcp-ack) != 0", "tcp[tcpflags] & (tcp-syn|tcp-ack) != 0"],
  ["one-liner", "not (port 22 or port 53) and not arp", "not (port 22 or port 53) and not arp"],
  ["one-liner", "geneve and tcp port 80", "geneve and tcp port 80"],
  ["one-liner", "ip6 protochain 17 or ip protochain 51", "ip6 protochain 17 or ip protochain 51"],
  ["list", "host a or b or ... (100)", `host ${list(100, v4)}`],
  ["list", "50 ports or-ed", list(50, (i) => `port ${i + 1}`)],
  ["list", "300 ports or-ed", list(300, (i) => `port ${i + 1}`)],
  ["list", "50 nets or-ed", list(50, (i) => `net 10.${i}.0.0/16`)],
  ["list", "100 ip6 hosts or-ed", list(100, (i) => `ip6 host 2001:db8::${(i + 1).toString(16)}`)],
  ["list", "100 ether hosts or-ed", list(100, (i) => `ether host 02:00:00:00:${(i >> 8).toString(16)}:${(i & 255).toString(16)}`)],
  ["list", "20 (host and port) or-ed", list(20, (i) => `(host ${v4(i)} and port ${i + 1})`)],
  ["list", "100 (host and port) or-ed", list(100, (i) => `(host ${v4(i)} and port ${i + 1})`)],
  ["list", "30 ((tcp or udp) and port) or-ed", list(30, (i) => `((tcp or udp) and port ${i + 1})`)],
  ["at the limits", "880 hosts or-ed (16 KiB)", list(880, (i) => `host ${v4(i)}`)],
  ["at the limits", "tcp port 1 or ... 2 185 (16 KiB)", `tcp port ${list(2185, (i) => String(i + 1))}`],
  ["at the limits", "650 ports or-ed", list(650, (i) => `port ${i + 1}`)],
  ["at the limits", "400 port ranges or-ed", list(400, (i) => `portrange ${i + 1}-${i + 1000}`)],
  ["at the limits", "200 (host and port) or-ed", list(200, (i) => `(host ${v4(i)} and port ${i + 1})`)],
  ["at the limits", "510 ((tcp or udp) and port) or-ed", list(510, (i) => `((tcp or udp) and port ${i + 1})`)],
  ["at the limits", "800 ports or-ed (refused)", list(800, (i) => `port ${i + 1}`)],
];

/** Steps the work budget counts for the expression, or undefined when it does not get that far. */
function steps(expression: string): number | undefined {
  try {
    const budget = new WorkBudget(Number.MAX_SAFE_INTEGER);
    const dag = buildDag(compilePredicate(parse(expression)), budget);
    generateSource(dag.root, dag.prelude, budget);
    return budget.used;
  } catch {
    return undefined;
  }
}

function time(expression: string, run: number): { ms: number; result: string } {
  const text = `${expression}${" ".repeat(run + 1)}`;
  const start = process.hrtime.bigint();
  const r = compileCaptureMatcher(text);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { ms, result: E.isRight(r) ? "compiled" : `refused: ${r.left.message}` };
}

// warm-up of every case first, so that the JIT's first compiles do not land on the first rows
for (const [, , expression] of cases) for (let w = 0; w < 2; w++) time(expression, RUNS + w);
console.log(`pcap-filter compile times, Node ${process.version}, median and slowest of ${RUNS} runs after 2 warm-up runs`);
console.log("");
console.log("| kind | expression | characters | steps | median ms | slowest ms | result |");
console.log("| --- | --- | ---: | ---: | ---: | ---: | --- |");
for (const [kind, name, expression] of cases) {
  const runs = Array.from({ length: RUNS }, (_, r) => time(expression, r));
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const result = (runs[0] as { result: string }).result;
  const counted = result === "compiled" || result.includes("too complex") ? steps(expression) : undefined;
  const shown = result.length > 70 ? `${result.slice(0, 67)}...` : result;
  console.log(
    `| ${kind} | ${name} | ${expression.length} | ${counted ?? "—"} | ${(ms[Math.floor(RUNS / 2)] as number).toFixed(2)} | ${(ms[RUNS - 1] as number).toFixed(2)} | ${shown} |`,
  );
}
