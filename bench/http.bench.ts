/**
 * HTTP API benchmark (issue 5). requests/s and p50/p99 for GET /v2/version, GET .../available_filters
 * and the NIO add+delete cycle at 1, 10 and 50 keep-alive connections, against netemu, a minimal Koa
 * app and a bare node:http server answering the same JSON (each server and the load generator in
 * their own process); then GET /v2/version while a netemu switch forwards at its loss-free rate.
 *
 *   node build/bench/http.bench.js [--quick] [--json FILE]
 */
import { cpus } from "node:os";
import { writeFileSync } from "node:fs";
import { Child, fmt, markdownTable, monoMs, sleep } from "./lib/util.js";
import { DataplaneRig } from "./lib/dataplane-rig.js";
import type { Bodies, LoadResult } from "./http-child.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const jsonAt = argv.indexOf("--json");
const JSON_OUT = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
const DURATION = QUICK ? 1000 : 2500;
/** Interleaved rounds per cell; each cell reports its median round. */
const ROUNDS = QUICK ? 1 : 3;
const CONCURRENCY = [1, 10, 50];
const KINDS = ["netemu", "koa", "bare"] as const;
type Kind = (typeof KINDS)[number];
const ROUTES = ["version", "filters", "nio"] as const;
type Route = (typeof ROUTES)[number];

const started = monoMs();
const log = (s: string): void => void process.stderr.write(`[${((monoMs() - started) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);

async function json(url: string, method: string, body?: unknown): Promise<{ status: number; text: string; data: Record<string, unknown> }> {
  const r = await fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { "content-type": "application/json" } });
  const text = await r.text();
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* no body */
  }
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${text}`);
  return { status: r.status, text, data };
}

/** Creates what the routes need on netemu: a link (for available_filters) and a 64-port switch. */
async function setupNetemu(base: string): Promise<{ paths: Record<Route, string>; bodies: Bodies }> {
  const project = (await json(`${base}/v2/projects`, "POST", { name: "bench" })).data["project_id"] as string;
  const node = async (name: string): Promise<string> =>
    (await json(`${base}/v2/projects/${project}/nodes`, "POST", { name, node_type: "ethernet_switch", compute_id: "local" })).data["node_id"] as string;
  const a = await node("SW1");
  const b = await node("SW2");
  const link = (await json(`${base}/v2/projects/${project}/links`, "POST", { nodes: [{ node_id: a, adapter_number: 0, port_number: 0 }, { node_id: b, adapter_number: 0, port_number: 0 }] })).data["link_id"] as string;
  const cp = (await json(`${base}/v2/compute/projects`, "POST", { name: "bench-compute" })).data["project_id"] as string;
  const ports_mapping = Array.from({ length: 64 }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: "access", vlan: 1 }));
  const sw = (await json(`${base}/v2/compute/projects/${cp}/ethernet_switch/nodes`, "POST", { name: "BENCH", ports_mapping })).data["node_id"] as string;
  const paths = {
    version: "/v2/version",
    filters: `/v2/projects/${project}/links/${link}/available_filters`,
    nio: `/v2/compute/projects/${cp}/ethernet_switch/nodes/${sw}/adapters/0/ports/{port}/nio`,
  };
  const bodies = { version: (await json(`${base}${paths.version}`, "GET")).text, filters: (await json(`${base}${paths.filters}`, "GET")).text };
  return { paths, bodies };
}

interface Cell {
  kind: Kind;
  route: Route;
  concurrency: number;
  result: LoadResult;
}

