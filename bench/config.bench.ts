/**
 * Configuration work (issue 16): what the control plane pays for changes, measured through netemu's
 * public API only (createNetemu, its use cases with plain inputs, PortOverrides, persistProjects), so
 * that the same file measures "before" and "after" a refactor of the internals. Three parts:
 *
 * 1. A no-change sync of a 48-port switch with filters on every port: `updateSwitch` with the same name,
 *    and a rename alternating two names, each µs per call and per port; with the data plane on the main
 *    thread and the default repositories, on the main thread with a compute-node repository that
 *    deserialises its records (structuredClone on get and save, as an embedder's database does), and in
 *    one worker thread.
 * 2. Opening a 1,000-switch project read from a GNS3 2.2 project file (999 links: 1,998 UDP NIOs): the
 *    time until `listProjects` answers after createNetemu (the file is read at start), and `openProject`;
 *    data plane on the main thread and in one worker.
 * 3. A controller `createLink` with a 5-line bpf, a match and a delay, then `deleteLink`, repeated with
 *    the same filter text every time (compile caches can hit) and with a new text every time (a cold
 *    compile); data plane on the main thread and in one worker. The compiler alone
 *    (`netemu/pcap-filter`) on the same lines is timed for reference.
 *
 *   node build/bench/config.bench.js [--quick] [--json FILE] [--only sync|open|link]
 *
 * Everything binds 127.0.0.1, every netemu instance is shut down and every temporary directory removed.
 * Prints markdown tables on stdout (docs/benchmarks.md), progress on stderr. Run with `node --expose-gc`
 * to collect garbage between measurements (otherwise GC pauses fall where they fall, mostly into p95).
 */
