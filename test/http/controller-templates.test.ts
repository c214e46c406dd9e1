import { expect } from "chai";
import { hostname } from "node:os";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";

const SWITCH_TEMPLATE = "1966b864-93e7-32d5-965f-001384eec461";
const HUB_TEMPLATE = "b4503ea9-d6b6-3695-9fe4-1db3b39290b0";
const VPCS_TEMPLATE = "19021f99-e36f-394d-b4a1-8aaa902ab9cc";
const CLOUD_TEMPLATE = "39e257dc-8412-3174-b6b3-0ee3ed6a43e9";
const NAT_TEMPLATE = "df8f4ea9-33b7-3e96-86a2-c39bc9bb649c";

/** GNS3 2.2.59's answers for its two built-in templates, recorded from the real server. */
const GNS3_SWITCH_TEMPLATE = {
  builtin: true,
  category: "switch",
  compute_id: null,
  console_type: "none",
  default_name_format: "Switch{0}",
  name: "Ethernet switch",
  symbol: ":/symbols/ethernet_switch.svg",
  template_id: SWITCH_TEMPLATE,
  template_type: "ethernet_switch",
};
/** GNS3 2.2.59's built-in VPCS template (`template_manager.py`), as its Template.__json__ answers it. */
const GNS3_VPCS_TEMPLATE = {
  builtin: true,
  category: "guest",
  compute_id: null,
  default_name_format: "PC{0}",
  name: "VPCS",
  properties: { base_script_file: "vpcs_base_config.txt" },
  symbol: ":/symbols/vpcs_guest.svg",
  template_id: VPCS_TEMPLATE,
  template_type: "vpcs",
};
const GNS3_CLOUD_TEMPLATE = {
  builtin: true,
  category: "guest",
  compute_id: null,
  default_name_format: "Cloud{0}",
  name: "Cloud",
  symbol: ":/symbols/cloud.svg",
  template_id: CLOUD_TEMPLATE,
  template_type: "cloud",
};
const GNS3_HUB_TEMPLATE = {
  builtin: true,
  category: "switch",
  compute_id: null,
  default_name_format: "Hub{0}",
  name: "Ethernet hub",
  symbol: ":/symbols/hub.svg",
  template_id: HUB_TEMPLATE,
  template_type: "ethernet_hub",
};

/** netemu's own Linux host template (ADR 0087): its id uuid3(NAMESPACE_DNS, "netemu_host"), as GNS3 derives its built-ins'. */
const LINUX_HOST_TEMPLATE = "49c9e132-ed0b-3d47-99ef-9c6b462e1c42";
const NETEMU_LINUX_HOST_TEMPLATE = {
  builtin: true,
  category: "guest",
  compute_id: null,
  default_name_format: "Host{0}",
  name: "Linux host",
  symbol: ":/symbols/linux_guest.svg",
  template_id: LINUX_HOST_TEMPLATE,
  template_type: "netemu_host",
};

