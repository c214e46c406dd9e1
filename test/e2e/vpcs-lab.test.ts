import { expect } from "chai";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { GNS3_PEER_VPCS, VpcsConsole } from "../support/vpcs-console.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { HostProcesses } from "../../src/application/ports/host-processes.js";
import { Gns3Server, requireGns3Peer } from "../support/gns3-peer.js";
import { OutsideHost } from "../support/outside-host.js";
import { freeUdpPort } from "../support/udp-peer.js";

const VPCS_TEMPLATE = "19021f99-e36f-394d-b4a1-8aaa902ab9cc";
const SWITCH_TEMPLATE = "1966b864-93e7-32d5-965f-001384eec461";
const CLOUD_TEMPLATE = "39e257dc-8412-3174-b6b3-0ee3ed6a43e9";

/** A controller's API as both servers answer it. */
interface ControllerApi {
  request(method: string, path: string, body?: unknown): Promise<{ readonly status: number; readonly json: any; readonly text: string }>;
}

/** A PC's console as the steps type into it (netemu's VPCS directly, GNS3's through its telnet proxy). */
interface PcConsole {
  address(cidr: string): Promise<void>;
  ping(ip: string, count: number): Promise<{ readonly replies: number; readonly output: string }>;
}

/**
 * The GUI's steps for a Cloud (ADR 0082), the same on netemu and on GNS3 2.2.59: a Cloud from the
 * built-in template, its ports set to one UDP tunnel in its dialog (a PUT of its properties), linked to
 * a PC from the VPCS template, started; an emulator outside (a UDP socket) gets the PC's ARP reply and
 * answers its pings through the tunnel.
 */
async function cloudJoinsOutside(api: ControllerApi, open: (node: Node & { console_host?: string }) => Promise<PcConsole>, closers: (() => unknown)[]): Promise<void> {
  const outside = await OutsideHost.open();
  closers.push(() => outside.close());
  const lport = await freeUdpPort();
  const projectId = (await api.request("POST", "/v2/projects", { name: "cloud" })).json.project_id as string;
  const made = async (template: string, x: number) => {
    const r = await api.request("POST", `/v2/projects/${projectId}/templates/${template}`, { x, y: 0, compute_id: "local" });
    expect(r.status, r.text).to.equal(201);
    return r.json as Node & Record<string, any>;
  };
  const cloud = await made(CLOUD_TEMPLATE, -200);
  expect(cloud).to.deep.include({ name: "Cloud1", node_type: "cloud", status: "started", symbol: ":/symbols/cloud.svg" });
  const tunnel = { name: "UDP tunnel 1", port_number: 0, type: "udp", lport, rhost: "127.0.0.1", rport: outside.port };
  const configured = await api.request("PUT", `/v2/projects/${projectId}/nodes/${cloud.node_id}`, { properties: { ...cloud.properties, ports_mapping: [tunnel] } });
  expect(configured.status, configured.text).to.equal(200);
  expect(configured.json.properties.ports_mapping).to.deep.equal([tunnel]);
  expect(configured.json.ports.map((p: { name: string; port_number: number }) => [p.name, p.port_number])).to.deep.equal([["UDP tunnel 1", 0]]);
  const pc = await made(VPCS_TEMPLATE, 200);
  const link = await api.request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: cloud.node_id, adapter_number: 0, port_number: 0 }, { node_id: pc.node_id, adapter_number: 0, port_number: 0 }] });
  expect(link.status, link.text).to.equal(201);
  expect((await api.request("POST", `/v2/projects/${projectId}/nodes/${pc.node_id}/start`, {})).status).to.be.oneOf([200, 204]);
  const c = await open((await api.request("GET", `/v2/projects/${projectId}/nodes/${pc.node_id}`)).json);
  await c.address("10.0.0.1/24");
  await outside.send(outside.arpRequest("10.0.0.1"), lport);
  const deadline = Date.now() + 5000;
  while (outside.arpRepliesFrom("10.0.0.1").length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(outside.arpRepliesFrom("10.0.0.1"), "the PC's ARP reply at the outside").to.have.length.at.least(1);
  const ping = await c.ping("10.0.0.9", 3);
  expect(ping.replies, ping.output).to.be.at.least(2);
  expect((await api.request("POST", `/v2/projects/${projectId}/close`, {})).status).to.equal(204);
}

