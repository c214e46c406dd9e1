/**
 * Odd and oversized files in the projects path (issue 17, ADR 0057): how long `netemu serve` takes to
 * listen, and its peak memory, with one file in its projects path:
 *
 * - a 100,000-node project file (~100 MB, the case): skipped by its size, unread;
 * - the same with `--max-project-file-size 1073741824` (1 GiB, the most allowed): read, and skipped by
 *   its node count (what the node limit alone costs);
 * - a 5,000-node file (the largest node count netemu accepts) under the default 16 MiB: read and listed;
 * - a FIFO named x.gns3: skipped (before the fix, netemu never listened);
 * - an empty projects path, for reference.
 *
 *   node build/bench/odd-project-files.bench.js
 *
 * Each `netemu serve` binds 127.0.0.1:0, is stopped with SIGTERM, and its temporary directory removed.
 * Prints a markdown table on stdout (docs/reliability.md), progress on stderr.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

/** A GNS3-like project file with `count` 8-port switches, written in pieces (never whole in memory). */
function writeProject(file: string, count: number): number {
  const fd = openSync(file, "w");
  const port = (i: number) => ({ name: `Ethernet${i}`, port_number: i, type: "access", vlan: 1, ethertype: "" });
  try {
    writeSync(fd, '{"project_id": "0dd0dd00-1111-4222-8333-444444444444", "name": "big", "revision": 9, "type": "topology", "topology": {"links": [], "nodes": [');
    for (let i = 0; i < count; i++) {
      const node = {
        compute_id: "local",
        console: null,
        console_type: "none",
        label: { rotation: 0, style: "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;", text: `SW${i}`, x: 10, y: -25 },
        locked: false,
        name: `SW${i}`,
        node_id: `0dd0dd00-0000-4000-8000-${String(i).padStart(12, "0")}`,
        node_type: "ethernet_switch",
        properties: { ports_mapping: Array.from({ length: 8 }, (_, p) => port(p)) },
        symbol: ":/symbols/ethernet_switch.svg",
        x: i % 1000,
        y: Math.floor(i / 1000),
        z: 1,
      };
      writeSync(fd, (i === 0 ? "" : ", ") + JSON.stringify(node));
    }
    writeSync(fd, "]}}");
  } finally {
    closeSync(fd);
  }
  return statSync(file).size;
}

/** Starts serve, answers ms to "netemu listening", the peak RSS then (VmHWM), and the skip reasons. */
async function measure(projectsPath: string, extra: string[]): Promise<{ ms: number; peakMiB: number; listed: number; skips: string[] }> {
  const configDir = mkdtempSync(join(tmpdir(), "netemu-bench-odd-cfg-"));
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--config-dir", configDir, "--projects-path", projectsPath, "--dataplane-workers", "0", ...extra]);
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  try {
    for (;;) {
      const line = out.split("\n").find((l) => l.includes('"msg":"netemu listening"'));
      if (line !== undefined) {
        const ms = performance.now() - started;
        const url = (JSON.parse(line) as { url: string }).url;
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
        const peakMiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
        const listed = ((await (await fetch(`${url}/v2/projects`)).json()) as unknown[]).length;
        const skips = out
          .split("\n")
          .filter((l) => l.includes('"msg":"project file skipped"'))
          .map((l) => (JSON.parse(l) as { reason: string }).reason);
        return { ms, peakMiB, listed, skips };
      }
      if (child.exitCode !== null || performance.now() - started > 120_000) throw new Error(`serve did not listen: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(configDir, { recursive: true, force: true });
  }
}

const root = mkdtempSync(join(tmpdir(), "netemu-bench-odd-"));
const rows: string[] = [];
try {
  const cases: { what: string; make: (dir: string) => string; extra: string[] }[] = [
    { what: "empty projects path", make: () => "", extra: [] },
    { what: "a FIFO named x.gns3", make: (dir) => (spawnSync("mkfifo", [join(dir, "x.gns3")]), "FIFO"), extra: [] },
    { what: "5,000 nodes (the node limit), default size limit", make: (dir) => `${(writeProject(join(dir, "big.gns3"), 5000) / 2 ** 20).toFixed(1)} MiB`, extra: [] },
    { what: "100,000 nodes, default size limit (16 MiB)", make: (dir) => `${(writeProject(join(dir, "big.gns3"), 100_000) / 2 ** 20).toFixed(1)} MiB`, extra: [] },
    { what: "100,000 nodes, `--max-project-file-size 1073741824`", make: (dir) => `${(writeProject(join(dir, "big.gns3"), 100_000) / 2 ** 20).toFixed(1)} MiB`, extra: ["--max-project-file-size", "1073741824"] },
  ];
  rows.push("| projects path holds | file | listening after | peak RSS | listed | skip reason |", "| --- | --- | --- | --- | --- | --- |");
  for (const c of cases) {
    const projectsPath = join(root, String(rows.length));
    const dir = join(projectsPath, "p");
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`${c.what}...\n`);
    const file = c.make(dir);
    const m = await measure(projectsPath, c.extra);
    rows.push(`| ${c.what} | ${file} | ${Math.round(m.ms)} ms | ${Math.round(m.peakMiB)} MiB | ${m.listed} | ${m.skips.join("; ") || "—"} |`);
    rmSync(projectsPath, { recursive: true, force: true });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
process.stdout.write(rows.join("\n") + "\n");
