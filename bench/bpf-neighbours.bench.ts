/**
 * One filter and its neighbours (issue 25, ADR 0075): a switch flooded at 100,000 frames/s through
 * the biggest bpf filter the API accepts (64 lines, 65,279 characters of host, net and port terms,
 * none matching) and a bystander switch on the same data-plane worker, sent a frame every 5 ms.
 * Per round, on one worker thread: the flooded port's frames/s (taken in, handled, forwarded) and the
 * bystander's latency, without the filter, then in the 3 s after the filter is set (before V8 has
 * optimised it) and again 10 s later.
 *
 *   npm run bench:bpf-neighbours [-- --rounds N] [-- --rate F]
 *
 * Prints a markdown table (docs/benchmarks.md) on stdout. Everything listens on 127.0.0.1; the flood
 * source is a child process, ended by the benchmark.
 */
import "reflect-metadata";
import { WorkerDataPlane } from "../src/adapters/threads/data-plane/worker-data-plane.js";
import { InlineBpfCompiler } from "../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { FilterPrograms } from "../src/application/filter-programs.js";
import { NotificationHub } from "../src/application/notification-hub.js";
import { BpfNeighbours, type NeighbourWindow } from "../test/support/bpf-neighbour.js";
import { biggestBpfFilter } from "../test/support/biggest-bpf-filter.js";
import { RecordingLogger, TEST_DATA_PLANE_OPTIONS } from "../test/support/in-memory-data-plane.js";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) || fallback : fallback;
};
const ROUNDS = arg("--rounds", 2);
const RATE = arg("--rate", 100_000);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const log = (s: string): void => void process.stderr.write(`${s}\n`);

const rows: string[] = [];
const row = (round: number, window: string, w: NeighbourWindow): void => {
  const f = w.flooded;
  const b = w.bystander;
  rows.push(
    `| ${round} | ${window} | ${Math.round(f.inPerSecond)} | ${Math.round(f.handledPerSecond)} | ${Math.round(f.forwardedPerSecond)} | ${b.p50Ms.toFixed(1)} | ${b.p99Ms.toFixed(1)} | ${b.maxMs.toFixed(1)} | ${b.received}/${b.sent} |`,
  );
  log(rows[rows.length - 1] as string);
};

for (let round = 1; round <= ROUNDS; round++) {
  const dp = new WorkerDataPlane({
    workers: 1,
    dataPlane: TEST_DATA_PLANE_OPTIONS,
    transport: { bindHost: "127.0.0.1", receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20 },
    notifications: new NotificationHub(),
    logger: new RecordingLogger(),
    programs: new FilterPrograms(new InlineBpfCompiler()),
  });
  const rig = await BpfNeighbours.start(dp, RATE);
  try {
    await sleep(1000);
    row(round, "no filter", await rig.measure(3000));
    await rig.filter(biggestBpfFilter());
    await sleep(500);
    row(round, "biggest bpf, first 3 s", await rig.measure(3000));
    await sleep(7000);
    row(round, "biggest bpf, 10 s on", await rig.measure(3000));
  } finally {
    await rig.close();
    await dp.close();
  }
}

console.log(`Flood ${RATE} frames/s of 128 B into one switch, a bystander switch on the same worker (1 data-plane worker), ${process.env["NETEMU_UDP_PATH"] === "dgram" ? "node:dgram" : "batched datagrams"}, Node ${process.version}`);
console.log("");
console.log("| round | flooded port | in /s | handled /s | forwarded /s | bystander p50 ms | p99 ms | max ms | bystander frames arrived (1 s) |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);
