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
    expect(cloud).to.deep.include({ name: "Cloud1", node_type: "cloud", status: "started" });
    // The template's cloud has one port per host interface that is not special, as GNS3's has.
    const hostPorts = cloud.properties["ports_mapping"] as { type: string; interface: string }[];
    expect(hostPorts.every((p) => p.type === "ethernet" || p.type === "tap")).to.equal(true);
    const tunnel = { name: "UDP tunnel 1", port_number: 0, type: "udp", lport, rhost: "127.0.0.1", rport: outside.port };
    const configured = await server().request("PUT", `/v2/projects/${projectId}/nodes/${cloud.node_id}`, { properties: { ports_mapping: [tunnel] } });
    expect(configured.status, configured.text).to.equal(200);
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
    expect(entry).to.deep.include({ node_type: "cloud", compute_id: "local", template_id: CLOUD_TEMPLATE, symbol: ":/symbols/cloud.svg" });
    expect((entry?.["properties"] as Record<string, unknown>)["ports_mapping"]).to.deep.equal([tunnel]);

    for (const c of closers.splice(1)) await c();
    await server().close();
    s = undefined;
    await serve();
    expect((await server().request("POST", `/v2/projects/${projectId}/open`, {})).status).to.equal(201);
    await reachable(outside, lport, projectId);
  });
});