import { mkdtempSync, mkdirSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import * as E from "fp-ts/lib/Either.js";
import {
  createNetemu,
  InMemoryComputeNodeRepository,
  type ComputeNode,
  type ComputeNodeRepository,
  type Netemu,
  type NetemuOptions,
  type PortMappingEntry,
  type LinkFilters,
} from "../src/index.js";
import { compileExpressionLines } from "../src/pcap-filter.js";
import { fmt, markdownTable, median, monoMs, percentile } from "./lib/util.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const valueOf = (flag: string): string | undefined => {
  const at = argv.indexOf(flag);
  return at >= 0 ? argv[at + 1] : undefined;
};
const JSON_FILE = valueOf("--json");
const ONLY = valueOf("--only");
const started = monoMs();
const log = (s: string): void => void process.stderr.write(`[${((monoMs() - started) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);

/** Iteration counts: warm-up, then timed; rounds alternate the configurations so a busy moment hits all alike. */
const SYNC = QUICK ? { rounds: 1, warm: 20, timed: 100 } : { rounds: 3, warm: 100, timed: 500 };
const OPEN = QUICK ? { reps: 1 } : { reps: 5 };
const LINK = QUICK ? { rounds: 1, warm: 10, timed: 60 } : { rounds: 3, warm: 30, timed: 200 };

const HOST = "127.0.0.1";
const SWITCH_PORTS = 48;
const OPEN_NODES = 1000;
const OPEN_PORTS_PER_NODE = 8;

type Gc = () => void;
const gc = (globalThis as { gc?: Gc }).gc;
const collect = (): void => gc?.();

/** Fails loudly on a use case's left side: a benchmark that silently measured an error would mislead. */
function right<L, R>(what: string, e: E.Either<L, R>): R {
  if (E.isLeft(e)) throw new Error(`${what} failed: ${JSON.stringify(e.left)}`);
  return e.right;
}

interface Summary {
  readonly n: number;
  readonly medianUs: number;
  readonly p95Us: number;
  readonly minUs: number;
  readonly maxUs: number;
}

function summary(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, medianUs: median(sorted), p95Us: percentile(sorted, 95), minUs: sorted[0] ?? Number.NaN, maxUs: sorted[sorted.length - 1] ?? Number.NaN };
}

/** Times `op(i)` `timed` times after `warm` untimed calls; each sample in µs. */
async function timeOps(warm: number, timed: number, op: (i: number) => Promise<void>): Promise<number[]> {
  for (let i = 0; i < warm; i++) await op(i);
  const samples: number[] = [];
  for (let i = warm; i < warm + timed; i++) {
    const t0 = performance.now();
    await op(i);
    samples.push((performance.now() - t0) * 1000);
  }
  return samples;
}

/** A scratch directory for one netemu instance: its config dir, and projects under `<dir>/projects`. */
function scratch(): { dir: string; projectsPath: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "netemu-config-bench-"));
  const projectsPath = join(dir, "projects");
  return { dir, projectsPath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function netemuWith(dir: string, projectsPath: string, udp: { start: number; end: number }, extra: Omit<NetemuOptions, "settings" | "logLevel">): Netemu {
  return createNetemu({ logLevel: "silent", settings: { host: HOST, configDir: dir, projectsPath, udpPortRange: udp }, ...extra });
}

// ---------------------------------------------------------------------------------------------------
// 1. No-change syncs of a 48-port switch

/**
 * An embedder's compute-node repository whose records come back deserialised: every get and save
 * copies (structuredClone), so no object the use cases hand over or get back is the one kept.
 */
class CloningComputeNodeRepository implements ComputeNodeRepository {
  private readonly inner = new InMemoryComputeNodeRepository();
  get = async (nodeId: string): Promise<ComputeNode | undefined> => {
    const node = await this.inner.get(nodeId);
    return node === undefined ? undefined : structuredClone(node);
  };
  list = async (): Promise<readonly ComputeNode[]> => (await this.inner.list()).map((n) => structuredClone(n));
  save = (node: ComputeNode): Promise<void> => this.inner.save(structuredClone(node));
  delete = (nodeId: string): Promise<void> => this.inner.delete(nodeId);
}

const SYNC_FILTERS: LinkFilters = { delay: [20, 5], packet_loss: [1], bandwidth: [10000], bpf: ["tcp port 80\nudp port 53"], frequency_drop: [7] };

interface SyncConfig {
  readonly key: "main" | "main-cloning" | "worker";
  readonly label: string;
  readonly options: () => Omit<NetemuOptions, "settings" | "logLevel">;
}

const SYNC_CONFIGS: readonly SyncConfig[] = [
  { key: "main", label: "(a) main thread, in-memory repositories", options: () => ({ dataPlaneWorkers: 0 }) },
  { key: "main-cloning", label: "(b) main thread, structuredClone node repository", options: () => ({ dataPlaneWorkers: 0, overrides: { computeNodeRepository: new CloningComputeNodeRepository() } }) },
  { key: "worker", label: "(c) 1 data-plane worker, in-memory repositories", options: () => ({ dataPlaneWorkers: 1 }) },
];

const SYNC_OPS = ["same name", "rename (2 names alternating)"] as const;
type SyncOp = (typeof SYNC_OPS)[number];

/** One round of one configuration: a fresh netemu, the switch wired, then both updates timed. */
async function syncRound(config: SyncConfig): Promise<Record<SyncOp, number[]>> {
  const s = scratch();
  const netemu = netemuWith(s.dir, s.projectsPath, { start: 40000, end: 40999 }, config.options());
  const uc = netemu.useCases;
  try {
    const projectId = right("createComputeProject", await uc.createComputeProject.execute({ name: "config-bench" })).projectId;
    const portsMapping: PortMappingEntry[] = Array.from({ length: SWITCH_PORTS }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: "access", vlan: 1 + (i % 4) }));
    const name = "SW48";
    const nodeId = right("createSwitch", await uc.createSwitch.execute({ projectId, name, portsMapping })).nodeId;
    // Local ports from the pool (it checks that nothing else on the machine holds them); the peers' ports are
    // reserved too so that they are unused, though nothing is ever sent.
    for (let i = 0; i < SWITCH_PORTS; i++) {
      const lport = right("reserveUdpPort", await uc.reserveUdpPort.execute({ projectId }));
      const rport = right("reserveUdpPort", await uc.reserveUdpPort.execute({ projectId }));
      right("addNio", await uc.addNio.execute({ port: { projectId, nodeId, adapterNumber: 0, portNumber: i }, nio: { type: "nio_udp", lport, rhost: HOST, rport, filters: SYNC_FILTERS } }));
    }
    const same = await timeOps(SYNC.warm, SYNC.timed, async () => void right("updateSwitch", await uc.updateSwitch.execute({ projectId, nodeId, name })));
    collect();
    const rename = await timeOps(SYNC.warm, SYNC.timed, async (i) => void right("updateSwitch", await uc.updateSwitch.execute({ projectId, nodeId, name: i % 2 === 0 ? "SW48-b" : name })));
    right("getComputeNode", await uc.getComputeNode.execute({ projectId, nodeId }));
    return { "same name": same, "rename (2 names alternating)": rename };
  } finally {
    await netemu.shutdown();
    s.remove();
  }
}

interface SyncResult {
  readonly config: SyncConfig["key"];
  readonly label: string;
  readonly op: SyncOp;
  readonly all: Summary;
  readonly perPortMedianUs: number;
  readonly roundMediansUs: number[];
}

async function syncs(): Promise<{ markdown: string; results: SyncResult[] }> {
  const samples = new Map<string, number[][]>();
  // One untimed round of each configuration first: module loading and the JIT's first compilations.
  for (const config of SYNC_CONFIGS) await syncRound(config);
  for (let round = 0; round < SYNC.rounds; round++) {
    for (const config of SYNC_CONFIGS) {
      collect();
      const r = await syncRound(config);
      for (const op of SYNC_OPS) {
        const key = `${config.key}/${op}`;
        samples.set(key, [...(samples.get(key) ?? []), r[op]]);
        log(`sync round ${round + 1}/${SYNC.rounds}, ${config.label}, ${op}: median ${median(r[op]).toFixed(1)} µs`);
      }
    }
  }
  const results: SyncResult[] = [];
  const rows: string[][] = [];
  for (const config of SYNC_CONFIGS) {
    for (const op of SYNC_OPS) {
      const rounds = samples.get(`${config.key}/${op}`) ?? [];
      const all = summary(rounds.flat());
      const roundMediansUs = rounds.map((r) => median(r));
      results.push({ config: config.key, label: config.label, op, all, perPortMedianUs: all.medianUs / SWITCH_PORTS, roundMediansUs });
      rows.push([
        config.label,
        op,
        fmt(all.n),
        fmt(all.medianUs, 1),
        fmt(all.p95Us, 1),
        fmt(all.medianUs / SWITCH_PORTS, 2),
        roundMediansUs.map((m) => fmt(m, 1)).join(", "),
      ]);
    }
  }
  const markdown = [
    `### 1. No-change sync of a ${SWITCH_PORTS}-port switch, a filtered UDP NIO on every port (updateSwitch)`,
    "",
    `Filters on each NIO: \`${JSON.stringify(SYNC_FILTERS)}\`. ${SYNC.rounds} round(s) per configuration, alternating, each a fresh netemu: ${SYNC.warm} warm-up calls, then ${SYNC.timed} timed.`,
    "",
    markdownTable(["configuration", "update", "calls timed", "median µs", "p95 µs", "median µs per port", "median of each round (µs)"], rows),
    "",
  ].join("\n");
  return { markdown, results };
}