interface Node {
  readonly node_id: string;
  readonly name: string;
  readonly console: number;
  readonly status: string;
  readonly node_type: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The project's file once it holds what the project has (the store writes it shortly after each change). */
async function fileWith(path: string, ready: (file: { topology: { nodes: unknown[]; links: unknown[] } }) => boolean): Promise<{ topology: { nodes: Record<string, unknown>[]; links: unknown[] } }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const file = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
    if (file !== undefined && ready(file)) return file;
    if (Date.now() > deadline) throw new Error(`${path} did not get there within 10 s: ${JSON.stringify(file)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * GNS3's "hello world" on netemu's own controller, as the GUI builds it: two VPCS from GNS3's built-in
 * template and an Ethernet switch, links, start all, pings typed into the VPCS consoles, a link delay
 * seen in the ping times, close and open, and a restart of the server (ADR 0081).
 */
describe("end to end: a VPCS lab built on netemu's controller as the GNS3 GUI builds it (real VPCS 0.8.3)", function () {
  this.timeout(180_000);
  let configDir: string;
  let s: TestServer | undefined;
  const consoles: VpcsConsole[] = [];

  before(function () {
    if (!existsSync(GNS3_PEER_VPCS)) this.skip();
  });

  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "netemu-vpcs-lab-"));
  });

  afterEach(async () => {
    for (const c of consoles.splice(0)) c.close();
    await s?.close();
    s = undefined;
    rmSync(configDir, { recursive: true, force: true });
  });

  const serve = async (): Promise<TestServer> => (s = await startTestServer({ persistProjects: true, settings: { configDir, vpcsPath: GNS3_PEER_VPCS } }));
  const server = (): TestServer => s as TestServer;
  const nodes = async (projectId: string): Promise<Node[]> => (await server().request("GET", `/v2/projects/${projectId}/nodes`)).json;
  const pids = (list: readonly Node[]): number[] => list.flatMap((n) => server().netemu.container.resolve<HostProcesses>(TOKENS.HostProcesses).pidOf(n.node_id) ?? []);

  /** Opens each PC's console and gives it its address (10.0.0.<i+1>/24): the consoles in PC1, PC2 order. */
  async function addressed(projectId: string): Promise<VpcsConsole[]> {
    const pcs = (await nodes(projectId)).filter((n) => n.node_type === "vpcs").sort((a, b) => a.name.localeCompare(b.name));
    const opened: VpcsConsole[] = [];
    for (const [i, pc] of pcs.entries()) {
      const c = await VpcsConsole.open(pc.console);
      consoles.push(c);
      const out = await c.command(`ip 10.0.0.${i + 1}/24`);
      expect(out, out).to.match(new RegExp(` : 10\\.0\\.0\\.${i + 1} 255\\.255\\.255\\.0`));
      opened.push(c);
    }
    return opened;
  }

  async function buildLab(): Promise<{ projectId: string; links: string[] }> {
    const projectId = (await server().request("POST", "/v2/projects", { name: "hello" })).json.project_id as string;
    const made = async (template: string, x: number) => {
      const r = await server().request("POST", `/v2/projects/${projectId}/templates/${template}`, { x, y: 0, compute_id: "local" });
      expect(r.status, r.text).to.equal(201);
      return r.json as Node & Record<string, unknown>;
    };
    const pc1 = await made(VPCS_TEMPLATE, -200);
    const pc2 = await made(VPCS_TEMPLATE, 200);
    const sw = await made(SWITCH_TEMPLATE, 0);
    expect([pc1.name, pc2.name, sw.name]).to.deep.equal(["PC1", "PC2", "Switch1"]);
    expect(pc1).to.deep.include({ node_type: "vpcs", status: "stopped", console_type: "telnet", console_host: "127.0.0.1", template_id: VPCS_TEMPLATE, properties: {}, symbol: ":/symbols/vpcs_guest.svg", command_line: "" });
    expect(pc1.ports).to.deep.equal([{ adapter_number: 0, data_link_types: { Ethernet: "DLT_EN10MB" }, link_type: "ethernet", name: "Ethernet0", port_number: 0, short_name: "e0" }]);
    expect(pc1.console).to.be.within(5000, 10000);
    expect(readFileSync(`${pc1.node_directory as string}/startup.vpc`, "utf8")).to.include("set pcname PC1");
    const links: string[] = [];
    for (const [pc, port] of [[pc1, 0], [pc2, 1]] as const) {
      const r = await server().request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: pc.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: port }] });
      expect(r.status, r.text).to.equal(201);
      links.push(r.json.link_id);
    }
    return { projectId, links };
  }

  it("pings between two VPCS through a switch, shows a link delay in the ping times, and pings again after close and open", async () => {
    await serve();
    const { projectId, links } = await buildLab();
    expect((await server().request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    const started = await nodes(projectId);
    expect(started.map((n) => n.status)).to.deep.equal(["started", "started", "started"]);
    const [pc1] = await addressed(projectId);
    const before = await (pc1 as VpcsConsole).ping("10.0.0.2", 3);
    expect(before.replies, before.output).to.be.at.least(2);

    // 100 ms on PC1's link, both ways (GNS3's link filter on its first end): the round trip gains 200 ms.
    expect((await server().request("PUT", `/v2/projects/${projectId}/links/${links[0]}`, { filters: { delay: [100] } })).status).to.equal(201);
    const delayed = await (pc1 as VpcsConsole).ping("10.0.0.2", 3);
    expect(delayed.replies, delayed.output).to.be.at.least(2);
    // The fastest echoes compared (the first of a run may wait for ARP): at least 180 ms more, at most 600.
    expect(Math.min(...delayed.rttsMs) - Math.min(...before.rttsMs), `${before.output}\n${delayed.output}`).to.be.within(180, 600);

    const running = pids(started);
    expect(running).to.have.length(2);
    expect((await server().request("POST", `/v2/projects/${projectId}/close`, {})).status).to.equal(204);
    expect(running.filter(alive), "no VPCS left after close").to.deep.equal([]);
    for (const c of consoles.splice(0)) c.close();

    expect((await server().request("POST", `/v2/projects/${projectId}/open`, {})).status).to.equal(201);
    const reopened = await nodes(projectId);
    expect(reopened.filter((n) => n.node_type === "vpcs").map((n) => n.status)).to.deep.equal(["stopped", "stopped"]);
    expect(reopened.map((n) => n.console).slice(0, 2)).to.deep.equal(started.map((n) => n.console).slice(0, 2));
    expect((await server().request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    const [again] = await addressed(projectId);
    const after = await (again as VpcsConsole).ping("10.0.0.2", 3);
    expect(after.replies, after.output).to.be.at.least(2);
    // The delay is the link's: it came back with the project.
    expect(Math.min(...after.rttsMs), after.output).to.be.at.least(180);
  });

  it("writes its VPCS nodes in the .gns3 file as GNS3 does, and wires them again after a server restart", async () => {
    await serve();
    const { projectId } = await buildLab();
    const file = await fileWith(join(configDir, "projects", projectId, "hello.gns3"), (f) => f.topology.links.length === 2);
    const pcEntry = file.topology.nodes.find((n) => n["name"] === "PC1") as Record<string, unknown>;
    expect(pcEntry).to.deep.include({ node_type: "vpcs", console_type: "telnet", properties: {}, compute_id: "local", template_id: VPCS_TEMPLATE });
    expect(pcEntry["console"]).to.be.within(5000, 10000);
    await server().request("POST", `/v2/projects/${projectId}/nodes/start`, {});
    const pidsBefore = pids(await nodes(projectId));
    for (const c of consoles.splice(0)) c.close();
    await server().close();
    s = undefined;
    expect(pidsBefore.filter(alive), "no VPCS left after shutdown").to.deep.equal([]);

    await serve();
    expect((await server().request("POST", `/v2/projects/${projectId}/open`, {})).status).to.equal(201);
    expect((await nodes(projectId)).filter((n) => n.node_type === "vpcs").map((n) => n.status)).to.deep.equal(["stopped", "stopped"]);
    expect((await server().request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    const [pc1] = await addressed(projectId);
    const ping = await (pc1 as VpcsConsole).ping("10.0.0.2", 3);
    expect(ping.replies, ping.output).to.be.at.least(2);
  });

  it("opens the project GNS3 2.2.59 wrote with a switch and two VPCS, and runs it", async () => {
    // Placed before the server starts, as a project a GNS3 user copies in.
    const { cpSync, mkdirSync } = await import("node:fs");
    const dir = join(configDir, "projects", "switch-and-vpcs");
    mkdirSync(dir, { recursive: true });
    cpSync(new URL("../../../../shared/gns3-peer/projects/switch-and-vpcs.gns3", `file://${process.cwd()}/build/test/e2e/`), join(dir, "switch-and-vpcs.gns3"));
    await serve();
    const projectId = "3c1d83c6-c8c6-4a50-b7d0-75f052106429";
    const opened = await server().request("POST", `/v2/projects/${projectId}/open`, {});
    expect(opened.status, opened.text).to.equal(201);
    const list = await nodes(projectId);
    expect(list.map((n) => [n.name, n.node_type]).sort()).to.deep.equal([["PC1", "vpcs"], ["PC2", "vpcs"], ["SW1", "ethernet_switch"]]);
    // Its .gns3 asks for consoles 5000 and 5001: where another program holds one, the 409 says which.
    const started = await server().request("POST", `/v2/projects/${projectId}/nodes/start`, {});
    expect(started.status, started.text).to.equal(204);
    const [pc1] = await addressed(projectId);
    // Its PC1 link loses 10 % (GNS3's packet_loss filter): most of the pings come back.
    const ping = await (pc1 as VpcsConsole).ping("10.0.0.2", 5);
    expect(ping.replies, ping.output).to.be.at.least(2);
  });

  it("joins an emulator outside through a Cloud from GNS3's template with a UDP tunnel port (the steps the GNS3 run below repeats)", async () => {
    await serve();
    const closers: (() => unknown)[] = [];
    try {
      await cloudJoinsOutside(server(), async (n) => {
        const c = await VpcsConsole.open(n.console);
        consoles.push(c);
        return { address: async (cidr) => void (await c.command(`ip ${cidr}`)), ping: (ip, count) => c.ping(ip, count) };
      }, closers);
    } finally {
      for (const close of closers) await close();
    }
  });
});

