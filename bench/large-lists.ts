/**
 * Large lists (issue 17): a controller project holding 100,000 nodes and 100,000 links in memory
 * (one node made through the use cases, the rest copies saved through the repositories), then
 * GET /v2/projects/{p}/nodes and .../links: how long each answer takes, the longest event-loop
 * block while it is made, and GET /v2/version's latency meanwhile (a request every 2 ms on its own
 * connection).
 *
 *   node build/bench/large-lists.js [--nodes N]
 */
import "reflect-metadata";
import { request } from "node:http";
import * as E from "fp-ts/lib/Either.js";
import { createNetemu } from "../src/adapters/composition-root.js";
import type { LinkRepository, NodeRepository } from "../src/application/ports/repositories.js";
import { TOKENS } from "../src/application/ports/tokens.js";
import { fmt, markdownTable, monoMs, percentile, sleep } from "./lib/util.js";

const argv = process.argv.slice(2);
const at = argv.indexOf("--nodes");
const COUNT = at >= 0 ? Number(argv[at + 1]) : 100_000;

function get(url: string): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const t0 = monoMs();
    const req = request(url, { agent: false }, (res) => {
      let bytes = 0;
      res.on("data", (c: Buffer) => (bytes += c.length));
      res.on("end", () => resolve({ ms: monoMs() - t0, bytes }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The longest gap between two turns of the event loop while `work` runs. */
async function measure(base: string, path: string): Promise<string[]> {
  let longest = 0;
  let last = monoMs();
  let running = true;
  const ticker = (async () => {
    while (running) {
      await new Promise((r) => setImmediate(r));
      const now = monoMs();
      longest = Math.max(longest, now - last);
      last = now;
    }
  })();
  const versions: number[] = [];
  // Each probe is due 2 ms after the previous answer; its latency counts from when it was due, so a
  // probe that this process could not even send while the loop was held counts that wait too (this
  // bench's client shares the server's loop).
  const probe = (async () => {
    let due = monoMs();
    while (running) {
      await get(`${base}/v2/version`);
      const now = monoMs();
      versions.push(now - due);
      due = now + 2;
      await sleep(2);
    }
  })();
  const list = await get(`${base}${path}`);
  running = false;
  await Promise.all([ticker, probe]);
  const sorted = versions.sort((a, b) => a - b);
  return [path.replace(/.*\//, ""), fmt(list.bytes / 2 ** 20, 1), fmt(list.ms), fmt(longest, 1), fmt(versions.length), fmt(percentile(sorted, 50), 1), fmt(sorted[sorted.length - 1] ?? NaN, 1)];
}

async function main(): Promise<void> {
  const netemu = createNetemu({ logLevel: "error" });
  const { url: base } = await netemu.listen(0, "127.0.0.1");
  try {
    const uc = netemu.useCases;
    const project = await uc.createProject.execute({ name: "large" });
    if (E.isLeft(project)) throw new Error(project.left._tag);
    const projectId = project.right.projectId;
    const made = await uc.createNode.execute({ projectId, name: "SW", nodeType: "ethernet_switch", computeId: "local" });
    if (E.isLeft(made)) throw new Error(made.left._tag);
    const model = made.right.node;
    const other = await uc.createNode.execute({ projectId, name: "SW-B", nodeType: "ethernet_switch", computeId: "local" });
    if (E.isLeft(other)) throw new Error(other.left._tag);
    const link = await uc.createLink.execute({ projectId, nodes: [{ nodeId: model.nodeId, adapterNumber: 0, portNumber: 0 }, { nodeId: other.right.node.nodeId, adapterNumber: 0, portNumber: 0 }] });
    if (E.isLeft(link)) throw new Error(link.left._tag);
    const nodes = netemu.container.resolve<NodeRepository>(TOKENS.NodeRepository);
    const links = netemu.container.resolve<LinkRepository>(TOKENS.LinkRepository);
    const id = (i: number): string => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
    for (let i = 2; i < COUNT; i += 1) await nodes.save({ ...model, nodeId: id(i), name: `SW${i}` });
    for (let i = 1; i < COUNT; i += 1) await links.save({ ...link.right, linkId: id(i) });
    process.stderr.write(`${COUNT} nodes and links in memory\n`);
    const rows = [await measure(base, `/v2/projects/${projectId}/nodes`), await measure(base, `/v2/projects/${projectId}/links`)];
    console.log(`\n${fmt(COUNT)} nodes, ${fmt(COUNT)} links\n`);
    console.log(markdownTable(["list", "MB", "answer ms", "longest loop block ms", "/v2/version answered meanwhile", "p50 ms", "max ms"], rows));
  } finally {
    await netemu.shutdown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