describe("HTTP: what gns3fy reaches beyond projects, nodes and links (templates, computes, stats, a node's links)", () => {
  let s: TestServer;
  let projectId: string;
  const fromTemplate = (templateId: string, body: unknown, project = projectId) => s.request("POST", `/v2/projects/${project}/templates/${templateId}`, body);
  const nodeCount = async () => ((await s.request("GET", `/v2/projects/${projectId}/nodes`)).json as unknown[]).length;

  beforeEach(async () => {
    s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() } });
    projectId = (await s.request("POST", "/v2/projects", { name: "lab" })).json.project_id;
  });
  afterEach(async () => s.close());

  describe("templates", () => {
    it("lists GNS3's built-in Cloud, VPCS, Ethernet switch and hub templates with their ids and fields, in GNS3's order, then netemu's Linux host, and only those", async () => {
      const r = await s.request("GET", "/v2/templates");
      expect(r.status).to.equal(200);
      expect(r.headers.get("x-route")).to.equal("/v2/templates");
      expect(r.json).to.deep.equal([GNS3_CLOUD_TEMPLATE, GNS3_VPCS_TEMPLATE, GNS3_SWITCH_TEMPLATE, GNS3_HUB_TEMPLATE, NETEMU_LINUX_HOST_TEMPLATE]);
    });

    it("answers one template by id, and GNS3's 404 for any other id (NAT's included: netemu does not run it)", async () => {
      expect((await s.request("GET", `/v2/templates/${CLOUD_TEMPLATE}`)).json).to.deep.equal(GNS3_CLOUD_TEMPLATE);
      expect((await s.request("GET", `/v2/templates/${HUB_TEMPLATE}`)).json).to.deep.equal(GNS3_HUB_TEMPLATE);
      expect((await s.request("GET", `/v2/templates/${VPCS_TEMPLATE}`)).json).to.deep.equal(GNS3_VPCS_TEMPLATE);
      expect((await s.request("GET", `/v2/templates/${LINUX_HOST_TEMPLATE}`)).json).to.deep.equal(NETEMU_LINUX_HOST_TEMPLATE);
      for (const id of [NAT_TEMPLATE, "xyz"]) {
        const r = await s.request("GET", `/v2/templates/${id}`);
        expect(r.json).to.deep.equal({ message: `Template ID ${id} doesn't exist`, status: 404 });
      }
    });
  });

  describe("a node from a template", () => {
    it("makes an Ethernet switch named from the template's format, numbered within the project, with the template's id", async () => {
      const first = await fromTemplate(SWITCH_TEMPLATE, { x: 10, y: -20, compute_id: "local" });
      expect(first.status).to.equal(201);
      expect(first.json).to.deep.include({
        name: "Switch1", node_type: "ethernet_switch", compute_id: "local", template_id: SWITCH_TEMPLATE, console_type: "none",
        symbol: ":/symbols/ethernet_switch.svg", x: 10, y: -20, z: 1, status: "started",
      });
      expect(first.json.label.text).to.equal("Switch1");
      expect(first.json.ports).to.have.length(8);
      const second = await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" });
      expect(second.json.name).to.equal("Switch2");
      // The switch runs on the compute under the same id, and GET says the template.
      expect((await s.request("GET", `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${first.json.node_id}`)).json.name).to.equal("Switch1");
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes/${first.json.node_id}`)).json.template_id).to.equal(SWITCH_TEMPLATE);
    });

    it("makes a stopped Linux host from netemu's template, named Host1, with one interface eth0 and no address", async () => {
      const made = await fromTemplate(LINUX_HOST_TEMPLATE, { x: 0, y: 0, compute_id: "local" });
      expect(made.status, made.text).to.equal(201);
      expect(made.json).to.deep.include({ name: "Host1", node_type: "netemu_host", template_id: LINUX_HOST_TEMPLATE, symbol: ":/symbols/linux_guest.svg", status: "stopped", console_type: "none", console: null });
      expect(made.json.properties).to.deep.equal({ ports_mapping: [{ name: "eth0", port_number: 0 }], interfaces: [{ name: "eth0" }], gateway: null });
    });

    it("takes the first free number, and a name given by the client as it is", async () => {
      await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "Hub1", node_type: "ethernet_hub", compute_id: "local" });
      const hub = await fromTemplate(HUB_TEMPLATE, { x: 0, y: 0, compute_id: "local" });
      expect(hub.json).to.deep.include({ name: "Hub2", node_type: "ethernet_hub", template_id: HUB_TEMPLATE, symbol: ":/symbols/hub.svg", console_type: null });
      const named = await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, name: "core", compute_id: "local" });
      expect(named.json.name).to.equal("core");
    });

    it("gives concurrent creates from one template different names", async () => {
      const made = await Promise.all([1, 2, 3, 4].map(() => fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" })));
      expect(made.map((r) => r.json.name as string).sort()).to.deep.equal(["Switch1", "Switch2", "Switch3", "Switch4"]);
    });

    it("keeps the template's id in the node a client lists and updates", async () => {
      const node = (await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" })).json;
      const updated = await s.request("PUT", `/v2/projects/${projectId}/nodes/${node.node_id}`, { name: "renamed" });
      expect(updated.json).to.deep.include({ name: "renamed", template_id: SWITCH_TEMPLATE });
      const listed = (await s.request("GET", `/v2/projects/${projectId}/nodes`)).json as { template_id: unknown }[];
      expect(listed.map((n) => n.template_id)).to.deep.equal([SWITCH_TEMPLATE]);
    });

    it("refuses GNS3's other built-in templates with 409, as a node of their type, making nothing", async () => {
      const r = await fromTemplate(NAT_TEMPLATE, { x: 0, y: 0, compute_id: "local" });
      expect(r.json).to.deep.equal({ message: "Node type nat is not supported: netemu runs ethernet_hub, ethernet_switch, vpcs, cloud, netemu_host nodes only", status: 409 });
      expect(await nodeCount()).to.equal(0);
    });

    it("answers GNS3's 404 for an unknown template, project or compute (an absent compute is Python's None), making nothing", async () => {
      expect((await fromTemplate("00000000-0000-0000-0000-000000000000", { x: 0, y: 0, compute_id: "local" })).json)
        .to.deep.equal({ message: "Template 00000000-0000-0000-0000-000000000000 doesn't exist", status: 404 });
      expect((await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" }, "nope")).json).to.deep.equal({ message: "Project ID nope doesn't exist", status: 404 });
      expect((await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "vm" })).json).to.deep.equal({ message: "Compute ID vm doesn't exist", status: 404 });
      expect((await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0 })).json).to.deep.equal({ message: "Compute ID None doesn't exist", status: 404 });
      expect(await nodeCount()).to.equal(0);
    });

    it("refuses a body GNS3's TEMPLATE_USAGE_SCHEMA refuses (no x or y, an unknown key, an empty name) with its 400", async () => {
      const cases: [unknown, string][] = [
        [{ x: 10 }, "'y' is a required property"],
        [{ x: 0, y: 0, bogus: 1 }, "Additional properties are not allowed ('bogus' was unexpected)"],
        [{ x: "0", y: 0 }, "'0' is not of type 'integer'"],
        [{ x: 0, y: 0, name: "", compute_id: "local" }, "should be non-empty"],
        [[1], "is not of type 'object'"],
      ];
      for (const [body, message] of cases) {
        const r = await fromTemplate(SWITCH_TEMPLATE, body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.json.message, JSON.stringify(body)).to.include(message);
        expect(r.json.path).to.equal("/v2/projects/{project_id}/templates/{template_id}");
      }
      expect(await nodeCount()).to.equal(0);
    });

    it("answers 403 on a closed project", async () => {
      await s.request("POST", `/v2/projects/${projectId}/close`);
      expect((await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" })).json).to.deep.equal({ message: "The project is not opened", status: 403 });
    });
  });

  describe("computes", () => {
    it("lists the local compute, itself, connected, with its capabilities and load", async () => {
      const r = await s.request("GET", "/v2/computes");
      expect(r.status).to.equal(200);
      const [local] = r.json as Record<string, unknown>[];
      expect(r.json).to.have.length(1);
      expect(local).to.deep.include({
        compute_id: "local", connected: true, host: "127.0.0.1", port: s.netemu.settings.port, protocol: "http", user: null, last_error: null, name: hostname(),
        capabilities: { node_types: ["ethernet_hub", "ethernet_switch", "vpcs", "cloud"], platform: process.platform, version: "2.2.59" },
      });
      expect(local?.["cpu_usage_percent"]).to.be.a("number");
      expect(local?.["memory_usage_percent"]).to.be.a("number");
      expect(Object.keys(local ?? {}).sort()).to.deep.equal(["capabilities", "compute_id", "connected", "cpu_usage_percent", "host", "last_error", "memory_usage_percent", "name", "port", "protocol", "user"]);
    });

    it("answers the local compute by id, and GNS3's 404 for any other", async () => {
      expect((await s.request("GET", "/v2/computes/local")).json).to.deep.include({ compute_id: "local", connected: true });
      expect((await s.request("GET", "/v2/computes/nope")).json).to.deep.equal({ message: "Compute ID nope doesn't exist", status: 404 });
    });

    it("names the configured user when the server asks for logins", async () => {
      const authed = await startTestServer({ settings: { auth: { enabled: true, user: "admin", password: "secret" } } });
      try {
        const r = await authed.request("GET", "/v2/computes/local", undefined, { Authorization: `Basic ${Buffer.from("admin:secret").toString("base64")}` });
        expect(r.json.user).to.equal("admin");
      } finally {
        await authed.close();
      }
    });
  });

  describe("project stats", () => {
    it("counts the nodes and links of an opened project, with no drawings or snapshots", async () => {
      expect((await s.request("GET", `/v2/projects/${projectId}/stats`)).json).to.deep.equal({ drawings: 0, links: 0, nodes: 0, snapshots: 0 });
      const a = (await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" })).json.node_id;
      const b = (await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" })).json.node_id;
      await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 1 }, { node_id: b, adapter_number: 0, port_number: 1 }] });
      const r = await s.request("GET", `/v2/projects/${projectId}/stats`);
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({ drawings: 0, links: 1, nodes: 2, snapshots: 0 });
    });

    it("counts nothing in a closed project, as GNS3 does, and 404 for an unknown one", async () => {
      await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" });
      await s.request("POST", `/v2/projects/${projectId}/close`);
      expect((await s.request("GET", `/v2/projects/${projectId}/stats`)).json).to.deep.equal({ drawings: 0, links: 0, nodes: 0, snapshots: 0 });
      expect((await s.request("GET", "/v2/projects/nope/stats")).json).to.deep.equal({ message: "Project ID nope doesn't exist", status: 404 });
    });
  });

  describe("a node's links", () => {
    it("lists the links with an end on the node, as plain link objects", async () => {
      const [a, b, c] = await Promise.all([1, 2, 3].map(async () => (await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" })).json.node_id as string));
      const link = async (x: string, y: string, port: number) =>
        (await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: x, adapter_number: 0, port_number: port }, { node_id: y, adapter_number: 0, port_number: port }] })).json;
      const ab = await link(a as string, b as string, 1);
      const bc = await link(b as string, c as string, 2);
      const ofB = await s.request("GET", `/v2/projects/${projectId}/nodes/${b}/links`);
      expect(ofB.status).to.equal(200);
      expect((ofB.json as { link_id: string }[]).map((l) => l.link_id).sort()).to.deep.equal([ab.link_id, bc.link_id].sort());
      const ofA = (await s.request("GET", `/v2/projects/${projectId}/nodes/${a}/links`)).json as Record<string, unknown>[];
      expect(ofA).to.deep.equal([ab]);
      expect(ofA[0]).to.not.have.property("ports_statistics");
    });

    it("answers [] for a node without links, 404 for an unknown node and 403 on a closed project", async () => {
      const a = (await fromTemplate(SWITCH_TEMPLATE, { x: 0, y: 0, compute_id: "local" })).json.node_id;
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes/${a}/links`)).json).to.deep.equal([]);
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes/nope/links`)).json).to.deep.equal({ message: "Node ID nope doesn't exist", status: 404 });
      await s.request("POST", `/v2/projects/${projectId}/close`);
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes/${a}/links`)).json).to.deep.equal({ message: "The project is not opened", status: 403 });
    });
  });
});