// ---------------------------------------------------------------------------------------------------
// 2. Opening a 1,000-switch project

const LINK_STYLE = "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;";

/** A GNS3 2.2 project file (topology revision 9): `nodes` switches in a chain, every other link filtered. */
function projectFile(projectId: string, name: string, nodes: number): { text: string; filteredLinks: number } {
  const ids = Array.from({ length: nodes }, () => randomUUID());
  const portsMapping = Array.from({ length: OPEN_PORTS_PER_NODE }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: "access", vlan: 1 }));
  const end = (nodeId: string, port: number) => ({ adapter_number: 0, label: { style: LINK_STYLE, text: `0/${port}` }, node_id: nodeId, port_number: port });
  let filteredLinks = 0;
  const links = ids.slice(1).map((id, i) => {
    const filtered = i % 2 === 0;
    if (filtered) filteredLinks++;
    return { filters: filtered ? { bpf: ["icmp"], delay: [10] } : {}, link_id: randomUUID(), link_style: {}, nodes: [end(ids[i] as string, 1), end(id, 0)], suspend: false };
  });
  const file = {
    auto_close: true,
    auto_open: false,
    auto_start: false,
    drawing_grid_size: 25,
    grid_size: 75,
    name,
    project_id: projectId,
    revision: 9,
    scene_height: 1000,
    scene_width: 2000,
    show_grid: false,
    show_interface_labels: false,
    show_layers: false,
    snap_to_grid: false,
    supplier: null,
    topology: {
      computes: [],
      drawings: [],
      links,
      nodes: ids.map((node_id, i) => ({
        compute_id: "local",
        console: null,
        console_auto_start: false,
        console_type: "none",
        custom_adapters: [],
        first_port_name: null,
        height: 59,
        label: { rotation: 0, style: null, text: `SW${i + 1}`, x: null, y: -40 },
        locked: false,
        name: `SW${i + 1}`,
        node_id,
        node_type: "ethernet_switch",
        port_name_format: "Ethernet{0}",
        port_segment_size: 0,
        properties: { ports_mapping: portsMapping },
        symbol: ":/symbols/ethernet_switch.svg",
        template_id: null,
        width: 65,
        x: (i % 40) * 100,
        y: Math.floor(i / 40) * 100,
        z: 1,
      })),
    },
    type: "topology",
    variables: null,
    version: "2.2.59",
    zoom: 100,
  };
  return { text: `${JSON.stringify(file, null, 4)}\n`, filteredLinks };
}

