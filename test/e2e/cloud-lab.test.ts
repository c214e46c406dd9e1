import { expect } from "chai";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { GNS3_PEER_VPCS, VpcsConsole } from "../support/vpcs-console.js";
import { OutsideHost } from "../support/outside-host.js";
import { freeUdpPort } from "../support/udp-peer.js";

const CLOUD_TEMPLATE = "39e257dc-8412-3174-b6b3-0ee3ed6a43e9";
const VPCS_TEMPLATE = "19021f99-e36f-394d-b4a1-8aaa902ab9cc";
const SWITCH_TEMPLATE = "1966b864-93e7-32d5-965f-001384eec461";

interface Node {
  readonly node_id: string;
  readonly node_type: string;
  readonly name: string;
  readonly console: number;
  readonly properties: Record<string, unknown>;
}

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * GNS3's Cloud on netemu's own controller, as the GUI builds it: a Cloud from the built-in template,
 * its ports set to one UDP tunnel in its dialog (a PUT of its properties), linked to a switch with a
 * VPCS; an emulator outside the lab joins through the tunnel; the .gns3 file keeps the cloud as GNS3
 * writes it, and a restart wires it again (ADR 0082).
 */
describe("end to end: a Cloud from GNS3's template joins an emulator outside to a netemu lab", function () {
  this.timeout(120_000);
  let s: TestServer | undefined;
  let configDir: string;
  const closers: (() => unknown)[] = [];

  before(function () {
    if (!existsSync(GNS3_PEER_VPCS)) this.skip();
  });
  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "netemu-cloud-lab-"));
  });
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    await s?.close();
    s = undefined;
    rmSync(configDir, { recursive: true, force: true });
  });

  const serve = async (): Promise<TestServer> => (s = await startTestServer({ persistProjects: true, settings: { configDir, vpcsPath: GNS3_PEER_VPCS } }));
  const server = (): TestServer => s as TestServer;

  /** The VPCS answers the outside's ARP request through the switch and the cloud's tunnel. */
  async function reachable(outside: OutsideHost, lport: number, projectId: string): Promise<void> {
    expect((await server().request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    const pc = ((await server().request("GET", `/v2/projects/${projectId}/nodes`)).json as Node[]).find((n) => n.node_type === "vpcs") as Node;
    const c = await VpcsConsole.open(pc.console);
    closers.push(() => c.close());
    await c.command("ip 10.0.0.1/24");
    const before = outside.arpRepliesFrom("10.0.0.1").length;
    await outside.send(outside.arpRequest("10.0.0.1"), lport);
    await until("the VPCS's ARP reply at the outside", () => outside.arpRepliesFrom("10.0.0.1").length > before);
    const ping = await c.ping("10.0.0.9", 3);
    expect(ping.replies, ping.output).to.be.at.least(2);
  }

  it("builds the lab from the templates, carries frames to the outside, writes the cloud in the .gns3 file and wires it again after a restart", async () => {
    await serve();
    const outside = await OutsideHost.open();
    closers.push(() => outside.close());
    const lport = await freeUdpPort();
    const projectId = (await server().request("POST", "/v2/projects", { name: "cloudy" })).json.project_id as string;
    const made = async (template: string, x: number): Promise<Node> => {
      const r = await server().request("POST", `/v2/projects/${projectId}/templates/${template}`, { x, y: 0, compute_id: "local" });
      expect(r.status, r.text).to.equal(201);
      return r.json as Node;
    };
    const cloud = await made(CLOUD_TEMPLATE, -200);
    // GNS3 2.2.59's answer for the same request (seen on the peer): no console, files under project-files/builtin.
    expect(cloud).to.deep.include({ name: "Cloud1", node_type: "cloud", status: "started", console: null, console_type: null, symbol: ":/symbols/cloud.svg" });
    expect((cloud as unknown as { node_directory: string }).node_directory).to.match(new RegExp(`/project-files/builtin/${cloud.node_id}$`));
    expect(cloud.properties).to.include({ remote_console_host: "", remote_console_port: 23, remote_console_type: "none", remote_console_http_path: "/" });
    // The template's cloud has one port per host interface that is not special, as GNS3's has.
    const hostPorts = cloud.properties["ports_mapping"] as { type: string; interface: string }[];
    expect(hostPorts.every((p) => p.type === "ethernet" || p.type === "tap")).to.equal(true);
    const tunnel = { name: "UDP tunnel 1", port_number: 0, type: "udp", lport, rhost: "127.0.0.1", rport: outside.port };
    const remote = { remote_console_host: "192.0.2.7", remote_console_port: 2323, remote_console_type: "telnet", remote_console_http_path: "/" };
    const configured = await server().request("PUT", `/v2/projects/${projectId}/nodes/${cloud.node_id}`, { properties: { ...cloud.properties, ports_mapping: [tunnel], ...remote } });
    expect(configured.status, configured.text).to.equal(200);
    expect(configured.json.properties).to.include(remote);
    expect(configured.json.properties.ports_mapping).to.deep.equal([tunnel]);
    const pc = await made(VPCS_TEMPLATE, 200);
    const sw = await made(SWITCH_TEMPLATE, 0);
    for (const [node, port] of [[cloud, 0], [pc, 1]] as const) {
      const r = await server().request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: node.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: port }] });
      expect(r.status, r.text).to.equal(201);
    }
    // Linked, its ports cannot change: GNS3's words.
    const refused = await server().request("PUT", `/v2/projects/${projectId}/nodes/${cloud.node_id}`, { properties: { ports_mapping: [{ ...tunnel, rport: 1 }] } });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.json.message).to.match(/Cannot modify a cloud that is already connected/);
    await reachable(outside, lport, projectId);

    const file = join(configDir, "projects", projectId, "cloudy.gns3");
    await until("the cloud's link in the .gns3 file", () => existsSync(file) && JSON.parse(readFileSync(file, "utf8")).topology.links.length === 2);
    const entry = (JSON.parse(readFileSync(file, "utf8")).topology.nodes as Record<string, unknown>[]).find((n) => n["name"] === "Cloud1");
    expect(entry).to.deep.include({ node_type: "cloud", compute_id: "local", template_id: CLOUD_TEMPLATE, symbol: ":/symbols/cloud.svg", console: null, console_type: null });
    expect(entry?.["properties"]).to.deep.equal({ ports_mapping: [tunnel], ...remote });

    for (const c of closers.splice(1)) await c();
    await server().close();
    s = undefined;
    await serve();
    expect((await server().request("POST", `/v2/projects/${projectId}/open`, {})).status).to.equal(201);
    const reopened = ((await server().request("GET", `/v2/projects/${projectId}/nodes`)).json as Node[]).find((n) => n.node_type === "cloud") as Node;
    expect(reopened.properties).to.deep.equal({ ports_mapping: [tunnel], ...remote });
    await reachable(outside, lport, projectId);
  });
});
