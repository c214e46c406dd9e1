/**
 * What writing a project's `.gns3` file costs while the project is built call by call (issue 27, ADR 0086):
 * the project store as `netemu serve` runs it (real files, fsync, timers), fed one change at a time as the
 * controller's use cases feed it, a node per change then a link per change, with `--gap-ms` between
 * changes (the time a call spends outside the store: HTTP, the data plane). Two write policies in the
 * same process, alternating round by round so that the shared machine's busy moments hit both:
 *
 * - "each change": both delays 0, a write started at once after every change (netemu before ADR 0086;
 *   changes made during a write were already coalesced into the next one);
 * - "quiet moment": the default, a write once the changes pause for 100 ms and at the latest 1 s after
 *   the first unwritten one.
 *
 * Then what one write of the finished project costs, split: rendering the file (GNS3's layout, sorted
 * keys) and writing it atomically (temporary file, fsync, rename, fsync of the directory).
 *
 *   node build/bench/project-writes.bench.js [--nodes 1000] [--gap-ms 10] [--rounds 3]
 *
 * Prints markdown tables on stdout, progress on stderr.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_WRITE_DELAY, Gns3ProjectStore, type WriteDelay } from "../src/adapters/persistence/gns3-project-store.js";
import { renderProjectFile } from "../src/adapters/persistence/gns3-project-format.js";
import { writeFileAtomic } from "../src/adapters/shared/atomic-file.js";
import { FilterPrograms } from "../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { createProject } from "../src/domain/topology/project.js";
import { defaultNodeLabel, type ControllerNode } from "../src/domain/topology/node.js";
import { defaultPortsMapping } from "../src/domain/switching/port.js";
import type { Link } from "../src/domain/topology/link.js";
import type { Logger } from "../src/application/ports/system.js";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const NODES = Number(option("--nodes", "1000"));
const GAP_MS = Number(option("--gap-ms", "10"));
const ROUNDS = Number(option("--rounds", "3"));

const PROJECT = "0c0c0c0c-1111-4222-8333-444444444444";
const nodeId = (i: number): string => `0c0c0c0c-0000-4000-8000-${String(i).padStart(12, "0")}`;
const linkId = (i: number): string => `0c0c0c0c-2222-4000-8000-${String(i).padStart(12, "0")}`;

const switchNode = (i: number): ControllerNode => ({
  nodeId: nodeId(i),
  projectId: PROJECT,
  nodeType: "ethernet_switch",
  computeId: "local",
  name: `sw${i}`,
  x: (i % 6) * 150,
  y: Math.floor(i / 6) * 150,
  z: 1,
  locked: false,
  label: defaultNodeLabel(`sw${i}`),
  symbol: ":/symbols/ethernet_switch.svg",
  portsMapping: defaultPortsMapping(),
  consoleType: "none",
});

/** sw(i) e0 to sw(i+1) e1, every tenth with filters. */
const chainLink = (i: number): Link => ({
  linkId: linkId(i),
  projectId: PROJECT,
  nodes: [
    { nodeId: nodeId(i), adapterNumber: 0, portNumber: 0, label: { text: "e0" }, udpPort: 0 },
    { nodeId: nodeId(i + 1), adapterNumber: 0, portNumber: 1, label: { text: "e1" }, udpPort: 0 },
  ],
  filters: i % 10 === 3 ? { delay: [10], packet_loss: [2] } : {},
  suspend: false,
  linkStyle: {},
  capture: null,
});

const silent: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Run {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly writes: number;
}

/** Builds the project one change at a time in a fresh projects path, then flushes: wall, CPU and writes. */
async function build(delay: WriteDelay): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-bench-writes-"));
  try {
    const store = new Gns3ProjectStore(dir, "2.2.59", new FilterPrograms(new InlineBpfCompiler()), silent, { writeDelay: delay });
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await store.projects.save(createProject(PROJECT, "bench", join(dir, PROJECT)));
    for (let i = 0; i < NODES; i++) {
      await store.nodes.save(switchNode(i));
      await sleep(GAP_MS);
    }
    for (let i = 0; i + 1 < NODES; i++) {
      await store.links.save(chainLink(i));
      await sleep(GAP_MS);
    }
    await store.flush();
    const cpu = process.cpuUsage(cpu0);
    return { wallMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, writes: store.completedWrites() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One write of the finished project, split: its rendering, and its atomic write with both fsyncs (medians of 10). */
async function oneWrite(): Promise<{ renderMs: number; writeMs: number; bytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-bench-write-"));
  try {
    const project = createProject(PROJECT, "bench", dir);
    const nodes = Array.from({ length: NODES }, (_, i) => switchNode(i));
    const links = Array.from({ length: NODES - 1 }, (_, i) => chainLink(i));
    const renders: number[] = [];
    const writes: number[] = [];
    let text = "";
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      text = renderProjectFile({ project, nodes, links }, "2.2.59");
      renders.push(performance.now() - t0);
      const t1 = performance.now();
      await writeFileAtomic(join(dir, "bench.gns3"), text);
      writes.push(performance.now() - t1);
    }
    return { renderMs: median(renders), writeMs: median(writes), bytes: Buffer.byteLength(text) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const n0 = (x: number): string => Math.round(x).toLocaleString("en-US");
const all = (xs: readonly number[]): string => `${n0(median(xs))} [${xs.map(n0).join(", ")}]`;

async function main(): Promise<void> {
  const policies = { "each change": { quietMs: 0, maxMs: 0 }, "quiet moment": DEFAULT_WRITE_DELAY } as const;
  const runs: Record<keyof typeof policies, Run[]> = { "each change": [], "quiet moment": [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (["each change", "quiet moment"] as const) : (["quiet moment", "each change"] as const);
    for (const name of order) {
      const run = await build(policies[name]);
      runs[name].push(run);
      process.stderr.write(`round ${round + 1}, ${name}: ${n0(run.wallMs)} ms wall, ${n0(run.cpuMs)} ms CPU, ${run.writes} writes\n`);
    }
  }
  const one = await oneWrite();
  const changes = 1 + NODES + NODES - 1;
  const rows = [
    `| write policy | changes | writes | wall ms | CPU ms (process) |`,
    `| --- | --- | --- | --- | --- |`,
    ...(Object.keys(policies) as (keyof typeof policies)[]).map((name) => `| ${name} | ${changes} | ${all(runs[name].map((r) => r.writes))} | ${all(runs[name].map((r) => r.wallMs))} | ${all(runs[name].map((r) => r.cpuMs))} |`),
  ];
  process.stdout.write(
    `\n${NODES} nodes and ${NODES - 1} links, one change every ${GAP_MS} ms; ${ROUNDS} rounds, median [each round]\n\n${rows.join("\n")}\n\n` +
      `One write of the finished project (${n0(one.bytes)} bytes): render ${one.renderMs.toFixed(1)} ms, atomic write with fsyncs ${one.writeMs.toFixed(1)} ms (medians of 10)\n`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