interface OpenRun {
  readonly workers: number;
  readonly rep: number;
  readonly fileBytes: number;
  readonly listedMs: number;
  readonly openMs: number;
  readonly nodes: number;
  readonly links: number;
  readonly closeMs: number;
  readonly shutdownMs: number;
  /** How often the project file was replaced from the open to the end of the shutdown (inotify renames onto it). */
  readonly fileWrites: number;
}

/** A fresh projects directory with one project file, a fresh netemu reading it, open, close, shut down. */
async function openRun(workers: number, rep: number, nodes: number): Promise<OpenRun> {
  const s = scratch();
  const projectId = randomUUID();
  const name = `chain-${nodes}`;
  const { text } = projectFile(projectId, name, nodes);
  mkdirSync(join(s.projectsPath, projectId), { recursive: true });
  writeFileSync(join(s.projectsPath, projectId, `${name}.gns3`), text);
  collect();
  const t0 = performance.now();
  const netemu = netemuWith(s.dir, s.projectsPath, { start: 42000, end: 45999 }, { dataPlaneWorkers: workers, persistProjects: true });
  const uc = netemu.useCases;
  let shutdownMs = Number.NaN;
  let fileWrites = 0;
  let watching: ReturnType<typeof watch> | undefined;
  try {
    const listed = await uc.listProjects.execute();
    const listedMs = performance.now() - t0;
    if (!listed.some((p) => p.projectId === projectId)) throw new Error(`the project file was not read (${listed.length} projects listed)`);
    // Every write of the project file ends in a rename onto it (an atomic replace): count them.
    const watcher = watch(join(s.projectsPath, projectId), (event, file) => {
      if (event === "rename" && file === `${name}.gns3`) fileWrites++;
    });
    watching = watcher;
    const t1 = performance.now();
    right("openProject", await uc.openProject.execute({ projectId }));
    const openMs = performance.now() - t1;
    const nodeCount = right("listNodes", await uc.listNodes.execute({ projectId })).length;
    const linkCount = right("listLinks", await uc.listLinks.execute({ projectId })).length;
    if (nodeCount !== nodes || linkCount !== nodes - 1) log(`open: only ${nodeCount} nodes and ${linkCount} links after the open (links that cannot be wired are dropped)`);
    const t2 = performance.now();
    right("closeProject", await uc.closeProject.execute({ projectId }));
    const closeMs = performance.now() - t2;
    const t3 = performance.now();
    await netemu.shutdown();
    shutdownMs = performance.now() - t3;
    await new Promise((r) => setTimeout(r, 50)); // the last inotify events
    return { workers, rep, fileBytes: Buffer.byteLength(text), listedMs, openMs, nodes: nodeCount, links: linkCount, closeMs, shutdownMs, fileWrites };
  } finally {
    watching?.close();
    if (Number.isNaN(shutdownMs)) await netemu.shutdown();
    s.remove();
  }
}

