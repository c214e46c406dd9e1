import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, type Served } from "../support/netemu-cli.js";
import { parseExposition } from "../support/prometheus-text.js";
import { batchedAddonOrSkip } from "../support/udp-batch-addon.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const PROJECT = "20202020-0000-4000-8000-000000000068";
const A = "00:50:79:66:68:01";
const B = "00:50:79:66:68:02";
const BROADCAST = "ff:ff:ff:ff:ff:ff";

/** The JSON log lines whose msg is `msg`. */
function logLines(s: Served, msg: string): Record<string, unknown>[] {
  return s
    .stdout()
    .split("\n")
    .filter((l) => l.includes(`"msg":${JSON.stringify(msg)}`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function post(s: Served, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${s.url}${path}`, { method: "POST", body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

/** A switch (in a data-plane worker) with two UDP peers; a broadcast goes one way, a unicast answer the other. */
async function switchesFramesBetweenTwoPeers(s: Served): Promise<void> {
  expect((await post(s, "/v2/compute/projects", { name: "path", project_id: PROJECT })).status).to.equal(201);
  const sw = (await post(s, `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
  const peers: UdpPeer[] = [];
  try {
    const lports: number[] = [];
    for (const port of [0, 1]) {
      const peer = await UdpPeer.open();
      peers.push(peer);
      const lport = (await post(s, `/v2/compute/projects/${PROJECT}/ports/udp`)).json["udp_port"] as number;
      lports.push(lport);
      const nio = await post(s, `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${String(sw["node_id"])}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peer.port });
      expect(nio.status).to.equal(201);
    }
    const [p0, p1] = peers as [UdpPeer, UdpPeer];
    const broadcast = ethernetFrame(BROADCAST, A, { payload: 46 });
    await p0.send(broadcast, lports[0]!);
    expect(Buffer.compare((await p1.waitFor(1, 5000))[0]!, broadcast)).to.equal(0);
    const answer = ethernetFrame(A, B, { payload: 1486 });
    await p1.send(answer, lports[1]!);
    expect(Buffer.compare((await p0.waitFor(1, 5000))[0]!, answer)).to.equal(0);
  } finally {
    await Promise.all(peers.map((p) => p.close()));
  }
}

async function scrapedPaths(s: Served): Promise<[string | undefined, number][]> {
  const m = parseExposition(await (await fetch(`${s.url}/metrics`)).text());
  return m.all("netemu_datagram_path_info").map((x) => [x.labels.path, x.value]);
}

describe("netemu serve on either datagram path (ADR 0068), workers on", function () {
  this.timeout(30_000);
  let configDir: string;
  let served: Served | undefined;
  beforeEach(() => (configDir = mkdtempSync(join(tmpdir(), "netemu-path-"))));
  afterEach(async () => {
    if (served !== undefined && served.child.exitCode === null) {
      served.child.kill("SIGTERM");
      await served.exit;
    }
    served = undefined;
    rmSync(configDir, { recursive: true, force: true });
  });

  it("uses node:dgram when NETEMU_UDP_PATH=dgram asks for it, says so and why at start and in /metrics, and switches frames", async () => {
    served = await serve(configDir, ["--dataplane-workers", "1"], { NETEMU_UDP_PATH: "dgram", NETEMU_UDP_ADDON: "" });
    expect(logLines(served, "datagram path: node:dgram").map((l) => l["reason"])).to.deep.equal(["NETEMU_UDP_PATH=dgram"]);
    expect(served.listening).to.deep.include({ datagramPath: "dgram", dataPlaneWorkers: 1 });
    expect(await scrapedPaths(served)).to.deep.equal([["dgram", 1]]);
    await switchesFramesBetweenTwoPeers(served);
  });

  it("falls back to node:dgram when the addon cannot be loaded, says why, and switches frames", async () => {
    const broken = join(configDir, "udp_batch.node");
    writeFileSync(broken, "not a shared object\n");
    served = await serve(configDir, ["--dataplane-workers", "1"], { NETEMU_UDP_PATH: "", NETEMU_UDP_ADDON: broken });
    const [line] = logLines(served, "datagram path: node:dgram");
    expect(String(line?.["reason"])).to.match(new RegExp(`^NETEMU_UDP_ADDON=${broken} cannot be loaded: .+`));
    expect(served.listening).to.deep.include({ datagramPath: "dgram" });
    expect(await scrapedPaths(served)).to.deep.equal([["dgram", 1]]);
    await switchesFramesBetweenTwoPeers(served);
  });

  it("uses the batched path where the addon was built, says so, and switches frames", async function () {
    batchedAddonOrSkip(this);
    // Whatever the environment of the test run says (npm test's second run forces dgram).
    served = await serve(configDir, ["--dataplane-workers", "1"], { NETEMU_UDP_PATH: "", NETEMU_UDP_ADDON: "" });
    expect(logLines(served, "datagram path: batched (recvmmsg/sendmmsg addon)")).to.have.length(1);
    expect(served.listening).to.deep.include({ datagramPath: "batched" });
    expect(await scrapedPaths(served)).to.deep.equal([["batched", 1]]);
    await switchesFramesBetweenTwoPeers(served);
  });
});
