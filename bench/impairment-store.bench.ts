/**
 * The impairments store (issue 25, ADR 0071): 10,000 `PUT /v2/netemu/impairments` from 8 keep-alive
 * clients on 100 switches of 100 ports, beside 10,000 `GET /v2/version` from the same 8 clients as
 * the API's own speed, and the same PUTs against the in-memory store (the route and use case without a disk), in the same run; then one client's PUT latency over the first and the last
 * 1,000 of the 10,000 (a change must cost the same with 10,000 held as with none), and how long a
 * restart takes to read the 10,000 back. netemu in this process, its config directory on the disk
 * tmpdir() names (fsync is real).
 *
 *   node build/bench/impairment-store.bench.js [--count N]
 */
import "reflect-metadata";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNetemu, type Netemu } from "../src/adapters/composition-root.js";
import { InMemoryImpairmentStore } from "../src/adapters/persistence/in-memory-impairment-store.js";
import { FileImpairmentStore } from "../src/adapters/persistence/file-impairment-store.js";
import { open } from "node:fs/promises";
import { fmt, markdownTable, monoMs, percentile } from "./lib/util.js";

const argv = process.argv.slice(2);
const countAt = argv.indexOf("--count");
const COUNT = countAt >= 0 ? Number(argv[countAt + 1]) : 10_000;
const CLIENTS = 8;
const PROJECT = "71717171-3333-4444-8555-666666666666";
const SWITCHES = Math.ceil(COUNT / 100);

async function serve(configDir: string, inMemory = false): Promise<{ netemu: Netemu; url: string }> {
  const netemu = createNetemu({
    logLevel: "silent",
    settings: { host: "127.0.0.1", port: 0, configDir, udpPortRange: { start: 47000, end: 47099 } },
    ...(inMemory ? { overrides: { impairmentStore: new InMemoryImpairmentStore() } } : {}),
  });
  const { url } = await netemu.listen(0, "127.0.0.1");
  return { netemu, url };
}