/** createNetemu until listProjects answers, with an empty projects directory: the part that is not the file. */
async function emptyStart(workers: number): Promise<number> {
  const s = scratch();
  const t0 = performance.now();
  const netemu = netemuWith(s.dir, s.projectsPath, { start: 42000, end: 45999 }, { dataPlaneWorkers: workers, persistProjects: true });
  try {
    await netemu.useCases.listProjects.execute();
    return performance.now() - t0;
  } finally {
    await netemu.shutdown();
    s.remove();
  }
}

async function opens(): Promise<{ markdown: string; results: { runs: OpenRun[]; emptyStartMs: Record<string, number[]> } }> {
  const runs: OpenRun[] = [];
  const emptyStartMs: Record<string, number[]> = { "0": [], "1": [] };
  // One untimed open of the same project first for each data plane: module loading and the JIT's first compilations.
  for (const workers of [0, 1]) await openRun(workers, 0, OPEN_NODES);
  for (let rep = 1; rep <= OPEN.reps; rep++) {
    for (const workers of [0, 1]) {
      emptyStartMs[String(workers)]?.push(await emptyStart(workers));
      const r = await openRun(workers, rep, OPEN_NODES);
      runs.push(r);
      log(`open rep ${rep}/${OPEN.reps}, ${workers} worker(s): listed after ${r.listedMs.toFixed(0)} ms, open ${r.openMs.toFixed(0)} ms (${r.nodes} nodes, ${r.links} links), close ${r.closeMs.toFixed(0)} ms, shutdown ${r.shutdownMs.toFixed(0)} ms, project file written ${r.fileWrites} times`);
    }
  }
  const rows: string[][] = [];
  for (const workers of [0, 1]) {
    const mine = runs.filter((r) => r.workers === workers);
    const dp = workers === 0 ? "main thread" : "1 worker";
    for (const r of mine) rows.push([dp, String(r.rep), fmt(r.listedMs), fmt(r.openMs), `${fmt(r.nodes)} / ${fmt(r.links)}`, fmt(r.closeMs), fmt(r.shutdownMs), fmt(r.fileWrites)]);
    const med = (f: (r: OpenRun) => number): string => fmt(median(mine.map(f)));
    rows.push([`**${dp}**`, "**median**", `**${med((r) => r.listedMs)}**`, `**${med((r) => r.openMs)}**`, "", `**${med((r) => r.closeMs)}**`, `**${med((r) => r.shutdownMs)}**`, `**${med((r) => r.fileWrites)}**`]);
  }
  const bytes = runs[0]?.fileBytes ?? 0;
  const markdown = [
    `### 2. Opening a ${fmt(OPEN_NODES)}-switch project from its file (persistProjects)`,
    "",
    `A GNS3 2.2 project file of ${fmt(bytes / 1024)} KiB: ${fmt(OPEN_NODES)} ethernet_switch nodes (${OPEN_PORTS_PER_NODE} ports each) in a chain of ${fmt(OPEN_NODES - 1)} links, every other link with \`{"bpf": ["icmp"], "delay": [10]}\`, the others unfiltered; opening wires ${fmt(2 * (OPEN_NODES - 1))} UDP NIOs (UDP range 42000–45999 on ${HOST}). Each repetition is a fresh projects directory and a fresh netemu, shut down after; ms.`,
    "",
    markdownTable(["data plane", "rep", "createNetemu → listProjects answers", "openProject", "nodes / links after", "closeProject", "shutdown", "project file writes, open → shutdown"], rows),
    "",
    `createNetemu → listProjects with an empty projects directory (what is not the file): main thread ${fmt(median(emptyStartMs["0"] ?? []), 1)} ms, 1 worker ${fmt(median(emptyStartMs["1"] ?? []), 1)} ms (medians).`,
    "",
  ].join("\n");
  return { markdown, results: { runs, emptyStartMs } };
}

// ---------------------------------------------------------------------------------------------------
// 3. createLink with a 5-line bpf: same text (warm) against a new text each time (cold)

/** Distinct numbers for the cold texts across the whole run, so no cache anywhere has seen one before. */
let coldCounter = 0;