/** The same lab, the same requests, on the real GNS3 2.2.59 (`../shared/gns3-peer`): what netemu's answers are held to. */
describe("end to end: the same VPCS lab on GNS3 2.2.59 itself", function () {
  this.timeout(240_000);
  let gns3: Gns3Server | undefined;
  const consoles: VpcsConsole[] = [];

  before(function () {
    requireGns3Peer(this);
  });
  afterEach(async () => {
    await Promise.all(consoles.splice(0).map((c) => c.close()));
    await gns3?.stop();
    gns3 = undefined;
  });

  // GNS3's Ethernet switch needs Dynamips, which the peer does not build: its two VPCS are linked back to back.
  it("pings between two VPCS from the template, linked back to back (no Dynamips), shows a link delay, and pings again after close and open", async () => {
    const g = (gns3 = await Gns3Server.start());
    const projectId = (await g.request("POST", "/v2/projects", { name: "hello" })).json.project_id as string;
    const made = async (template: string, x: number) => {
      const r = await g.request("POST", `/v2/projects/${projectId}/templates/${template}`, { x, y: 0, compute_id: "local" });
      expect(r.status, r.text).to.equal(201);
      return r.json as Node & Record<string, unknown>;
    };
    const pc1 = await made(VPCS_TEMPLATE, -200);
    const pc2 = await made(VPCS_TEMPLATE, 200);
    // The fields netemu's test above holds its own answer to.
    expect([pc1.name, pc2.name]).to.deep.equal(["PC1", "PC2"]);
    // GNS3 2.2.59 answers template_id null here, where netemu keeps the template's id (ADR 0062).
    expect(pc1).to.deep.include({ node_type: "vpcs", status: "stopped", console_type: "telnet", console_host: "127.0.0.1", properties: {}, symbol: ":/symbols/vpcs_guest.svg", command_line: "" });
    const link = await g.request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: pc1.node_id, adapter_number: 0, port_number: 0 }, { node_id: pc2.node_id, adapter_number: 0, port_number: 0 }] });
    expect(link.status, link.text).to.equal(201);
    const links = [link.json.link_id as string];
    const run = async (): Promise<VpcsConsole> => {
      expect((await g.request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
      const opened: VpcsConsole[] = [];
      for (const pc of [pc1, pc2]) {
        const n = (await g.request("GET", `/v2/projects/${projectId}/nodes/${pc.node_id}`)).json;
        const c = await VpcsConsole.connect(n.console, n.console_host);
        consoles.push(c);
        opened.push(c);
      }
      // A line typed while GNS3's VPCS still runs its startup file is sometimes lost (seen 1 run in 3): typed once more.
      for (const [i, c] of opened.entries()) await c.setIp(`10.0.0.${i + 1}/24`).catch(() => c.setIp(`10.0.0.${i + 1}/24`));
      return opened[0]!;
    };
    let c1 = await run();
    const before = await c1.ping("10.0.0.2", 3);
    expect(before.replies, before.output).to.be.at.least(2);
    expect((await g.request("PUT", `/v2/projects/${projectId}/links/${links[0]}`, { filters: { delay: [100] } })).status).to.equal(201);
    const delayed = await c1.ping("10.0.0.2", 3);
    expect(delayed.replies, delayed.output).to.be.at.least(2);
    // GNS3 delays on the VPCS's uBridge, both ways: the round trip gains 200 ms as on netemu.
    expect(Math.min(...delayed.rttsMs) - Math.min(...before.rttsMs), `${before.output}\n${delayed.output}`).to.be.within(180, 600);
    await Promise.all(consoles.splice(0).map((c) => c.close()));
    expect((await g.request("POST", `/v2/projects/${projectId}/close`, {})).status).to.equal(204);
    expect((await g.request("POST", `/v2/projects/${projectId}/open`, {})).status).to.equal(201);
    const reopened = (await g.request("GET", `/v2/projects/${projectId}/nodes`)).json as Node[];
    expect(reopened.filter((n) => n.node_type === "vpcs").map((n) => n.status)).to.deep.equal(["stopped", "stopped"]);
    c1 = await run();
    const after = await c1.ping("10.0.0.2", 3);
    expect(after.replies, after.output).to.be.at.least(2);
    expect(Math.min(...after.rttsMs), after.output).to.be.at.least(180);
  });

  it("joins an emulator outside through a Cloud from GNS3's template with a UDP tunnel port (the steps netemu's run above takes)", async () => {
    const g = (gns3 = await Gns3Server.start());
    const closers: (() => unknown)[] = [];
    try {
      await cloudJoinsOutside(g, async (n) => {
        const c = await VpcsConsole.connect(n.console, n.console_host);
        consoles.push(c);
        return { address: (cidr) => c.setIp(cidr).catch(() => c.setIp(cidr)), ping: (ip, count) => c.ping(ip, count) };
      }, closers);
    } finally {
      for (const close of closers) await close();
    }
  });
});
