/**
 * netemu's page with big labs (ADR 0094): time to first paint and to interactive (graph and tables
 * drawn) for a 100-node and a 1,000-node lab, in Debian's chromium, and what one refresh costs (the
 * lab's counters in one request: its time and size). Switches and hubs only (a VPCS polls: hundreds of
 * them would measure the machine, not the page), half linked in pairs, the switches in a chain.
 *
 *   npx tsc -p tsconfig.json && node tools/build-page.mjs build/src/page && node build/bench/page.bench.js [100 1000]
 */
import "reflect-metadata";
import { HeadlessChromium } from "../test/support/browser.js";
import { startTestServer, type TestServer } from "../test/support/http-harness.js";
import { ensurePageBuilt } from "../test/support/netemu-page.js";

const SIZES = process.argv.slice(2).map(Number).filter((n) => n > 0);
const RUNS = Number(process.env["BENCH_RUNS"] ?? 3);

async function makeLab(s: TestServer, nodes: number): Promise<string> {
  const projectId = (await s.request("POST", "/v2/compute/projects", { name: `lab-${nodes}` })).json.project_id as string;
  const pairs = Math.floor(nodes / 2);
  const switches: string[] = [];
  const hubs: string[] = [];
  for (let i = 0; i < pairs; i++) {
    switches.push((await s.request("POST", `/v2/compute/projects/${projectId}/ethernet_switch/nodes`, { name: `sw${i}` })).json.node_id);
    hubs.push((await s.request("POST", `/v2/compute/projects/${projectId}/ethernet_hub/nodes`, { name: `hub${i}` })).json.node_id);
  }
  const port = async () => (await s.request("POST", `/v2/compute/projects/${projectId}/ports/udp`)).json.udp_port as number;
  const link = async (aType: string, a: string, aPort: number, bType: string, b: string, bPort: number) => {
    const [x, y] = [await port(), await port()];
    await s.request("POST", `/v2/compute/projects/${projectId}/${aType}/nodes/${a}/adapters/0/ports/${aPort}/nio`, { type: "nio_udp", lport: x, rhost: "127.0.0.1", rport: y });
    await s.request("POST", `/v2/compute/projects/${projectId}/${bType}/nodes/${b}/adapters/0/ports/${bPort}/nio`, { type: "nio_udp", lport: y, rhost: "127.0.0.1", rport: x });
  };
  for (let i = 0; i < pairs; i++) {
    await link("ethernet_switch", switches[i]!, 0, "ethernet_hub", hubs[i]!, 0);
    if (i > 0) await link("ethernet_switch", switches[i - 1]!, 1, "ethernet_switch", switches[i]!, 2);
  }
  return projectId;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  ensurePageBuilt();
  const browser = await HeadlessChromium.launch();
  try {
    for (const size of SIZES.length > 0 ? SIZES : [100, 1000]) {
      const s = await startTestServer({ settings: { udpPortRange: { start: 20000, end: 29999 } } });
      try {
        const made = performance.now();
        const projectId = await makeLab(s, size);
        const lab = (await s.request("GET", "/v2/netemu/labs")).json.find((l: { project_id: string }) => l.project_id === projectId);
        console.log(`lab of ${lab.nodes.length} nodes and ${lab.links.length} links made in ${((performance.now() - made) / 1000).toFixed(1)} s`);
        const counters: number[] = [];
        let bytes = 0;
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          const r = await fetch(`${s.url}/v2/netemu/labs/${projectId}/counters`);
          bytes = (await r.text()).length;
          counters.push(performance.now() - t);
        }
        const runs: { fcp: number; ready: number; drawn: number; firstReading: number; paint: number; paintGraph: number }[] = [];
        for (let run = 0; run < RUNS; run++) {
          const { page } = await browser.newPage();
          await page.goto(`${s.url}/netemu/`);
          await page.waitForSelector("body[data-first-reading-ms]", { timeout: 120_000 });
          runs.push(
            await page.evaluate(() => ({
              fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
              ready: Number(document.body.dataset["readyMs"]),
              drawn: Number(document.getElementById("graph")!.dataset["drawnMs"]),
              firstReading: Number(document.body.dataset["firstReadingMs"]),
              paint: Number(document.body.dataset["paintMs"]),
              paintGraph: Number(document.body.dataset["paintGraphMs"]),
            })),
          );
          await page.context().close();
        }
        console.log(
          `${size} nodes: first contentful paint ${median(runs.map((r) => r.fcp)).toFixed(0)} ms, interactive (graph and tables drawn) ${median(runs.map((r) => r.ready)).toFixed(0)} ms ` +
            `(graph layout and draw ${median(runs.map((r) => r.drawn)).toFixed(0)} ms), first rates painted ${median(runs.map((r) => r.firstReading)).toFixed(0)} ms (painting a reading ${median(runs.map((r) => r.paint)).toFixed(0)} ms, of which the graph ${median(runs.map((r) => r.paintGraph)).toFixed(0)} ms); ` +
            `one refresh: GET counters ${median(counters).toFixed(1)} ms, ${(bytes / 1024).toFixed(0)} KiB (medians of ${RUNS} page loads, 5 reads)`,
        );
      } finally {
        await s.close();
      }
    }
  } finally {
    await browser.close();
  }
}

await main();