function linkFilters(kind: "warm" | "cold"): Record<string, unknown> {
  // Every line carries the number, so a new text misses the compiler's per-expression cache on every line.
  const p = kind === "warm" ? 8080 : 10000 + coldCounter++;
  return {
    bpf: [
      [
        `tcp port ${p}`,
        `udp port ${p} and host 10.0.0.53`,
        `icmp and host 10.${(p >> 8) & 255}.${p & 255}.1`,
        `vlan 10 and ip net 10.0.0.0/8 and not port ${p}`,
        `tcp[tcpflags] & tcp-syn != 0 and not port 22 and not port ${p}`,
      ].join("\n"),
    ],
    match: [`ip src net 192.168.0.0/16 and udp port ${p}`, `tcp dst portrange ${p}-${p + 80}`],
    delay: [10],
  };
}

interface LinkResult {
  readonly workers: number;
  readonly kind: "warm" | "cold";
  readonly create: Summary;
  readonly remove: Summary;
  readonly roundMediansUs: number[];
}

async function linkRound(workers: number): Promise<Record<"warm" | "cold", { create: number[]; remove: number[] }>> {
  const s = scratch();
  const netemu = netemuWith(s.dir, s.projectsPath, { start: 46000, end: 46499 }, { dataPlaneWorkers: workers });
  const uc = netemu.useCases;
  try {
    const projectId = right("createProject", await uc.createProject.execute({ name: "links" })).projectId;
    const a = right("createNode", await uc.createNode.execute({ projectId, name: "A", nodeType: "ethernet_switch", computeId: "local" })).node.nodeId;
    const b = right("createNode", await uc.createNode.execute({ projectId, name: "B", nodeType: "ethernet_switch", computeId: "local" })).node.nodeId;
    const nodes = [
      { nodeId: a, adapterNumber: 0, portNumber: 0 },
      { nodeId: b, adapterNumber: 0, portNumber: 0 },
    ];
    const out = { warm: { create: [] as number[], remove: [] as number[] }, cold: { create: [] as number[], remove: [] as number[] } };
    for (const kind of ["warm", "cold"] as const) {
      collect();
      for (let i = 0; i < LINK.warm + LINK.timed; i++) {
        const filters = linkFilters(kind);
        const t0 = performance.now();
        const link = right("createLink", await uc.createLink.execute({ projectId, nodes, filters }));
        const t1 = performance.now();
        right("deleteLink", await uc.deleteLink.execute({ projectId, linkId: link.linkId }));
        const t2 = performance.now();
        if (i < LINK.warm) continue;
        out[kind].create.push((t1 - t0) * 1000);
        out[kind].remove.push((t2 - t1) * 1000);
      }
    }
    return out;
  } finally {
    await netemu.shutdown();
    s.remove();
  }
}

/** The compiler alone on the same lines (bpf and match, as one createLink has them), µs per compile of both. */
function compileAlone(kind: "warm" | "cold"): Summary {
  const samples: number[] = [];
  const n = LINK.timed;
  for (let i = 0; i < LINK.warm + n; i++) {
    const f = linkFilters(kind) as { bpf: string[]; match: string[] };
    const t0 = performance.now();
    const bpf = compileExpressionLines(f.bpf.flatMap((l) => l.split("\n")));
    const match = compileExpressionLines(f.match);
    const dt = (performance.now() - t0) * 1000;
    if (E.isLeft(bpf) || E.isLeft(match)) throw new Error("the link filter does not compile");
    if (i >= LINK.warm) samples.push(dt);
  }
  return summary(samples);
}

