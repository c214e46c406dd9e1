import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNetemu, type Netemu } from "../../src/adapters/composition-root.js";
import { VpcsConsole } from "../support/vpcs-console.js";
import { Gns3Server, requireGns3Peer, waitUntil, type Gns3Reply } from "../support/gns3-peer.js";

const CLI = join(fileURLToPath(new URL("../../../", import.meta.url)), "dist", "cli.js");
/** One way: what the switch port sends towards PC2. VPCS waits 1 s for a reply, so both ways stay under it. */
const DELAY_MS = 250;

/** `netemu impair ...` as a user runs it against the running netemu; ended by the test if it outlives 20 s. */
function netemuImpair(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "impair", ...args], { env: { PATH: process.env["PATH"] ?? "" } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, out, err });
    });
  });
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

/**
 * The proof (ADR 0067): a lab built through the real GNS3 2.2.59 controller, VPCS on its
 * local compute and a switch on netemu; netemu's command puts a one-way delay and a bandwidth limit
 * on the switch port towards PC2, and the ping round trips show it, one way only, through a link
 * deleted and made again and a project closed and opened.
 */
describe("end to end: netemu's impairments in a lab a real GNS3 2.2.59 controller built", function () {
  this.timeout(300_000);
  let gns3: Gns3Server | undefined;
  let netemu: Netemu | undefined;
  let dir: string | undefined;
  const consoles: VpcsConsole[] = [];

  before(function () {
    requireGns3Peer(this);
  });
  after(async () => {
    await Promise.all(consoles.splice(0).map((c) => c.close()));
    await gns3?.stop();
    await netemu?.shutdown();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const ok = (r: Gns3Reply, status: number, what: string): void => {
    expect(r.status, `${what}: ${r.text}\n--- gns3.log (tail) ---\n${gns3?.log().slice(-3000)}`).to.equal(status);
  };

  it("delays PC1→PC2 only, by netemu's command on the switch port towards PC2, and keeps it through link re-creation and project close/open", async () => {
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-"));
    const udpStart = 34000 + (process.pid % 20) * 100;
    netemu = createNetemu({ logLevel: "silent", dataPlaneWorkers: 1, settings: { host: "127.0.0.2", port: 0, configDir: dir, projectsPath: join(dir, "projects"), udpPortRange: { start: udpStart, end: udpStart + 99 } } });
    const { port } = await netemu.listen(0, "127.0.0.2");
    const server = `http://127.0.0.2:${port}`;
    const g = (gns3 = await Gns3Server.start());
    ok(await g.request("POST", "/v2/computes", { compute_id: "netemu", name: "netemu", protocol: "http", host: "127.0.0.2", port }), 201, "add netemu as a compute");
    await waitUntil("netemu connected", async () => ((await g.request("GET", "/v2/computes/netemu")).json?.connected === true ? true : undefined), 15_000);

    const p = (await g.request("POST", "/v2/projects", { name: "impair-lab" })).json.project_id as string;
    const node = async (body: Record<string, unknown>): Promise<string> => {
      const r = await g.request("POST", `/v2/projects/${p}/nodes`, body);
      ok(r, 201, `node ${JSON.stringify(body)}`);
      return r.json.node_id;
    };
    const sw = await node({ name: "Switch1", node_type: "ethernet_switch", compute_id: "netemu", console_type: "none" });
    const pc1 = await node({ name: "PC1", node_type: "vpcs", compute_id: "local" });
    const pc2 = await node({ name: "PC2", node_type: "vpcs", compute_id: "local" });
    const link = async (a: string, portA: number, b: string, portB: number): Promise<string> => {
      const r = await g.request("POST", `/v2/projects/${p}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: portA }, { node_id: b, adapter_number: 0, port_number: portB }] });
      ok(r, 201, "link");
      return r.json.link_id;
    };
    await link(pc1, 0, sw, 0);
    const towardsPc2 = await link(sw, 2, pc2, 0);

    /** Starts every node, opens both consoles and gives the PCs their addresses (VPCS forgets them when closed). */
    let c1: VpcsConsole;
    const startLab = async (): Promise<void> => {
      await Promise.all(consoles.splice(0).map((c) => c.close()));
      ok(await g.request("POST", `/v2/projects/${p}/nodes/start`), 204, "start all");
      const open = async (id: string): Promise<VpcsConsole> => {
        const n = (await g.request("GET", `/v2/projects/${p}/nodes/${id}`)).json;
        const con = await VpcsConsole.connect(n.console, n.console_host);
        consoles.push(con);
        return con;
      };
      const [a, b] = await Promise.all([open(pc1), open(pc2)]);
      await Promise.all([a.setIp("10.0.0.1/24"), b.setIp("10.0.0.2/24")]);
      c1 = a;
      // PC1's first ping after a start is now and then "host (10.0.0.2) not reachable" (its ARP not
      // answered: once in a clean-clone CI run, about once in 15 runs of the VPCS labs, cause not found):
      // the lab is measured once PC2 answers at all, up to three tries of one echo.
      for (let i = 0; i < 3 && (await a.ping("10.0.0.2", 1)).replies === 0; i++);
    };
    const measured: string[] = [];
    const rtt = async (what: string): Promise<number> => {
      const r = await c1.ping("10.0.0.2", 5);
      expect(r.replies, `${what}: ${r.output}`).to.be.at.least(3);
      measured.push(`${what} ${median(r.rttsMs)}`);
      return median(r.rttsMs);
    };
    await startLab();
    const plain = await rtt("no impairment");
    expect(plain, "a plain round trip through netemu").to.be.below(DELAY_MS / 2);

    // What a GNS3 user types, the names as the GUI shows them: the switch port towards PC2, frames out to PC2.
    const set = await netemuImpair(["--server", server, "--project", "impair-lab", "--node", "Switch1", "--port", "Ethernet2", "--out", `delay=${DELAY_MS}`, "--out", "bandwidth=1000"]);
    expect(set, set.err).to.deep.include({ code: 0 });
    expect(set.out).to.contain("out: bandwidth=1000 delay=250");
    const oneWay = await rtt("delay out towards PC2");
    expect(oneWay, "the echo request waits, the reply does not").to.be.within(DELAY_MS, DELAY_MS + DELAY_MS / 2);

    // The other direction too: the round trip doubles, so the first setting acted one way only.
    expect((await netemuImpair(["--server", server, "--project", "impair-lab", "--node", "Switch1", "--port", "Ethernet2", "--in", `delay=${DELAY_MS}`])).code).to.equal(0);
    expect(await rtt("delay both ways"), "both ways").to.be.at.least(2 * DELAY_MS);
    expect((await netemuImpair(["--server", server, "--project", "impair-lab", "--node", "Switch1", "--port", "Ethernet2", "--clear-in"])).code).to.equal(0);
    expect(await rtt("back to one way")).to.be.within(DELAY_MS, DELAY_MS + DELAY_MS / 2);

    // GNS3 deletes the link and makes it again: a new NIO on netemu's port, the impairment on it.
    ok(await g.request("DELETE", `/v2/projects/${p}/links/${towardsPc2}`), 204, "delete the link to PC2");
    await link(sw, 2, pc2, 0);
    expect(await rtt("after the link was made again"), "still delayed one way").to.be.within(DELAY_MS, DELAY_MS + DELAY_MS / 2);

    // Closed and opened: GNS3 deletes the project on netemu and makes it again, nodes and NIOs anew.
    ok(await g.request("POST", `/v2/projects/${p}/close`), 204, "close");
    expect(await netemu.useCases.listComputeProjects.execute(), "closed on netemu too").to.deep.equal([]);
    ok(await g.request("POST", `/v2/projects/${p}/open`), 201, "open");
    await startLab();
    expect(await rtt("after close and open"), "still delayed one way").to.be.within(DELAY_MS, DELAY_MS + DELAY_MS / 2);

    const listed = await netemuImpair(["list", "--server", server, "--json"]);
    const [impairment] = JSON.parse(listed.out) as { filters_out: unknown; filters_in: unknown }[];
    expect([impairment?.filters_in, impairment?.filters_out]).to.deep.equal([{}, { bandwidth: [1000], delay: [DELAY_MS] }]);

    // The bandwidth limit, measurable with VPCS when it is the whole story: at 8 kbit/s a 98-byte echo
    // request takes 98 ms to leave towards PC2 (the reply, the other way, is not limited).
    const slow = await netemuImpair(["--server", server, "--project", "impair-lab", "--node", "Switch1", "--port", "Ethernet2", "--out", "bandwidth=8,1000"]);
    expect(slow.out).to.contain("out: bandwidth=8,1000");
    expect(await rtt("8 kbit/s towards PC2"), "98 bytes at 8 kbit/s").to.be.within(90, DELAY_MS);

    // Cleared: the round trip is plain again.
    expect((await netemuImpair(["clear", "--server", server, "--project", "impair-lab"])).code).to.equal(0);
    expect(await rtt("cleared")).to.be.below(DELAY_MS / 2);
    ok(await g.request("DELETE", `/v2/projects/${p}`), 204, "delete project");
    // The figures, for docs/benchmarks-style reading; the assertions above are what the test checks.
    console.log(`      median VPCS round trips (ms): ${measured.join("; ")}`);
  });
});
