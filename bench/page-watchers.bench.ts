/**
 * Ten of netemu's pages watching a busy lab for a minute (issue 28, ADR 0094): CPU and memory of the
 * server and of the browser, against the same minute with no page open (the baseline, measured in the
 * same run). The server is `netemu serve` (dist/cli.js) in a process of its own; the lab is made through
 * the compute API (switches in a chain, a hub on each), and a blaster in another process sends broadcast
 * frames into the first switch, which every switch floods on: every link carries them.
 *
 *   npm run bench:page-watchers  (= npm run pretest && node build/bench/page-watchers.bench.js [--nodes 100] [--pages 10] [--seconds 60] [--fps 100])
 */
import "reflect-metadata";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HeadlessChromium } from "../test/support/browser.js";
import { serve } from "../test/support/netemu-cli.js";
import { freeUdpPort } from "../test/support/udp-peer.js";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const NODES = Number(option("--nodes", "100"));
const PAGES = Number(option("--pages", "10"));
const SECONDS = Number(option("--seconds", "60"));
const FPS = Number(option("--fps", "100"));
const BLASTER = new URL("../test/support/udp-blaster.js", import.meta.url).pathname;
const TICKS_PER_SECOND = 100;

/** Every process of the tree under `root` (itself included), read from /proc. */
function tree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const all: number[] = [];
  const walk = (pid: number): void => {
    all.push(pid);
    for (const child of parents.get(pid) ?? []) walk(child);
  };
  walk(root);
  return all;
}

/** CPU ticks (user + system) of these processes together. */
function ticks(pids: readonly number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      sum += Number(fields[11]) + Number(fields[12]);
    } catch {
      // ended
    }
  }
  return sum;
}

/** Proportional set size (shared pages split between their users), MiB, of these processes together. */
function pss(pids: readonly number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      kib += Number(m?.[1] ?? 0);
    } catch {
      // ended
    }
  }
  return kib / 1024;
}

/** CPU (% of one core) of the processes `pids()` names over `seconds`, and their memory at the end. */
async function watch(seconds: number, pids: () => readonly number[]): Promise<{ cpu: number; pss: number }> {
  const before = ticks(pids());
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const elapsed = (performance.now() - t0) / 1000;
  return { cpu: ((ticks(pids()) - before) / TICKS_PER_SECOND / elapsed) * 100, pss: pss(pids()) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-bench-watchers-"));
  const server = await serve(join(dir, "config"), ["--projects-path", join(dir, "projects"), "--udp-start-port", "20000", "--udp-end-port", "29999"]);
  const serverPid = server.child.pid ?? -1;
  const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const r = await fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    const text = await r.text();
    return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
  };
  let blaster: ReturnType<typeof spawn> | undefined;
  let browser: HeadlessChromium | undefined;
  try {
    const p = String((await api("POST", "/v2/compute/projects", { name: "watched" }))["project_id"]);
    const port = async (): Promise<number> => Number((await api("POST", `/v2/compute/projects/${p}/ports/udp`))["udp_port"]);
    const nio = (type: string, node: string, n: number, lport: number, rport: number) =>
      api("POST", `/v2/compute/projects/${p}/${type}/nodes/${node}/adapters/0/ports/${n}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport });
    const switches: string[] = [];
    for (let i = 0; i < NODES / 2; i++) {
      const sw = String((await api("POST", `/v2/compute/projects/${p}/ethernet_switch/nodes`, { name: `sw${i}` }))["node_id"]);
      const hub = String((await api("POST", `/v2/compute/projects/${p}/ethernet_hub/nodes`, { name: `hub${i}` }))["node_id"]);
      const [a, b] = [await port(), await port()];
      await nio("ethernet_switch", sw, 0, a, b);
      await nio("ethernet_hub", hub, 0, b, a);
      const previous = switches.at(-1);
      if (previous !== undefined) {
        const [x, y] = [await port(), await port()];
        await nio("ethernet_switch", previous, 1, x, y);
        await nio("ethernet_switch", sw, 2, y, x);
      }
      switches.push(sw);
    }
    // The blaster's own end: frames into sw0's port 3; what sw0 floods back to it is dropped by its kernel.
    const [into, from] = [await port(), await freeUdpPort()];
    await nio("ethernet_switch", switches[0]!, 3, into, from);
    const frames = FPS * (SECONDS * 2 + 120);
    blaster = spawn(process.execPath, [BLASTER, String(from), String(into), String(frames), "200", String(FPS)], { stdio: "ignore" });
    await new Promise((r) => setTimeout(r, 5_000));

    const serverTree = () => tree(serverPid);
    const idle = await watch(SECONDS, serverTree);
    console.log(`no page: server ${idle.cpu.toFixed(1)} % of a core, ${idle.pss.toFixed(0)} MiB`);

    browser = await HeadlessChromium.launch();
    const opened = performance.now();
    for (let i = 0; i < PAGES; i++) {
      const { page } = await browser.newPage();
      await page.goto(`${server.url}/netemu/`);
      await page.waitForSelector("body[data-first-reading-ms]", { timeout: 120_000 });
    }
    console.log(`${PAGES} pages open and reading in ${((performance.now() - opened) / 1000).toFixed(1)} s`);
    const chromiumPid = browser.pid;
    const ticksBefore = { server: ticks(serverTree()), browser: ticks(tree(chromiumPid)) };
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = (n: number) => ((n / TICKS_PER_SECOND / elapsed) * 100).toFixed(1);
    const serverCpu = ticks(serverTree()) - ticksBefore.server;
    const browserCpu = ticks(tree(chromiumPid)) - ticksBefore.browser;
    const serverPss = pss(serverTree());
    const browserPss = pss(tree(chromiumPid));
    console.log(
      `${PAGES} pages: server ${cpu(serverCpu)} % of a core (${(Number(cpu(serverCpu)) - idle.cpu).toFixed(1)} above no page), ${serverPss.toFixed(0)} MiB (${(serverPss - idle.pss).toFixed(0)} above); ` +
        `browser ${cpu(browserCpu)} % of a core (${(Number(cpu(browserCpu)) / PAGES).toFixed(1)} a page), ${browserPss.toFixed(0)} MiB (${tree(chromiumPid).length} processes)`,
    );
    console.log(`| ${NODES} | ${FPS} | ${idle.cpu.toFixed(1)} | ${idle.pss.toFixed(0)} | ${cpu(serverCpu)} | ${serverPss.toFixed(0)} | ${cpu(browserCpu)} | ${browserPss.toFixed(0)} |`);
  } finally {
    await browser?.close();
    if (blaster?.pid !== undefined && blaster.exitCode === null) blaster.kill("SIGKILL");
    server.child.kill("SIGTERM");
    await server.exit;
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