async function call(url: string, method: string, body?: unknown): Promise<number> {
  const r = await fetch(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }) });
  await r.arrayBuffer();
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status}`);
  return r.status;
}

/** `count` requests from CLIENTS clients, each taking the next index: wall ms and each latency. */
async function load(count: number, clients: number, request: (n: number) => Promise<unknown>): Promise<{ ms: number; latencies: number[] }> {
  const latencies: number[] = new Array(count);
  let next = 0;
  const began = monoMs();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let n = next++; n < count; n = next++) {
        const t = monoMs();
        await request(n);
        latencies[n] = monoMs() - t;
      }
    }),
  );
  return { ms: monoMs() - began, latencies };
}

/** The n-th port, switch after switch (`spread`: consecutive requests on different switches) or port after port of one switch. */
const put = (url: string, n: number, delay: number, spread: boolean) => {
  const [sw, port] = spread ? [n % SWITCHES, Math.floor(n / SWITCHES)] : [Math.floor(n / 100), n % 100];
  return call(`${url}/v2/netemu/impairments`, "PUT", { project: "lab", node: `S${sw + 1}`, port: `Ethernet${port}`, filters_out: { delay: [delay] }, filters_in: { packet_loss: [1] } });
};

const row = (what: string, r: { ms: number; latencies: number[] }): string[] => {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  return [what, fmt(r.ms / 1000, 1), fmt((r.latencies.length / r.ms) * 1000), fmt(percentile(sorted, 50), 2), fmt(percentile(sorted, 99), 2)];
};

const SILENT = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The store alone, one change after another, against a bare positioned write + fdatasync of a line as long: ms per change. */
async function storeAlone(dir: string, count: number): Promise<{ store: number; bare: number }> {
  const store = new FileImpairmentStore(join(dir, "alone"), SILENT);
  let began = monoMs();
  for (let n = 0; n < count; n++) {
    const impairment = { projectId: PROJECT, projectName: "lab", nodeId: `node-${n % 100}`, nodeName: `S${n % 100}`, portNumber: Math.floor(n / 100), portName: "Ethernet", in: {}, out: { delay: [n % 1000] as const } };
    await store.apply([{ _tag: "Set", impairment }]);
  }
  const perChange = (monoMs() - began) / count;
  await store.close();
  const file = await open(join(dir, "alone", "bare"), "w");
  const line = Buffer.from(`${"x".repeat(280)}\n`);
  began = monoMs();
  for (let n = 0; n < count; n++) {
    await file.write(line, 0, line.length, n * line.length);
    await file.datasync();
  }
  const bare = (monoMs() - began) / count;
  await file.close();
  return { store: perChange, bare };
}

async function main(): Promise<void> {
  const configDir = mkdtempSync(join(tmpdir(), "netemu-bench-impairments-"));
  try {
    const lab = async (at: string): Promise<void> => {
      await call(`${at}/v2/compute/projects`, "POST", { name: "lab", project_id: PROJECT });
      const ports_mapping = Array.from({ length: 100 }, (_, n) => ({ name: `Ethernet${n}`, port_number: n, type: "access", vlan: 1, ethertype: "" }));
      for (let s = 1; s <= SWITCHES; s++) await call(`${at}/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, "POST", { name: `S${s}`, ports_mapping });
    };
    const rows: string[][] = [];
    // The same PUTs against the embedding's in-memory store: what the route and the use case cost without a disk.
    const memory = await serve(configDir, true);
    await lab(memory.url);
    rows.push(row(`${COUNT} GET /v2/version, ${CLIENTS} clients (warm-up)`, await load(COUNT, CLIENTS, () => call(`${memory.url}/v2/version`, "GET"))));
    rows.push(row(`${COUNT} PUT, switch after switch, ${CLIENTS} clients, in-memory store`, await load(COUNT, CLIENTS, (n) => put(memory.url, n, n % 1000, true))));
    await memory.netemu.shutdown();
    let { netemu, url } = await serve(configDir);
    await lab(url);
    rows.push(row(`${COUNT} PUT, switch after switch, ${CLIENTS} clients, file store`, await load(COUNT, CLIENTS, (n) => put(url, n, n % 1000, true))));
    rows.push(row(`${COUNT} GET /v2/version, ${CLIENTS} clients`, await load(COUNT, CLIENTS, () => call(`${url}/v2/version`, "GET"))));
    rows.push(row(`${COUNT} PUT replacing, port after port of one switch, ${CLIENTS} clients, file store`, await load(COUNT, CLIENTS, (n) => put(url, n, (n + 1) % 1000, false))));
    const one = await load(COUNT, 1, (n) => put(url, n, (n + 2) % 1000, true));
    rows.push(row(`${COUNT} PUT replacing, 1 client, file store`, one));
    const first = [...one.latencies.slice(0, 1000)].sort((a, b) => a - b);
    const last = [...one.latencies.slice(-1000)].sort((a, b) => a - b);
    const files = ["impairments.json", "impairments.journal"].map((f) => {
      try {
        return `${f} ${fmt(statSync(join(configDir, f)).size / 1024)} KiB`;
      } catch {
        return `${f} absent`;
      }
    });
    await netemu.shutdown();
    const began = monoMs();
    ({ netemu, url } = await serve(configDir));
    const listed = await fetch(`${url}/v2/netemu/impairments`).then((r) => r.json() as Promise<unknown[]>);
    const readMs = monoMs() - began;
    await netemu.shutdown();
    process.stdout.write(markdownTable(["run", "s", "requests/s", "p50 ms", "p99 ms"], rows) + "\n\n");
    process.stdout.write(`1 client, p50 of the first 1,000 PUTs ${fmt(percentile(first, 50), 2)} ms, of the last 1,000 ${fmt(percentile(last, 50), 2)} ms\n`);
    process.stdout.write(`files: ${files.join(", ")}; restart and list: ${listed.length} impairments in ${fmt(readMs)} ms\n`);
    const alone = await storeAlone(configDir, Math.min(COUNT, 3000));
    process.stdout.write(`the store alone, 1 writer: ${fmt(alone.store, 3)} ms per change; a bare write + fdatasync of a line: ${fmt(alone.bare, 3)} ms\n`);
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