async function links(): Promise<{ markdown: string; results: { links: LinkResult[]; compileAlone: { newText: Summary; sameText: Summary } } }> {
  const collected = new Map<string, { create: number[][]; remove: number[][] }>();
  for (const workers of [0, 1]) await linkRound(workers); // untimed: loading and the JIT's first compilations
  for (let round = 0; round < LINK.rounds; round++) {
    for (const workers of [0, 1]) {
      const r = await linkRound(workers);
      for (const kind of ["warm", "cold"] as const) {
        const key = `${workers}/${kind}`;
        const c = collected.get(key) ?? { create: [], remove: [] };
        c.create.push(r[kind].create);
        c.remove.push(r[kind].remove);
        collected.set(key, c);
        log(`link round ${round + 1}/${LINK.rounds}, ${workers} worker(s), ${kind}: createLink median ${median(r[kind].create).toFixed(0)} µs, deleteLink ${median(r[kind].remove).toFixed(0)} µs`);
      }
    }
  }
  const compiled = compileAlone("cold");
  const compiledSame = compileAlone("warm");
  log(`compiler alone (bpf 5 lines + match 2 lines): new text each time median ${compiled.medianUs.toFixed(0)} µs, same text ${compiledSame.medianUs.toFixed(0)} µs`);
  const results: LinkResult[] = [];
  const rows: string[][] = [];
  for (const workers of [0, 1]) {
    for (const kind of ["warm", "cold"] as const) {
      const c = collected.get(`${workers}/${kind}`) ?? { create: [], remove: [] };
      const create = summary(c.create.flat());
      const remove = summary(c.remove.flat());
      const roundMediansUs = c.create.map((r) => median(r));
      results.push({ workers, kind, create, remove, roundMediansUs });
      rows.push([
        workers === 0 ? "main thread" : "1 worker",
        kind === "warm" ? "same text every time" : "a new text every time",
        fmt(create.n),
        fmt(create.medianUs),
        fmt(create.p95Us),
        roundMediansUs.map((m) => fmt(m)).join(", "),
        fmt(remove.medianUs),
      ]);
    }
  }
  const example = linkFilters("warm");
  const markdown = [
    "### 3. createLink between two switches of an opened controller project, then deleteLink",
    "",
    `Link filters: \`${JSON.stringify(example)}\` (a new text: the number 8080 becomes another, in every line, every time). ${LINK.rounds} round(s), alternating the data plane, each a fresh netemu: ${LINK.warm} warm-up create+delete, then ${LINK.timed} timed; µs.`,
    "",
    markdownTable(["data plane", "filter text", "creates timed", "createLink median", "createLink p95", "median of each round", "deleteLink median"], rows),
    "",
    `For reference, \`compileExpressionLines\` (netemu/pcap-filter) on the bpf's 5 lines plus the match's 2: a new text each time median ${fmt(compiled.medianUs)} µs (p95 ${fmt(compiled.p95Us)}); the same text each time median ${fmt(compiledSame.medianUs, 1)} µs (p95 ${fmt(compiledSame.p95Us, 1)}: the compiler's own cache of compiled expressions, per line and per thread).`,
    "",
  ].join("\n");
  return { markdown, results: { links: results, compileAlone: { newText: compiled, sameText: compiledSame } } };
}

// ---------------------------------------------------------------------------------------------------

function commit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: new URL("../..", import.meta.url), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "?";
  }
}

const meta = {
  commit: commit(),
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? "?",
  quick: QUICK,
  gcBetweenMeasurements: gc !== undefined,
  date: new Date().toISOString(),
  loadAverageAtStart: loadavg().map((l) => Number(l.toFixed(2))),
};
log(`config bench: ${QUICK ? "--quick" : "full"} run, commit ${meta.commit}, Node ${meta.node}, ${meta.cpus} CPUs, load ${meta.loadAverageAtStart.join(" ")}${gc === undefined ? " (no --expose-gc)" : ""}`);

const out = [`## Configuration syncs, project open, compile cache (${QUICK ? "--quick" : "full"} run, commit ${meta.commit}, Node ${process.version}, ${meta.cpus} CPUs)`, ""];
const json: Record<string, unknown> = { meta };
if (ONLY === undefined || ONLY === "sync") {
  const r = await syncs();
  out.push(r.markdown);
  json.syncs = r.results;
}
if (ONLY === undefined || ONLY === "open") {
  const r = await opens();
  out.push(r.markdown);
  json.open = r.results;
}
if (ONLY === undefined || ONLY === "link") {
  const r = await links();
  out.push(r.markdown);
  json.links = r.results;
}
const seconds = (monoMs() - started) / 1000;
json.durationSeconds = Number(seconds.toFixed(1));
out.push(`Bench took ${seconds.toFixed(0)} s (load average at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")}).`);
process.stdout.write(`${out.join("\n")}\n`);
if (JSON_FILE !== undefined) {
  writeFileSync(JSON_FILE, `${JSON.stringify(json, null, 2)}\n`);
  log(`wrote ${JSON_FILE}`);
}
