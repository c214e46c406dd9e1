/**
 * What a schedule's steps cost (issue 29, ADR 0102), in process: 512-byte broadcast frames arrive on
 * port 0 of a 2-port switch at 100,000 frames/s of simulated time (100 frames, then 1 ms), and leave
 * through port 1, whose filters either stay (filter set A, or B) or step between A and B every 100 ms
 * of simulated time, as a schedule's steps do: a step is a sync of the node with the step's filters
 * (ADR 0102: "a change of step is a change of one direction's filters, reconciled by value"), which is
 * what ScheduleResync does when its alarm rings; the schedule's parse and the alarm are not on the
 * frame path and are left out. The real SwitchDataPlane on simulated time and a counting transport,
 * rounds alternating between the three ports; CPU time (user + system: the machine is shared) per frame,
 * the steps' syncs included, and the ratio to the mean of A and B held still. Each step's own time
 * (wall, µs) is measured too, with the frames held (delay lines and bandwidth queues) when it applies.
 *
 *   node build/bench/schedule-step.bench.js [rounds, 9 by default]     (npm run bench:schedule-step)
 *
 * Prints a markdown table on stdout (docs/benchmarks.md).
 */
import "reflect-metadata";
import * as E from "fp-ts/lib/Either.js";
import { inMemoryDataPlane } from "../test/support/in-memory-data-plane.js";
import { type ComputeNode, attachNio } from "../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../src/domain/switching/port.js";
import type { FilterSettings } from "../src/domain/filters/filter-settings.js";
import type { UdpEndpointOptions } from "../src/application/ports/udp-transport.js";
import { fmt, markdownTable, median } from "./lib/util.js";

const ROUNDS = Number(process.argv[2] ?? 9);
const FRAMES = 300_000;
const FRAMES_PER_MS = 100;
const STEP_MS = 100;
const FRAME_BYTES = 512;

/** Two filter sets a schedule steps between (offered load: 409.6 Mbit/s). */
const PAIRS: readonly { readonly name: string; readonly a: FilterSettings; readonly b: FilterSettings }[] = [
  { name: "delay 10 ms ↔ 1 % loss", a: { delay: [10] }, b: { packet_loss: [1] } },
  { name: "tail drop 500 ↔ 300 Mbit/s", a: { bandwidth: [500_000, 20] }, b: { bandwidth: [300_000, 20] } },
  { name: "codel ↔ tail drop, 300 Mbit/s", a: { bandwidth: [300_000, 20], queue_discipline: ["codel"] }, b: { bandwidth: [300_000, 20] } },
];

function switchWith(filters: FilterSettings): ComputeNode {
  let node: ComputeNode = createEthernetSwitch({ nodeId: "aaaaaaaa-0000-4000-8000-0000000000f7", projectId: "77777777-3333-4444-8555-77777777777d", name: "SW", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  for (const [i, lport] of [20000, 20001].entries()) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, i, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 30000 + i, filters: i === 1 ? filters : {}, suspend: false });
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    node = attached.right;
  }
  return node;
}

interface Round {
  /** CPU ns per frame, steps included. */
  readonly ns: number;
  /** Wall µs of each step's sync, and the frames held when it applied. */
  readonly steps: readonly { readonly to: number; readonly us: number; readonly held: number }[];
}

/** A port whose filters run `sets` in turn, `STEP_MS` each (one set: they stay). */
async function rig(sets: readonly FilterSettings[]): Promise<() => Promise<Round>> {
  const parts = inMemoryDataPlane();
  const onFrames = new Map<number, (frame: Uint8Array) => void>();
  // Counts instead of copying what is sent: only the data plane's own work is measured.
  (parts.dp as unknown as { transport: unknown }).transport = {
    open: async (o: UdpEndpointOptions) => {
      onFrames.set(o.lport, o.onFrame);
      return E.right({ send: () => undefined, close: async () => undefined });
    },
  };
  const nodes = sets.map(switchWith);
  const sync = async (node: ComputeNode): Promise<void> => {
    const synced = await parts.dp.sync(node);
    if (E.isLeft(synced)) throw new Error(synced.left._tag);
  };
  await sync(nodes[0] as ComputeNode);
  const onFrame = onFrames.get(20000);
  if (onFrame === undefined) throw new Error("port 0 not opened");
  const frame = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0x50, 0x79, 0x66, 0x68, 1, 0x08, 0x00, ...new Array<number>(FRAME_BYTES - 14).fill(0)]);
  let step = 0;
  return async () => {
    const steps: { to: number; us: number; held: number }[] = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < FRAMES; i++) {
      onFrame(frame);
      if (i % FRAMES_PER_MS === FRAMES_PER_MS - 1) {
        parts.time.runDeferred();
        parts.time.advance(1);
        if (sets.length > 1 && (i + 1) % (FRAMES_PER_MS * STEP_MS) === 0) {
          step = (step + 1) % sets.length;
          const held = parts.dp.held().frames;
          const t = process.hrtime.bigint();
          await sync(nodes[step] as ComputeNode);
          steps.push({ to: step, us: Number(process.hrtime.bigint() - t) / 1000, held });
        }
      }
    }
    parts.time.runDeferred();
    // What is still held leaves once its time has come.
    parts.time.advance(10_000);
    const used = process.cpuUsage(cpu);
    return { ns: ((used.user + used.system) * 1000) / FRAMES, steps };
  };
}

const rows: string[][] = [];
const stepRows: string[][] = [];
for (const pair of PAIRS) {
  const runs = [await rig([pair.a]), await rig([pair.b]), await rig([pair.a, pair.b])];
  for (const run of runs) await run(); // JIT warm-up
  const got: Round[][] = [[], [], []];
  for (let r = 0; r < ROUNDS; r++) for (const k of r % 2 === 0 ? [0, 1, 2] : [2, 1, 0]) (got[k] as Round[]).push(await (runs[k] as () => Promise<Round>)());
  const [a, b, scheduled] = got.map((rounds) => median(rounds.map((x) => x.ns))) as [number, number, number];
  rows.push([pair.name, fmt(a, 0), fmt(b, 0), fmt(scheduled, 0), fmt(scheduled / ((a + b) / 2), 3)]);
  for (const [to, name] of [
    [1, "A → B"],
    [0, "B → A"],
  ] as const) {
    const steps = (got[2] as Round[]).flatMap((x) => x.steps).filter((x) => x.to === to);
    const us = steps.map((x) => x.us).sort((x, y) => x - y);
    stepRows.push([`${pair.name}: ${name}`, String(steps.length), fmt(median(us), 1), fmt(us[Math.floor(us.length * 0.99)] as number, 1), fmt(median(steps.map((x) => x.held)), 0)]);
  }
}
process.stdout.write(markdownTable(["port 1's filters (100,000 frames/s of 512 B)", "A held, ns/frame", "B held, ns/frame", "A ↔ B every 100 ms, ns/frame", "× mean(A, B)"], rows));
process.stdout.write("\n\n");
process.stdout.write(markdownTable(["one step (a sync of the node)", "steps", "median µs", "p99 µs", "frames held at the step (median)"], stepRows));
process.stdout.write("\n");