async function main(): Promise<void> {
  const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? "?", node: process.version };
  log(`machine ${JSON.stringify(machine)} quick=${QUICK}`);
  const loader = await Child.start(import.meta.url, "./http-child.js", ["load"], "load");
  // All three servers run side by side; cells are measured in interleaved rounds (netemu, Koa, bare,
  // netemu, ...) and each cell reports the round with the median rate, so that a stall of this shared
  // 2-core machine hurts one round of one server, not a whole column.
  const first = await Child.start(import.meta.url, "./http-child.js", ["netemu", "{}"], "netemu");
  const netemuUrl = (await first.call<{ url: string }>("info")).url;
  const { paths, bodies } = await setupNetemu(netemuUrl);
  const servers: Record<Kind, { child: Child; url: string }> = { netemu: { child: first, url: netemuUrl } } as Record<Kind, { child: Child; url: string }>;
  for (const kind of KINDS) {
    if (kind === "netemu") continue;
    const child = await Child.start(import.meta.url, "./http-child.js", [kind, JSON.stringify(bodies)], kind);
    servers[kind] = { child, url: (await child.call<{ url: string }>("info")).url };
  }
  const run = (kind: Kind, route: Route, concurrency: number, durationMs: number): Promise<LoadResult> =>
    loader.call<LoadResult>("run", { base: servers[kind].url, scenario: route === "nio" ? "nio" : "get", path: paths[route], concurrency, durationMs, lportBase: 25200 });
  for (const kind of KINDS) for (const route of ROUTES) await run(kind, route, 10, QUICK ? 500 : 1000); // warm-up
  const rounds = new Map<string, LoadResult[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of ROUTES) {
      for (const concurrency of CONCURRENCY) {
        for (const kind of KINDS) {
          const result = await run(kind, route, concurrency, DURATION);
          log(`round ${round + 1} ${kind} ${route} c=${concurrency}: ${fmt(result.opsPerSec)}/s p50 ${result.p50.toFixed(2)} p99 ${result.p99.toFixed(2)} ms errors ${result.errors}${result.firstError ? ` (${result.firstError.slice(0, 200)})` : ""} load cpu ${result.cpuPct.toFixed(0)} %`);
          const key = `${kind} ${route} ${concurrency}`;
          rounds.set(key, [...(rounds.get(key) ?? []), result]);
          await sleep(100);
        }
      }
    }
  }
  const cells: Cell[] = [];
  for (const [key, results] of rounds) {
    const [kind, route, c] = key.split(" ") as [Kind, Route, string];
    const sorted = [...results].sort((x, y) => x.opsPerSec - y.opsPerSec);
    cells.push({ kind, route, concurrency: Number(c), result: sorted[Math.floor(sorted.length / 2)] as LoadResult });
  }
  for (const kind of KINDS) await servers[kind].child.stop();
  await loader.stop();

  // API latency while the switch forwards at its loss-free maximum (64-byte frames).
  log("API under data-plane saturation");
  const rig = await DataplaneRig.start();
  const dut = await rig.startDut({ mode: "netemu", bufferBytes: 4 * 1024 * 1024, http: true });
  const found = await rig.search(dut, { size: 64, durationMs: QUICK ? 600 : 2000, startRate: 8000, maxRate: 400_000, precision: QUICK ? 0.12 : 0.06, retries: 1 });
  log(`loss-free rate of this switch: ${fmt(found.rate)} frames/s`);
  const apiLoader = await Child.start(import.meta.url, "./http-child.js", ["load"], "load");
  const base = dut.url ?? "";
  const versionRun = (concurrency: number, durationMs: number): Promise<LoadResult> =>
    apiLoader.call<LoadResult>("run", { base, scenario: "get", path: "/v2/version", concurrency, durationMs });
  await versionRun(1, 500);
  const idle = await versionRun(1, QUICK ? 1500 : 4000);
  const satMs = QUICK ? 2000 : 5000;
  const saturated: { rate: number; api: LoadResult; loss: number; concurrency: number }[] = [];
  for (const concurrency of [1, 10]) {
    const [trial, api] = await Promise.all([rig.trial(dut, { rate: found.rate, durationMs: satMs + 600, size: 64 }), sleep(300).then(() => versionRun(concurrency, satMs))]);
    log(`  c=${concurrency}: API p50 ${api.p50.toFixed(2)} p99 ${api.p99.toFixed(2)} max ${api.max.toFixed(2)} ms at ${fmt(api.opsPerSec)}/s; data-plane loss ${(trial.loss * 100).toFixed(3)} % (dut cpu ${trial.cpu.dut.toFixed(0)} %)`);
    saturated.push({ rate: found.rate, api, loss: trial.loss, concurrency });
  }
  await apiLoader.stop();
  await dut.child.stop();
  await rig.stop();

  // Report.
  const out: string[] = [];
  out.push(`## HTTP API (${QUICK ? "--quick" : "full"} run, ${((monoMs() - started) / 1000).toFixed(0)} s)`);
  out.push("");
  out.push(`Machine: ${machine.nproc} × ${machine.cpu}, Node ${machine.node}. ${DURATION} ms per cell after a warm-up, ${ROUNDS} interleaved round(s) per cell, median round shown; one load-generator process (node:http, keep-alive Agent).`);
  out.push("");
  const get = (kind: Kind, route: Route, c: number): LoadResult | undefined => cells.find((x) => x.kind === kind && x.route === route && x.concurrency === c)?.result;
  const names: Record<Route, string> = { version: "GET /v2/version", filters: "GET …/available_filters", nio: "NIO POST+DELETE cycle" };
  const rows: string[][] = [];
  for (const route of ROUTES) {
    for (const c of CONCURRENCY) {
      const n = get("netemu", route, c);
      const k = get("koa", route, c);
      const b = get("bare", route, c);
      const cellText = (r: LoadResult | undefined): string => (r === undefined ? "–" : `${fmt(r.opsPerSec)} (${r.p50.toFixed(2)} / ${r.p99.toFixed(2)})${r.errors > 0 ? ` ${r.errors} errors` : ""}`);
      const ratio = n !== undefined && k !== undefined ? n.opsPerSec / k.opsPerSec : Number.NaN;
      rows.push([names[route], String(c), cellText(n), cellText(k), cellText(b), `${ratio.toFixed(2)} ${ratio >= 0.8 ? "(met)" : "(not met)"}`, n ? `${n.cpuPct.toFixed(0)} %` : "–"]);
    }
  }
  out.push("### Throughput (ops/s) and latency (p50 / p99 ms); an op is one request, or one POST+DELETE cycle");
  out.push("");
  out.push(markdownTable(["route", "conns", "netemu", "minimal Koa", "bare node:http", "netemu / Koa (≥ 0.8)", "load-gen CPU (netemu)"], rows));
  out.push("");
  const bestNio = Math.max(...CONCURRENCY.map((c) => get("netemu", "nio", c)?.opsPerSec ?? 0));
  out.push(`NIO add+delete: best ${fmt(bestNio)} cycles/s (target ≥ 2,000: ${bestNio >= 2000 ? "met" : "not met"}).`);
  out.push("");
  out.push(`### GET /v2/version while the switch forwards 64-byte frames at its loss-free rate (${fmt(found.rate)} frames/s)`);
  out.push("");
  out.push(
    markdownTable(
      ["condition", "conns", "req/s", "p50 ms", "p99 ms", "max ms", "data-plane loss", "p99 < 50 ms"],
      [
        ["idle data plane", "1", fmt(idle.opsPerSec), idle.p50.toFixed(2), idle.p99.toFixed(2), idle.max.toFixed(2), "–", idle.p99 < 50 ? "met" : "not met"],
        ...saturated.map((s) => ["saturated", String(s.concurrency), fmt(s.api.opsPerSec), s.api.p50.toFixed(2), s.api.p99.toFixed(2), s.api.max.toFixed(2), `${(s.loss * 100).toFixed(3)} %`, s.api.p99 < 50 ? "met" : "not met"]),
      ],
    ),
  );
  process.stdout.write(`${out.join("\n")}\n`);
  if (JSON_OUT !== undefined) writeFileSync(JSON_OUT, JSON.stringify({ machine, quick: QUICK, cells, idle, saturated, loss_free_rate: found.rate }, null, 2));
}

await main();
