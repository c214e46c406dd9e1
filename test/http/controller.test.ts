import { expect } from "chai";
import { readFileSync } from "node:fs";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { UdpPortPool } from "../../src/application/ports/udp-port-pool.js";

const AVAILABLE_FILTERS = readFileSync(new URL("../../../test/fixtures/gns3-available-filters.json", import.meta.url), "utf8");

describe("HTTP: controller projects, nodes and links", () => {
  let s: TestServer;
  let dataPlane: FakeDataPlane;
  let projectId: string;
  let sw1: string;
  let sw2: string;

  const createLink = (a: number, b: number, extra: Record<string, unknown> = {}) =>
    s.request("POST", `/v2/projects/${projectId}/links`, {
      nodes: [
        { node_id: sw1, adapter_number: 0, port_number: a },
        { node_id: sw2, adapter_number: 0, port_number: b },
      ],
      ...extra,
    });

  beforeEach(async () => {
    dataPlane = new FakeDataPlane();
    s = await startTestServer({ overrides: { dataPlane } });
    projectId = (await s.request("POST", "/v2/projects", { name: "lab" })).json.project_id;
    sw1 = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
    sw2 = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "SW2", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
  });
  afterEach(async () => s.close());

  describe("projects", () => {
    it("creates a project with GNS3's fields and defaults", async () => {
      const r = await s.request("POST", "/v2/projects", { name: "anchor-links" });
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.include({
        auto_close: true, auto_open: false, auto_start: false, drawing_grid_size: 25, filename: "anchor-links.gns3",
        grid_size: 75, name: "anchor-links", scene_height: 1000, scene_width: 2000, show_grid: false,
        show_interface_labels: false, show_layers: false, snap_to_grid: false, status: "opened", supplier: null, variables: null, zoom: 100,
      });
      expect(r.json.path).to.equal(`${s.netemu.settings.projectsPath}/${r.json.project_id}`);
    });

    it("lists, gets and refuses a second project with the same name", async () => {
      expect((await s.request("GET", "/v2/projects")).json.map((p: { name: string }) => p.name)).to.deep.equal(["lab"]);
      expect((await s.request("GET", `/v2/projects/${projectId}`)).json.name).to.equal("lab");
      const dup = await s.request("POST", "/v2/projects", { name: "lab" });
      expect(dup.status).to.equal(409);
      expect(dup.json).to.deep.equal({ message: 'Project "lab" already exists', status: 409 });
    });

    it("answers 404 for unknown ids without checking their syntax", async () => {
      for (const id of ["notauuid", "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"]) {
        const r = await s.request("GET", `/v2/projects/${id}`);
        expect(r.json).to.deep.equal({ message: `Project ID ${id} doesn't exist`, status: 404 });
      }
    });

    it("refuses a project without name", async () => {
      const r = await s.request("POST", "/v2/projects", {});
      expect(r.status).to.equal(400);
      expect(r.json.message).to.include("'name' is a required property");
    });

    it("closes a project with 204 and no body, as GNS3 does (releasing its live NIOs, 403 on its nodes and links), and opens it again as it was", async () => {
      const link = (await createLink(1, 1, { filters: { delay: [10, 0] } })).json;
      expect(dataPlane.attached.size).to.equal(2);
      const closed = await s.request("POST", `/v2/projects/${projectId}/close`);
      expect(closed.status).to.equal(204);
      expect(closed.text).to.equal("");
      expect((await s.request("GET", `/v2/projects/${projectId}`)).json.status).to.equal("closed");
      expect(dataPlane.attached.size).to.equal(0);
      const forbidden = await s.request("GET", `/v2/projects/${projectId}/links/${link.link_id}`);
      expect(forbidden.json).to.deep.equal({ message: "The project is not opened", status: 403 });
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes`)).status).to.equal(403);
      const opened = await s.request("POST", `/v2/projects/${projectId}/open`);
      expect(opened.status).to.equal(201);
      expect(opened.json.status).to.equal("opened");
      expect(dataPlane.attached.size).to.equal(2);
      expect(dataPlane.attached.get(`${sw1}/1`)).to.deep.include({ filters: { delay: [10, 0] } });
      expect((await s.request("GET", `/v2/projects/${projectId}/links/${link.link_id}`)).json.filters).to.deep.equal({ delay: [10, 0] });
    });

    it("deletes a project with its nodes and links, freeing every port", async () => {
      await createLink(1, 1);
      expect((await s.request("DELETE", `/v2/projects/${projectId}`)).status).to.equal(204);
      expect(dataPlane.attached.size).to.equal(0);
      expect((await s.request("GET", `/v2/projects/${projectId}`)).status).to.equal(404);
      expect((await s.request("GET", `/v2/compute/projects/${projectId}`)).status).to.equal(404);
    });
  });

  describe("nodes", () => {
    it("creates an Ethernet switch node on the local compute with GNS3's node fields", async () => {
      const r = await s.request("GET", `/v2/projects/${projectId}/nodes/${sw1}`);
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.include({ compute_id: "local", name: "SW1", node_type: "ethernet_switch", status: "started", port_name_format: "Ethernet{0}" });
      expect(r.json.ports[3]).to.deep.equal({
        adapter_number: 0, data_link_types: { Ethernet: "DLT_EN10MB" }, link_type: "ethernet", name: "Ethernet3", port_number: 3, short_name: "e3",
      });
      expect(r.json.properties.ports_mapping).to.have.length(8);
      const compute = await s.request("GET", `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${sw1}`);
      expect(compute.json.name).to.equal("SW1");
    });

    it("takes ports_mapping from properties", async () => {
      const r = await s.request("POST", `/v2/projects/${projectId}/nodes`, {
        name: "T", node_type: "ethernet_switch", compute_id: "local",
        properties: { ports_mapping: [{ name: "Ethernet0", port_number: 0, type: "dot1q", vlan: 1 }] },
      });
      expect(r.status).to.equal(201);
      expect(r.json.ports).to.have.length(1);
    });

    it("hands a VPCS's startup script in properties to the compute, which keeps it as the node's startup.vpc", async () => {
      const r = await s.request("POST", `/v2/projects/${projectId}/nodes`, {
        name: "PC1", node_type: "vpcs", compute_id: "local",
        properties: { startup_script: "ip 10.0.0.1/24 10.0.0.254\n" },
      });
      expect(r.status).to.equal(201);
      expect(readFileSync(`${r.json.node_directory as string}/startup.vpc`, "utf8")).to.equal("ip 10.0.0.1/24 10.0.0.254\n");
    });

    it("refuses a VPCS's startup script that is not a string", async () => {
      const r = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "PC1", node_type: "vpcs", compute_id: "local", properties: { startup_script: 5 } });
      expect(r.status).to.equal(400);
      expect(r.json.message).to.include("5 is not of type 'string'");
    });

    it("refuses other node types, other computes and bad bodies", async () => {
      const qemu = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "R1", node_type: "qemu", compute_id: "local" });
      expect(qemu.json).to.deep.equal({ message: "Node type qemu is not supported: netemu runs ethernet_hub, ethernet_switch, vpcs, cloud, netemu_host nodes only", status: 409 });
      const remote = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "S", node_type: "ethernet_switch", compute_id: "vm" });
      expect(remote.json).to.deep.equal({ message: "Compute ID vm doesn't exist", status: 404 });
      const bad = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "S", node_type: "ethernet_switch" });
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.include("'compute_id' is a required property");
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes`)).json).to.have.length(2);
    });

    it("updates a node's name, position and ports on the compute at once", async () => {
      const r = await s.request("PUT", `/v2/projects/${projectId}/nodes/${sw1}`, {
        name: "Core", x: 10, y: 20,
        properties: { ports_mapping: [{ name: "x", port_number: 4, type: "dot1q", vlan: 1 }, { name: "y", port_number: 9, type: "access", vlan: 10 }] },
      });
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.include({ name: "Core", x: 10, y: 20 });
      expect(r.json.properties.ports_mapping[1]).to.deep.equal({ name: "Ethernet1", port_number: 1, type: "access", vlan: 10 });
      expect(dataPlane.updated.map((n) => n.nodeId)).to.deep.equal([sw1]);
    });

    it("deletes a node with its links", async () => {
      await createLink(1, 1);
      expect((await s.request("DELETE", `/v2/projects/${projectId}/nodes/${sw1}`)).status).to.equal(204);
      expect((await s.request("GET", `/v2/projects/${projectId}/links`)).json).to.deep.equal([]);
      expect(dataPlane.attached.size).to.equal(0);
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes/${sw1}`)).json).to.deep.equal({ message: `Node ID ${sw1} doesn't exist`, status: 404 });
    });

    it("stops, suspends, reloads and starts a node, answering it with the status its switch has", async () => {
      const base = `/v2/projects/${projectId}/nodes/${sw1}`;
      for (const [action, status] of [["stop", "stopped"], ["suspend", "suspended"], ["reload", "started"], ["stop", "stopped"], ["start", "started"]] as const) {
        const r = await s.request("POST", `${base}/${action}`, {});
        expect(r.status, action).to.equal(200);
        expect(r.json.status, action).to.equal(status);
        expect((await s.request("GET", base)).json.status, `GET after ${action}`).to.equal(status);
      }
      expect(dataPlane.updated.map((n) => n.status), "reload is a stop then a start").to.deep.equal(["stopped", "suspended", "stopped", "started", "stopped", "started"]);
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes/${sw2}`)).json.status, "the other node is untouched").to.equal("started");
    });

    it("stops and starts every node of a project with 204", async () => {
      expect((await s.request("POST", `/v2/projects/${projectId}/nodes/stop`, {})).status).to.equal(204);
      const stopped = (await s.request("GET", `/v2/projects/${projectId}/nodes`)).json as { status: string }[];
      expect(stopped.map((n) => n.status)).to.deep.equal(["stopped", "stopped"]);
      expect((await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
      expect(((await s.request("GET", `/v2/projects/${projectId}/nodes`)).json as { status: string }[]).map((n) => n.status)).to.deep.equal(["started", "started"]);
    });

    it("answers 404 for an unknown node or project and 403 on a closed project when asked to start", async () => {
      const unknown = "00000000-0000-4000-8000-000000000000";
      expect((await s.request("POST", `/v2/projects/${projectId}/nodes/${unknown}/start`, {})).json).to.deep.equal({ message: `Node ID ${unknown} doesn't exist`, status: 404 });
      expect((await s.request("POST", `/v2/projects/${unknown}/nodes/start`, {})).status).to.equal(404);
      await s.request("POST", `/v2/projects/${projectId}/close`);
      expect((await s.request("POST", `/v2/projects/${projectId}/nodes/${sw1}/start`, {})).status).to.equal(403);
      expect((await s.request("POST", `/v2/projects/${projectId}/nodes/stop`, {})).status).to.equal(403);
    });
  });

  describe("links", () => {
    it("wires a nio_udp on each switch port pointing at the other, each on a reserved UDP port", async () => {
      const r = await createLink(1, 2);
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.include({ capture_compute_id: null, capture_file_name: null, capture_file_path: null, capturing: false, filters: {}, link_style: {}, link_type: "ethernet", suspend: false, project_id: projectId });
      expect(r.json.nodes[0]).to.deep.equal({
        adapter_number: 0, node_id: sw1, port_number: 1,
        label: { style: "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;", text: "0/1" },
      });
      const a = dataPlane.attached.get(`${sw1}/1`);
      const b = dataPlane.attached.get(`${sw2}/2`);
      if (a?.type !== "nio_udp" || b?.type !== "nio_udp") throw new Error("both ends must be UDP NIOs");
      expect(a.rport).to.equal(b.lport);
      expect(b.rport).to.equal(a.lport);
      expect(a.rhost).to.equal("127.0.0.1");
    });

    it("refuses a port already linked, a link to itself and unknown ends, wiring nothing", async () => {
      const first = (await createLink(1, 1)).json.link_id as string;
      const used = await createLink(1, 3);
      expect(used.json).to.deep.equal({
        message: `Port is already used: SW1 port 0/1 (Ethernet1) is an end of link ${first} to SW2 port 0/1 (Ethernet1); delete that link first, or pick a free port`,
        status: 409,
      });
      const self = await s.request("POST", `/v2/projects/${projectId}/links`, {
        nodes: [{ node_id: sw1, adapter_number: 0, port_number: 5 }, { node_id: sw1, adapter_number: 0, port_number: 5 }],
      });
      expect(self.json).to.deep.equal({ message: "Cannot connect to itself", status: 409 });
      const missing = await s.request("POST", `/v2/projects/${projectId}/links`, {
        nodes: [{ node_id: sw1, adapter_number: 0, port_number: 5 }, { node_id: "nope", adapter_number: 0, port_number: 5 }],
      });
      expect(missing.json).to.deep.equal({ message: "Node ID nope doesn't exist", status: 404 });
      const badPort = await createLink(9, 5);
      expect(badPort.json).to.deep.equal({
        message: "Port 0/9 for SW1 not found: SW1 has 8 ports: 0/0 (Ethernet0), 0/1 (Ethernet1), 0/2 (Ethernet2), 0/3 (Ethernet3), 0/4 (Ethernet4), 0/5 (Ethernet5), 0/6 (Ethernet6), 0/7 (Ethernet7)",
        status: 404,
      });
      expect(dataPlane.attached.size).to.equal(2);
      expect((await s.request("GET", `/v2/projects/${projectId}/links`)).json).to.have.length(1);
    });

    it("removes the first NIO when the second end fails, and frees both UDP ports", async () => {
      const pool = s.netemu.settings.udpPortRange;
      for (let p = pool.start; p <= pool.end; p++) if (p % 2 === 1) dataPlane.refusedLports.add(p);
      const r = await createLink(1, 1);
      expect(r.status).to.equal(409);
      expect(s.netemu.container.resolve<UdpPortPool>(TOKENS.UdpPortPool).reserved()).to.deep.equal([]);
      expect(dataPlane.attached.size).to.equal(0);
      expect((await s.request("GET", `/v2/projects/${projectId}/links`)).json).to.deep.equal([]);
    });

    it("answers GNS3's five filter descriptors for every link, byte for byte", async () => {
      const link = (await createLink(1, 1)).json;
      const r = await s.request("GET", `/v2/projects/${projectId}/links/${link.link_id}/available_filters`);
      expect(r.status).to.equal(200);
      expect(r.headers.get("content-type")).to.equal("application/json");
      expect(r.text).to.equal(AVAILABLE_FILTERS);
      expect(Buffer.byteLength(r.text)).to.equal(2119);
    });

    it("lists netemu's impairments after GNS3's five when the server is set to, each renderable by a GNS3 filter dialog", async () => {
      const extended = await startTestServer({ settings: { extendedFilters: true } });
      try {
        const p = (await extended.request("POST", "/v2/projects", { name: "extended" })).json.project_id as string;
        const node = async (name: string) => (await extended.request("POST", `/v2/projects/${p}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local" })).json.node_id as string;
        const [a, b] = [await node("A"), await node("B")];
        const link = (await extended.request("POST", `/v2/projects/${p}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 0 }, { node_id: b, adapter_number: 0, port_number: 0 }] })).json;
        const filters = (await extended.request("GET", `/v2/projects/${p}/links/${link.link_id}/available_filters`)).json as { type: string; parameters: { type: string; minimum?: number; maximum?: number; unit?: string }[] }[];
        expect(filters.map((f) => f.type)).to.deep.equal(["frequency_drop", "packet_loss", "delay", "corrupt", "bpf", "bandwidth", "burst_loss", "duplicate", "reorder", "delay_distribution", "delay_correlation", "loss_correlation", "corrupt_correlation", "duplicate_correlation", "reorder_correlation", "match", "queue_discipline", "capacity_trace", "delay_trace", "loss_trace"]);
        expect(JSON.stringify(filters.slice(0, 5))).to.equal(JSON.stringify(JSON.parse(AVAILABLE_FILTERS)));
        // GNS3's dialogs draw an int parameter from its minimum, maximum and unit, a text one as a text box.
        for (const p of filters.slice(5).flatMap((f) => f.parameters)) {
          if (p.type === "int") expect(p).to.include.keys("minimum", "maximum", "unit");
          else expect(p.type).to.equal("text");
        }
        // And a link takes them, whatever the listing says.
        const put = await extended.request("PUT", `/v2/projects/${p}/links/${link.link_id}`, { filters: { bandwidth: [10_000, 100], burst_loss: [2, 25], duplicate: [1], queue_discipline: ["fq_codel target 5ms"] } });
        expect(put.json.filters).to.deep.equal({ bandwidth: [10_000, 100], burst_loss: [2, 25], duplicate: [1], queue_discipline: ["fq_codel target 5ms"] });
        // A discipline that does not read is refused with what is wrong in it.
        const bad = await extended.request("PUT", `/v2/projects/${p}/links/${link.link_id}`, { filters: { bandwidth: [10_000], queue_discipline: ["fq_codel flows 0"] } });
        expect(bad.status).to.equal(400);
        expect(bad.json.message).to.equal("Filter queue_discipline: flows must be between 1 and 65536, got 0");
      } finally {
        await extended.close();
      }
    });

    it("carries netemu's one-way filters per link end to that end's outgoing frames, and shows them on the end", async () => {
      const r = await s.request("POST", `/v2/projects/${projectId}/links`, {
        nodes: [
          { node_id: sw1, adapter_number: 0, port_number: 4, filters: { bandwidth: [2000] } },
          { node_id: sw2, adapter_number: 0, port_number: 4, filters: { delay: [80] } },
        ],
        filters: { packet_loss: [1] },
      });
      expect(r.status, r.text).to.equal(201);
      expect(r.json.nodes.map((n: { filters?: unknown }) => n.filters)).to.deep.equal([{ bandwidth: [2000] }, { delay: [80] }]);
      expect(dataPlane.attached.get(`${sw1}/4`)).to.deep.include({ filters: { packet_loss: [1] }, filtersOut: { bandwidth: [2000] } });
      expect(dataPlane.attached.get(`${sw2}/4`)).to.deep.include({ filters: {}, filtersOut: { delay: [80] } });
      // PUT replaces one end's, and an end without any shows no key (as GNS3's).
      const put = await s.request("PUT", `/v2/projects/${projectId}/links/${r.json.link_id}`, { nodes: [{ node_id: sw2, adapter_number: 0, port_number: 4, filters: {} }] });
      expect(put.status, put.text).to.equal(201);
      expect(put.json.nodes[1]).to.not.have.property("filters");
      expect(dataPlane.attached.get(`${sw2}/4`)).to.not.have.property("filtersOut");
      const bad = await s.request("PUT", `/v2/projects/${projectId}/links/${r.json.link_id}`, { nodes: [{ node_id: sw1, adapter_number: 0, port_number: 4, filters: { delay: [99999] } }] });
      expect(bad.status).to.equal(400);
      expect(dataPlane.attached.get(`${sw1}/4`)).to.deep.include({ filtersOut: { bandwidth: [2000] } });
    });

    it("answers 404 for available_filters of unknown projects and links", async () => {
      expect((await s.request("GET", `/v2/projects/nope/links/x/available_filters`)).json).to.deep.equal({ message: "Project ID nope doesn't exist", status: 404 });
      expect((await s.request("GET", `/v2/projects/${projectId}/links/x/available_filters`)).json).to.deep.equal({ message: "Link ID x doesn't exist", status: 404 });
    });

    it("updates filters with GNS3's normalisation and pushes them to the first end", async () => {
      const link = (await createLink(1, 1)).json;
      const r = await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, {
        filters: { delay: [300, 30], packet_loss: [0], bpf: ["  \n "], corrupt: [], frequency_drop: [5] },
      });
      expect(r.status).to.equal(201);
      expect(r.json.filters).to.deep.equal({ delay: [300, 30], frequency_drop: [5] });
      expect(dataPlane.attached.get(`${sw1}/1`)).to.deep.include({ filters: { delay: [300, 30], frequency_drop: [5] } });
      expect(dataPlane.attached.get(`${sw2}/1`)).to.deep.include({ filters: {} });
    });

    it("clears all filters with the web UI's reset", async () => {
      const link = (await createLink(1, 1, { filters: { corrupt: [10] } })).json;
      const reset = { bpf: [], corrupt: [0], delay: [0, 0], frequency_drop: [0], packet_loss: [0] };
      const r = await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, { filters: reset });
      expect(r.json.filters).to.deep.equal({});
    });

    it("accepts the whole GET object back as a PUT body, as the web UI sends it", async () => {
      const link = (await createLink(1, 1)).json;
      const r = await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, { ...link, filters: { packet_loss: [20] } });
      expect(r.status).to.equal(201);
      expect(r.json.filters).to.deep.equal({ packet_loss: [20] });
    });

    it("suspends both ends, sending frequency_drop -1 to the first, and resumes", async () => {
      const link = (await createLink(1, 1, { filters: { delay: [10] } })).json;
      const r = await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, { suspend: true });
      expect(r.json.suspend).to.equal(true);
      expect(r.json.filters).to.deep.equal({ delay: [10] });
      expect(dataPlane.attached.get(`${sw1}/1`)).to.deep.include({ suspend: true, filters: { frequency_drop: [-1] } });
      expect(dataPlane.attached.get(`${sw2}/1`)).to.deep.include({ suspend: true });
      await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, { suspend: false });
      expect(dataPlane.attached.get(`${sw1}/1`)).to.deep.include({ suspend: false, filters: { delay: [10] } });
    });

    it("updates link_style and end labels", async () => {
      const link = (await createLink(1, 1)).json;
      const label = { text: "Hello", x: 64, y: 0, rotation: 0, style: null };
      const r = await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, {
        link_style: { color: "#ff0000", width: 2, type: 1 },
        nodes: [{ node_id: sw1, adapter_number: 0, port_number: 1, label }],
      });
      expect(r.json.link_style).to.deep.equal({ color: "#ff0000", width: 2, type: 1 });
      expect(r.json.nodes[0].label).to.deep.equal(label);
    });

    for (const [what, filters, message] of [
      ["packet_loss 150", { packet_loss: [150] }, "Filter packet_loss: Chance must be between 0 and 100 %, got 150"],
      ["frequency_drop -5", { frequency_drop: [-5] }, "Filter frequency_drop: Frequency must be an integer between -1 and 32767 th packet, got -5"],
      ["delay 40000", { delay: [40000] }, "Filter delay: Latency must be between 0 and 32767 ms, got 40000"],
      ["an unknown filter", { latency: [10] }, "Unknown filter type 'latency'; the filter types are frequency_drop, packet_loss, delay, corrupt, bpf, bandwidth, burst_loss, duplicate, reorder, delay_distribution, delay_correlation, loss_correlation, corrupt_correlation, duplicate_correlation, reorder_correlation, match, queue_discipline, capacity_trace, delay_trace, loss_trace"],
      ["a string value without a unit", { delay: ["300"] }, 'Filter delay: Latency "300" is not a time; give a number of ms, or a time with its unit: us, ms or s (500us, 1.5ms, 2s)'],
      ["a chance finer than 0.01 %", { packet_loss: ["0.001%"] }, 'Filter packet_loss: Chance is finer than netemu takes (0.01 %), got "0.001%"'],
      ["a float finer than 0.01 %", { corrupt: [1.555] }, "Filter corrupt: Chance is finer than netemu takes (0.01 %), got 1.555"],
      ["a rate unit netemu does not read", { bandwidth: ["10xbit"] }, 'Filter bandwidth: Rate "10xbit" has a unit netemu does not read (xbit); give a number of kbit/s, or a rate with its unit: bit, kbit, mbit, gbit, or bytes/s as bps, kbps, mbps, gbps (kibit, mibit, gibit, kibps, mibps, gibps for powers of 1024), e.g. 10mbit'],
      ["a negative delay", { delay: ["-1ms"] }, 'Filter delay: Latency must be between 0 and 32767 ms, got "-1ms" (-1 ms)'],
      ["null", { delay: [null] }, "Filter delay: Latency must be a number of ms, or a time with its unit: us, ms or s (500us, 1.5ms, 2s), got null"],
      ["too many values", { packet_loss: [1, 2] }, "Filter packet_loss takes 1 value(s) (Chance), got 2"],
      ["a non-list", { delay: 10 }, "Filter delay: the values must be a list, got 10"],
      // The trace link is tail drop only (ADR 0103, 2026-11-26): refused, not ignored.
      ["codel beside a capacity trace", { capacity_trace: ["lte.down"], queue_discipline: ["codel"] }, "Filter queue_discipline codel and capacity_trace cannot be set together: a capacity trace's link is tail drop only, so codel would not run; drop queue_discipline, or use bandwidth instead of capacity_trace"],
    ] as const) {
      it(`refuses ${what} with 400 naming the filter and changes nothing`, async () => {
        const link = (await createLink(1, 1, { filters: { corrupt: [3] } })).json;
        const r = await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, { filters });
        expect(r.status).to.equal(400);
        expect(r.json.message).to.equal(message);
        expect(r.json.path).to.equal("/v2/projects/{project_id}/links/{link_id}");
        expect((await s.request("GET", `/v2/projects/${projectId}/links/${link.link_id}`)).json.filters).to.deep.equal({ corrupt: [3] });
        expect(dataPlane.attached.get(`${sw1}/1`)).to.deep.include({ filters: { corrupt: [3] } });
      });
    }

    it("takes netem's granularity on GNS3's kinds and netemu's, answering each value in the catalogue's unit (ADR 0101)", async () => {
      const link = (await createLink(1, 1)).json;
      const r = await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, { filters: { packet_loss: ["0.5%"], delay: ["500us", 0.25], corrupt: [0.01], bandwidth: ["10mbit"] } });
      expect(r.status).to.equal(201);
      const canonical = { packet_loss: [0.5], delay: [0.5, 0.25], corrupt: [0.01], bandwidth: [10_000] };
      expect(r.json.filters).to.deep.equal(canonical);
      expect(dataPlane.attached.get(`${sw1}/1`)).to.deep.include({ filters: canonical });
      expect((await s.request("GET", `/v2/projects/${projectId}/links/${link.link_id}`)).json.filters).to.deep.equal(canonical);
    });

    it("answers a GNS3 client's integer filters as GNS3 does, byte for byte", async () => {
      const link = (await createLink(1, 1)).json;
      const r = await s.request("PUT", `/v2/projects/${projectId}/links/${link.link_id}`, { filters: { delay: [200, 20], packet_loss: [5], corrupt: [1], frequency_drop: [3] } });
      expect(r.text).to.include('"filters": {\n        "corrupt": [\n            1\n        ],\n        "delay": [\n            200,\n            20\n        ],\n        "frequency_drop": [\n            3\n        ],\n        "packet_loss": [\n            5\n        ]\n    }');
    });

    it("compiles bpf expressions when they are set, refusing a bad line with its number", async () => {
      const link = (await createLink(1, 1)).json;
      const path = `/v2/projects/${projectId}/links/${link.link_id}`;
      const ok = await s.request("PUT", path, { filters: { bpf: ["icmp\ntcp src port 53"] } });
      expect(ok.status).to.equal(201);
      expect(ok.json.filters).to.deep.equal({ bpf: ["icmp\ntcp src port 53"] });
      const bad = await s.request("PUT", path, { filters: { bpf: ["icmp\nthis is not bpf"] } });
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.match(/^Invalid BPF expression on line 2: /);
      expect((await s.request("GET", path)).json.filters).to.deep.equal({ bpf: ["icmp\ntcp src port 53"] });
      const live = await s.request("PUT", path, { filters: { bpf: ["gateway 10.0.0.1"] } });
      expect(live.status).to.equal(400);
    });

    it("refuses malformed PUT bodies as GNS3's schema does", async () => {
      const link = (await createLink(1, 1)).json;
      const path = `/v2/projects/${projectId}/links/${link.link_id}`;
      expect((await s.request("PUT", path, { filters: [] })).json.message).to.include("[] is not of type 'object'");
      expect((await s.request("PUT", path, { suspend: "yes" })).json.message).to.include("'yes' is not of type 'boolean'");
      expect((await s.request("PUT", path, { foo: 1 })).json.message).to.include("Additional properties are not allowed ('foo' was unexpected)");
      expect((await s.request("PUT", path, { nodes: [{ node_id: sw1, adapter_number: 0 }] })).json.message).to.include("'port_number' is a required property");
      expect((await s.request("PUT", path, { nodes: [{ node_id: "zzz", adapter_number: 0, port_number: 1 }] })).json).to.deep.equal({ message: "Node ID zzz doesn't exist", status: 404 });
    });

    it("deletes a link, removing both NIOs and freeing the ports for a new link", async () => {
      const link = (await createLink(1, 1)).json;
      expect((await s.request("DELETE", `/v2/projects/${projectId}/links/${link.link_id}`)).status).to.equal(204);
      expect(dataPlane.attached.size).to.equal(0);
      expect((await s.request("DELETE", `/v2/projects/${projectId}/links/${link.link_id}`)).status).to.equal(404);
      expect((await createLink(1, 1)).status).to.equal(201);
    });
  });
});
