import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const PROJECT = "66666666-3333-4444-8555-666666666666";
const UNKNOWN = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const HUBS = `/v2/compute/projects/${PROJECT}/ethernet_hub/nodes`;
const SWITCHES = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`;
const HUB_KEYS = ["name", "node_id", "ports_mapping", "project_id", "status"];
const DEFAULT_PORTS = Array.from({ length: 8 }, (_, i) => ({ name: `Ethernet${i}`, port_number: i }));
const UDP = { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001 };

const A = "00:50:79:66:68:01";
const B = "00:50:79:66:68:02";
const BROADCAST = "ff:ff:ff:ff:ff:ff";

describe("HTTP: Ethernet hubs on the compute", () => {
  let s: TestServer;
  let dataPlane: FakeDataPlane;
  let hubId: string;
  let hub: string;

  beforeEach(async () => {
    dataPlane = new FakeDataPlane();
    s = await startTestServer({ overrides: { dataPlane } });
    await s.request("POST", "/v2/compute/projects", { name: "hubs", project_id: PROJECT });
    const created = await s.request("POST", HUBS, { name: "HUB1" });
    hubId = created.json.node_id;
    hub = `${HUBS}/${hubId}`;
  });
  afterEach(async () => s.close());

  describe("create and get", () => {
    it("creates a started hub with eight ports Ethernet0..7 that have only a name and a number", async () => {
      const r = await s.request("POST", HUBS, { name: "HUB2" });
      expect(r.status).to.equal(201);
      expect(Object.keys(r.json).sort()).to.deep.equal(HUB_KEYS);
      expect(r.json).to.deep.include({ name: "HUB2", project_id: PROJECT, status: "started" });
      expect(r.json.node_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r.json.ports_mapping).to.deep.equal(DEFAULT_PORTS);
    });

    it("keeps a given ports_mapping and node_id verbatim", async () => {
      const ports = [
        { name: "uplink", port_number: 0 },
        { name: "Ethernet5", port_number: 5 },
      ];
      const id = "77777777-3333-4444-8555-666666666666";
      const r = await s.request("POST", HUBS, { name: "HUB2", node_id: id, ports_mapping: ports });
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.equal({ name: "HUB2", node_id: id, ports_mapping: ports, project_id: PROJECT, status: "started" });
    });

    it("answers the existing hub when its node_id is known", async () => {
      const r = await s.request("POST", HUBS, { name: "other", node_id: hubId, ports_mapping: [{ name: "x", port_number: 0 }] });
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.include({ name: "HUB1", node_id: hubId });
      expect(r.json.ports_mapping).to.deep.equal(DEFAULT_PORTS);
    });

    it("refuses a switch's node_id with 409, and a hub's on the switch route", async () => {
      const sw = (await s.request("POST", SWITCHES, { name: "SW1" })).json.node_id;
      const onHub = await s.request("POST", HUBS, { name: "H", node_id: sw });
      expect(onHub.json).to.deep.equal({ message: `Node ID ${sw} is already used by an Ethernet switch`, status: 409 });
      const onSwitch = await s.request("POST", SWITCHES, { name: "S", node_id: hubId });
      expect(onSwitch.json).to.deep.equal({ message: `Node ID ${hubId} is already used by an Ethernet hub`, status: 409 });
      expect((await s.request("GET", `${SWITCHES}/${sw}`)).json.name).to.equal("SW1");
    });

    for (const [what, body, message] of [
      ["a missing name", {}, "'name' is a required property"],
      ["an empty name", { name: "" }, "'' should be non-empty"],
      ["an unknown key", { name: "H", console_type: "none" }, "Additional properties are not allowed ('console_type' was unexpected)"],
      ["a port entry with a type (a hub port has none)", { name: "H", ports_mapping: [{ name: "E0", port_number: 0, type: "access" }] }, "'type' was unexpected"],
      ["a port entry with a VLAN", { name: "H", ports_mapping: [{ name: "E0", port_number: 0, vlan: 1 }] }, "'vlan' was unexpected"],
      ["a port entry without port_number", { name: "H", ports_mapping: [{ name: "E0" }] }, "'port_number' is a required property"],
      ["a negative port number", { name: "H", ports_mapping: [{ name: "E0", port_number: -1 }] }, "-1 is less than the minimum of 0"],
      ["a malformed node_id", { name: "H", node_id: "abc" }, "'abc' is too short"],
    ] as const) {
      it(`refuses ${what} with 400 and creates nothing`, async () => {
        const r = await s.request("POST", HUBS, body);
        expect(r.status).to.equal(400);
        expect(r.json.message).to.include(message);
        expect(r.json).to.deep.include({ method: "POST", path: "/v2/compute/projects/{project_id}/ethernet_hub/nodes" });
        const debug = (await s.request("GET", "/v2/compute/debug")).text;
        expect(debug.match(/^Ethernet hub /gm)).to.have.length(1);
      });
    }

    it("answers 404 for an unknown project and 400 for a malformed one", async () => {
      const unknown = await s.request("POST", `/v2/compute/projects/${UNKNOWN}/ethernet_hub/nodes`, { name: "H" });
      expect(unknown.json).to.deep.equal({ message: `Project ID ${UNKNOWN} doesn't exist`, status: 404 });
      const bad = await s.request("POST", "/v2/compute/projects/abc/ethernet_hub/nodes", { name: "H" });
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.equal("Project ID abc is not a valid UUID");
    });

    it("gets exactly GNS3's hub keys", async () => {
      const r = await s.request("GET", hub);
      expect(r.status).to.equal(200);
      expect(r.headers.get("x-route")).to.equal("/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}");
      expect(r.json).to.deep.equal({ name: "HUB1", node_id: hubId, ports_mapping: DEFAULT_PORTS, project_id: PROJECT, status: "started" });
    });

    it("checks node ids: 400 when malformed, 404 when unknown, 404 when in another project", async () => {
      const bad = await s.request("GET", `${HUBS}/not-a-uuid`);
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.equal("Node ID not-a-uuid is not a valid UUID");
      expect((await s.request("GET", `${HUBS}/${UNKNOWN}`)).json).to.deep.equal({ message: `Node ID ${UNKNOWN} doesn't exist`, status: 404 });
      const other = "88888888-3333-4444-8555-666666666666";
      await s.request("POST", "/v2/compute/projects", { name: "other", project_id: other });
      const foreign = await s.request("GET", `/v2/compute/projects/${other}/ethernet_hub/nodes/${hubId}`);
      expect(foreign.json).to.deep.equal({ message: `Project ID ${other} doesn't belong to node HUB1`, status: 404 });
    });

    it("answers 405 on the collection for GET", async () => {
      const r = await s.request("GET", HUBS);
      expect(r.status).to.equal(405);
      expect(r.headers.get("allow")).to.include("POST");
    });
  });

  describe("update", () => {
    it("renames a hub", async () => {
      const r = await s.request("PUT", hub, { name: "Repeater" });
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({ name: "Repeater", node_id: hubId, ports_mapping: DEFAULT_PORTS, project_id: PROJECT, status: "started" });
      expect((await s.request("GET", hub)).json.name).to.equal("Repeater");
    });

    it("renames and renumbers a new ports_mapping Ethernet<i>, as GNS3 does", async () => {
      const r = await s.request("PUT", hub, {
        ports_mapping: [
          { name: "foo", port_number: 5 },
          { name: "bar", port_number: 9 },
          { name: "baz", port_number: 2 },
        ],
      });
      expect(r.status).to.equal(200);
      expect(r.json.ports_mapping).to.deep.equal([
        { name: "Ethernet0", port_number: 0 },
        { name: "Ethernet1", port_number: 1 },
        { name: "Ethernet2", port_number: 2 },
      ]);
      expect(dataPlane.updated.map((n) => [n.nodeId, n.portsMapping.length])).to.deep.equal([[hubId, 3]]);
      expect((await s.request("POST", `${hub}/adapters/0/ports/5/nio`, UDP)).status, "port 5 is gone").to.equal(404);
    });

    it("accepts back what GET answered (node_id, project_id, status)", async () => {
      const got = (await s.request("GET", hub)).json;
      const r = await s.request("PUT", hub, { ...got, name: "Back" });
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({ ...got, name: "Back" });
    });

    it("refuses a new ports_mapping with 409 once a NIO is attached, but still renames", async () => {
      await s.request("POST", `${hub}/adapters/0/ports/0/nio`, UDP);
      const r = await s.request("PUT", hub, { name: "Changed", ports_mapping: [{ name: "Ethernet0", port_number: 0 }] });
      expect(r.status).to.equal(409);
      expect(r.json).to.deep.equal({ exception: "NodeError", message: "Can't modify a hub already connected.", status: 409 });
      expect((await s.request("GET", hub)).json).to.deep.include({ name: "HUB1", ports_mapping: DEFAULT_PORTS });
      const same = await s.request("PUT", hub, { name: "Renamed", ports_mapping: DEFAULT_PORTS });
      expect(same.status, "the same mapping is no change").to.equal(200);
      const renamed = await s.request("PUT", hub, { name: "Renamed2" });
      expect(renamed.status).to.equal(200);
      expect(renamed.json).to.deep.include({ name: "Renamed2", ports_mapping: DEFAULT_PORTS });
    });

    for (const [what, body, message] of [
      ["a port entry with a type", { ports_mapping: [{ name: "E0", port_number: 0, type: "access", vlan: 1 }] }, "Additional properties are not allowed ('type', 'vlan' were unexpected)"],
      ["a console_type (a hub has no console)", { console_type: "none" }, "'console_type' was unexpected"],
      ["an unknown status", { status: "running" }, "'running' is not one of ['started', 'stopped', 'suspended']"],
      ["an empty name", { name: "" }, "'' should be non-empty"],
    ] as const) {
      it(`refuses ${what} with 400 and changes nothing`, async () => {
        const r = await s.request("PUT", hub, body);
        expect(r.status).to.equal(400);
        expect(r.json.message).to.include(message);
        expect(r.json.path).to.equal("/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}");
        expect((await s.request("GET", hub)).json).to.deep.include({ name: "HUB1", ports_mapping: DEFAULT_PORTS });
        expect(dataPlane.updated).to.deep.equal([]);
      });
    }

    it("answers 404 for an unknown hub", async () => {
      expect((await s.request("PUT", `${HUBS}/${UNKNOWN}`, { name: "X" })).json).to.deep.equal({ message: `Node ID ${UNKNOWN} doesn't exist`, status: 404 });
    });
  });

  describe("delete, duplicate, status", () => {
    it("deletes a hub with its NIOs and releases their UDP ports", async () => {
      await s.request("POST", `${hub}/adapters/0/ports/0/nio`, UDP);
      await s.request("POST", `${hub}/adapters/0/ports/1/nio`, { type: "nio_null" });
      expect((await s.request("GET", "/v2/compute/network/ports")).json.udp_ports).to.deep.equal([20000]);
      const r = await s.request("DELETE", hub);
      expect(r.status).to.equal(204);
      expect(r.text).to.equal("");
      expect(dataPlane.attached.size).to.equal(0);
      expect((await s.request("GET", "/v2/compute/network/ports")).json.udp_ports).to.deep.equal([]);
      expect((await s.request("GET", hub)).status).to.equal(404);
      expect((await s.request("DELETE", hub)).json).to.deep.equal({ message: `Node ID ${hubId} doesn't exist`, status: 404 });
    });

    it("duplicates onto an existing destination hub and answers it", async () => {
      const dest = (await s.request("POST", HUBS, { name: "HUB9" })).json;
      const r = await s.request("POST", `${hub}/duplicate`, { destination_node_id: dest.node_id });
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.equal(dest);
    });

    it("refuses to duplicate without destination (400), onto an unknown node or onto a switch (404)", async () => {
      expect((await s.request("POST", `${hub}/duplicate`, {})).status).to.equal(400);
      expect((await s.request("POST", `${hub}/duplicate`, { destination_node_id: UNKNOWN })).json).to.deep.equal({
        message: `Node ID ${UNKNOWN} doesn't exist`,
        status: 404,
      });
      const sw = (await s.request("POST", SWITCHES, { name: "SW1" })).json.node_id;
      expect((await s.request("POST", `${hub}/duplicate`, { destination_node_id: sw })).json).to.deep.equal({ message: `Node ID ${sw} doesn't exist`, status: 404 });
    });

    it("answers 204 to stop, suspend and start, and its status follows", async () => {
      for (const [action, status] of [["stop", "stopped"], ["suspend", "suspended"], ["start", "started"], ["start", "started"]] as const) {
        const r = await s.request("POST", `${hub}/${action}`);
        expect(r.status, action).to.equal(204);
        expect((await s.request("GET", hub)).json.status, action).to.equal(status);
      }
      expect(dataPlane.updated.map((n) => n.status), "a start of a started hub changes nothing").to.deep.equal(["stopped", "suspended", "started"]);
    });

    it("answers 404 to a status change of an unknown hub", async () => {
      expect((await s.request("POST", `${HUBS}/${UNKNOWN}/stop`)).json).to.deep.equal({ message: `Node ID ${UNKNOWN} doesn't exist`, status: 404 });
    });
  });

  describe("NIOs and captures on hub ports", () => {
    const capture = { capture_file_name: "hub.pcap", data_link_type: "DLT_EN10MB" };

    it("adds a UDP NIO and answers it as GNS3 does", async () => {
      const r = await s.request("POST", `${hub}/adapters/0/ports/3/nio`, UDP);
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.equal(UDP);
      expect(r.headers.get("x-route")).to.equal(
        "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}/nio",
      );
      expect(dataPlane.attached.get(`${hubId}/3`)).to.deep.include({ lport: 20000, filters: {}, suspend: false });
    });

    it("refuses a second NIO on a busy port with 409", async () => {
      await s.request("POST", `${hub}/adapters/0/ports/0/nio`, UDP);
      const r = await s.request("POST", `${hub}/adapters/0/ports/0/nio`, { ...UDP, lport: 20002 });
      expect(r.json).to.deep.equal({
        exception: "NodeError",
        message: "Port 0 isn't free: Ethernet hub HUB1 already has a nio_udp (local UDP port 20000, to 127.0.0.1:20001) on it; delete that NIO first (DELETE .../adapters/0/ports/0/nio)",
        status: 409,
      });
    });

    it("updates a NIO's filters with PUT and echoes them", async () => {
      await s.request("POST", `${hub}/adapters/0/ports/0/nio`, UDP);
      const r = await s.request("PUT", `${hub}/adapters/0/ports/0/nio`, { ...UDP, filters: { packet_loss: [30] }, suspend: true });
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.equal({ ...UDP, filters: { packet_loss: [30] }, suspend: true });
      expect(dataPlane.attached.get(`${hubId}/0`)).to.deep.include({ filters: { packet_loss: [30] }, suspend: true });
      expect((await s.request("PUT", `${hub}/adapters/0/ports/1/nio`, UDP)).json.message).to.equal("Port 1 is not allocated");
    });

    it("deletes a NIO with 204, then answers 409 Port N is not allocated", async () => {
      await s.request("POST", `${hub}/adapters/0/ports/0/nio`, UDP);
      expect((await s.request("DELETE", `${hub}/adapters/0/ports/0/nio`)).status).to.equal(204);
      expect(dataPlane.attached.size).to.equal(0);
      const again = await s.request("DELETE", `${hub}/adapters/0/ports/0/nio`);
      expect(again.json).to.deep.equal({ exception: "NodeError", message: "Port 0 is not allocated", status: 409 });
    });

    it("refuses adapter 1 with a 404 naming the Ethernet hub, on NIO and capture routes", async () => {
      const message = "Adapter 1 doesn't exist on Ethernet hub HUB1: its ports are all on adapter 0";
      for (const [method, path, body] of [
        ["POST", "nio", UDP],
        ["PUT", "nio", UDP],
        ["DELETE", "nio", undefined],
        ["POST", "start_capture", capture],
        ["POST", "stop_capture", undefined],
        ["GET", "pcap", undefined],
      ] as const) {
        const r = await s.request(method, `${hub}/adapters/1/ports/0/${path}`, body);
        expect(r.json, `${method} ${path}`).to.deep.equal({ message, status: 404 });
      }
      expect(dataPlane.attached.size).to.equal(0);
    });

    it("refuses a port outside ports_mapping with 404", async () => {
      const r = await s.request("POST", `${hub}/adapters/0/ports/8/nio`, UDP);
      expect(r.json).to.deep.equal({ message: "Port 8 doesn't exist on Ethernet hub HUB1: it is not in ports_mapping", status: 404 });
      expect(dataPlane.attached.size).to.equal(0);
    });

    it("refuses a bad NIO body with 400", async () => {
      const r = await s.request("POST", `${hub}/adapters/0/ports/0/nio`, { ...UDP, rport: 70000 });
      expect(r.status).to.equal(400);
      expect(r.json.message).to.include("70000 is greater than the maximum of 65535");
      expect(dataPlane.attached.size).to.equal(0);
    });

    it("starts and stops a capture on a hub port", async () => {
      await s.request("POST", `${hub}/adapters/0/ports/2/nio`, { type: "nio_null" });
      const started = await s.request("POST", `${hub}/adapters/0/ports/2/start_capture`, capture);
      expect(started.status).to.equal(200);
      expect(started.json).to.deep.equal({ pcap_file_path: `${s.netemu.settings.projectsPath}/.netemu-compute/${PROJECT}/project-files/captures/hub.pcap` });
      expect(dataPlane.isCapturing(hubId, 2)).to.equal(true);
      const again = await s.request("POST", `${hub}/adapters/0/ports/2/start_capture`, capture);
      expect(again.json).to.deep.equal({ exception: "NodeError", message: "Port 2 has already a filter applied", status: 409 });
      expect((await s.request("POST", `${hub}/adapters/0/ports/2/stop_capture`)).status).to.equal(204);
      expect(dataPlane.isCapturing(hubId, 2)).to.equal(false);
      const pcap = await s.request("GET", `${hub}/adapters/0/ports/2/pcap`);
      expect(pcap.json).to.deep.equal({ message: "Nothing to stream because there is no packet capture active", status: 409 });
    });

    it("answers 409 Port N is not allocated for captures on a port without NIO", async () => {
      for (const [method, path, body] of [["POST", "start_capture", capture], ["POST", "stop_capture", undefined], ["GET", "pcap", undefined]] as const) {
        const r = await s.request(method, `${hub}/adapters/0/ports/4/${path}`, body);
        expect(r.status, path).to.equal(409);
        expect(r.json.message, path).to.equal("Port 4 is not allocated");
      }
    });
  });

  describe("hubs and switches are not each other", () => {
    /** Every route a switch and a hub share under .../nodes/{id}: method, path after the id, body. */
    const nodeRoutes = (id: string) =>
      [
        ["GET", "", undefined],
        ["PUT", "", { name: "X" }],
        ["DELETE", "", undefined],
        ["POST", "/start", undefined],
        ["POST", "/stop", undefined],
        ["POST", "/suspend", undefined],
        ["POST", "/duplicate", { destination_node_id: id }],
        ["POST", "/adapters/0/ports/0/nio", UDP],
        ["PUT", "/adapters/0/ports/0/nio", UDP],
        ["DELETE", "/adapters/0/ports/0/nio", undefined],
        ["POST", "/adapters/0/ports/0/start_capture", { capture_file_name: "x.pcap", data_link_type: "DLT_EN10MB" }],
        ["POST", "/adapters/0/ports/0/stop_capture", undefined],
        ["GET", "/adapters/0/ports/0/pcap", undefined],
      ] as const;

    it("answers 404 for a hub id on every ethernet_switch route", async () => {
      const sw = `${SWITCHES}/${hubId}`;
      for (const [method, path, body] of [...nodeRoutes(hubId), ["GET", "/mac_table", undefined] as const]) {
        const r = await s.request(method, `${sw}${path}`, body);
        expect(r.json, `${method} ${path}`).to.deep.equal({ message: `Node ID ${hubId} doesn't exist`, status: 404 });
      }
      expect((await s.request("GET", hub)).json).to.deep.include({ name: "HUB1", status: "started" });
      expect(dataPlane.attached.size).to.equal(0);
    });

    it("answers 404 for a switch id on every ethernet_hub route", async () => {
      const swId = (await s.request("POST", SWITCHES, { name: "SW1" })).json.node_id;
      const asHub = `${HUBS}/${swId}`;
      for (const [method, path, body] of nodeRoutes(swId)) {
        const r = await s.request(method, `${asHub}${path}`, body);
        expect(r.json, `${method} ${path}`).to.deep.equal({ message: `Node ID ${swId} doesn't exist`, status: 404 });
      }
      expect((await s.request("GET", `${SWITCHES}/${swId}`)).json).to.deep.include({ name: "SW1", status: "started" });
      expect((await s.request("GET", `${HUBS}/${swId}/mac_table`)).status, "a hub has no MAC table route").to.equal(404);
    });
  });

  describe("through the controller API (node_type ethernet_hub)", () => {
    let projectId: string;
    const nodes = () => `/v2/projects/${projectId}/nodes`;

    beforeEach(async () => {
      projectId = (await s.request("POST", "/v2/projects", { name: "hub-lab" })).json.project_id;
    });

    it("creates a hub node with GNS3's hub symbol, no console type and typeless ports", async () => {
      const r = await s.request("POST", nodes(), { name: "HUB-C", node_type: "ethernet_hub", compute_id: "local" });
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.include({ name: "HUB-C", node_type: "ethernet_hub", symbol: ":/symbols/hub.svg", console_type: null, compute_id: "local" });
      expect(r.json.properties.ports_mapping).to.deep.equal(DEFAULT_PORTS);
      expect(r.json.ports).to.have.length(8);
      expect(r.json.ports[7]).to.deep.include({ adapter_number: 0, name: "Ethernet7", port_number: 7, short_name: "e7" });
      const compute = await s.request("GET", `/v2/compute/projects/${projectId}/ethernet_hub/nodes/${r.json.node_id}`);
      expect(compute.json).to.deep.equal({ name: "HUB-C", node_id: r.json.node_id, ports_mapping: DEFAULT_PORTS, project_id: projectId, status: "started" });
    });

    it("takes a hub's ports_mapping from properties", async () => {
      const ports = [{ name: "Ethernet0", port_number: 0 }, { name: "Ethernet1", port_number: 1 }];
      const r = await s.request("POST", nodes(), { name: "H2", node_type: "ethernet_hub", compute_id: "local", properties: { ports_mapping: ports } });
      expect(r.status).to.equal(201);
      expect(r.json.properties.ports_mapping).to.deep.equal(ports);
      expect(r.json.ports).to.have.length(2);
    });

    it("refuses a hub's ports_mapping entry with a type, on create and on update, with 400", async () => {
      const typed = [{ name: "Ethernet0", port_number: 0, type: "access", vlan: 1 }];
      const created = await s.request("POST", nodes(), { name: "H3", node_type: "ethernet_hub", compute_id: "local", properties: { ports_mapping: typed } });
      expect(created.status).to.equal(400);
      expect(created.json.message).to.include("Additional properties are not allowed ('type', 'vlan' were unexpected)");
      const id = (await s.request("POST", nodes(), { name: "H4", node_type: "ethernet_hub", compute_id: "local" })).json.node_id;
      const updated = await s.request("PUT", `${nodes()}/${id}`, { name: "H4b", properties: { ports_mapping: typed } });
      expect(updated.status).to.equal(400);
      expect(updated.json.message).to.include("Additional properties are not allowed ('type', 'vlan' were unexpected)");
      expect((await s.request("GET", `${nodes()}/${id}`)).json).to.deep.include({ name: "H4" });
      expect((await s.request("GET", `${nodes()}/${id}`)).json.properties.ports_mapping).to.deep.equal(DEFAULT_PORTS);
    });

    it("updates a hub node's name and ports on the compute at once", async () => {
      const id = (await s.request("POST", nodes(), { name: "H5", node_type: "ethernet_hub", compute_id: "local" })).json.node_id;
      const r = await s.request("PUT", `${nodes()}/${id}`, { name: "H5b", properties: { ports_mapping: [{ name: "a", port_number: 4 }, { name: "b", port_number: 9 }] } });
      expect(r.status).to.equal(200);
      expect(r.json.properties.ports_mapping).to.deep.equal([{ name: "Ethernet0", port_number: 0 }, { name: "Ethernet1", port_number: 1 }]);
      const compute = (await s.request("GET", `/v2/compute/projects/${projectId}/ethernet_hub/nodes/${id}`)).json;
      expect(compute).to.deep.include({ name: "H5b" });
      expect(compute.ports_mapping).to.have.length(2);
    });

    it("links a hub to a switch, and brings both back with their NIOs when the project is closed and opened", async () => {
      const h = (await s.request("POST", nodes(), { name: "H6", node_type: "ethernet_hub", compute_id: "local" })).json.node_id;
      const sw = (await s.request("POST", nodes(), { name: "S6", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
      const link = await s.request("POST", `/v2/projects/${projectId}/links`, {
        nodes: [
          { node_id: h, adapter_number: 0, port_number: 3 },
          { node_id: sw, adapter_number: 0, port_number: 5 },
        ],
      });
      expect(link.status).to.equal(201);
      const hubNio = dataPlane.attached.get(`${h}/3`);
      const swNio = dataPlane.attached.get(`${sw}/5`);
      expect(hubNio).to.deep.include({ type: "nio_udp" });
      expect(swNio).to.deep.include({ type: "nio_udp" });
      if (hubNio?.type !== "nio_udp" || swNio?.type !== "nio_udp") throw new Error("not UDP");
      expect([hubNio.rport, swNio.rport]).to.deep.equal([swNio.lport, hubNio.lport]);
      const hubPut = await s.request("PUT", `/v2/compute/projects/${projectId}/ethernet_hub/nodes/${h}`, { ports_mapping: [{ name: "x", port_number: 0 }] });
      expect(hubPut.status, "a linked hub keeps its ports").to.equal(409);

      expect((await s.request("POST", `/v2/projects/${projectId}/close`)).status).to.equal(204);
      expect(dataPlane.attached.size).to.equal(0);
      expect((await s.request("GET", `/v2/compute/projects/${projectId}/ethernet_hub/nodes/${h}`)).status).to.equal(404);
      expect((await s.request("POST", `/v2/projects/${projectId}/open`)).status).to.equal(201);
      const back = await s.request("GET", `${nodes()}/${h}`);
      expect(back.json).to.deep.include({ name: "H6", node_type: "ethernet_hub", symbol: ":/symbols/hub.svg", console_type: null });
      expect(back.json.properties.ports_mapping).to.deep.equal(DEFAULT_PORTS);
      expect((await s.request("GET", `/v2/compute/projects/${projectId}/ethernet_hub/nodes/${h}`)).json.name).to.equal("H6");
      expect(dataPlane.attached.get(`${h}/3`)).to.deep.include({ type: "nio_udp" });
      expect(dataPlane.attached.get(`${sw}/5`)).to.deep.include({ type: "nio_udp" });
    });
  });
});

describe("Ethernet hub on live traffic (real UDP sockets on 127.0.0.1)", () => {
  let s: TestServer;
  let hub: string;
  let peers: UdpPeer[];
  let lports: number[];

  beforeEach(async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "hub-dp", project_id: PROJECT });
    hub = `${HUBS}/${(await s.request("POST", HUBS, { name: "HUB1" })).json.node_id}`;
    peers = await Promise.all([0, 1, 2].map(() => UdpPeer.open()));
    lports = [];
    for (let i = 0; i < 3; i++) {
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      lports.push(lport);
      const r = await s.request("POST", `${hub}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peers[i]!.port });
      expect(r.status).to.equal(201);
    }
  });
  afterEach(async () => {
    await s.close();
    await Promise.all(peers.map((p) => p.close()));
  });

  it("repeats a frame unchanged to every other port, never back to its ingress", async () => {
    const frame = ethernetFrame(BROADCAST, A);
    await peers[0]!.send(frame, lports[0]!);
    expect(await peers[1]!.waitFor(1)).to.deep.equal([frame]);
    expect(await peers[2]!.waitFor(1)).to.deep.equal([frame]);
    expect(await peers[0]!.settle()).to.equal(0);
  });

  it("repeats an 802.1Q tagged frame with its tags as they came", async () => {
    const tagged = ethernetFrame(B, A, { tags: [{ tpid: 0x88a8, vid: 100 }, { tpid: 0x8100, vid: 42 }] });
    await peers[2]!.send(tagged, lports[2]!);
    expect(await peers[0]!.waitFor(1)).to.deep.equal([tagged]);
    expect(await peers[1]!.waitFor(1)).to.deep.equal([tagged]);
  });

  it("learns nothing: unicast to an address seen on one port still goes out of every other port", async () => {
    await peers[1]!.send(ethernetFrame(BROADCAST, B), lports[1]!);
    await peers[0]!.waitFor(1);
    await peers[2]!.waitFor(1);
    const unicast = ethernetFrame(B, A);
    await peers[0]!.send(unicast, lports[0]!);
    expect((await peers[1]!.waitFor(1))[0]).to.deep.equal(unicast);
    expect((await peers[2]!.waitFor(2))[1], "a switch would send it to port 1 only").to.deep.equal(unicast);
  });

  it("counts frames per port in GET's ports_statistics, which only a hub with NIOs has", async () => {
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    await peers[1]!.waitFor(1);
    await peers[2]!.waitFor(1);
    const got = (await s.request("GET", hub)).json;
    expect(Object.keys(got).sort()).to.deep.equal(["name", "node_id", "ports_mapping", "ports_statistics", "project_id", "status"]);
    const byPort = new Map((got.ports_statistics as { port_number: number }[]).map((p) => [p.port_number, p]));
    expect(byPort.get(0)).to.deep.include({ frames_in: 1, bytes_in: 60, frames_out: 0 });
    expect(byPort.get(1)).to.deep.include({ frames_in: 0, frames_out: 1, bytes_out: 60 });
    expect(byPort.get(2)).to.deep.include({ frames_out: 1 });
    for (let i = 0; i < 3; i++) expect((await s.request("DELETE", `${hub}/adapters/0/ports/${i}/nio`)).status).to.equal(204);
    expect((await s.request("GET", hub)).json).not.to.have.property("ports_statistics");
  });

  it("forwards nothing while stopped or suspended, and again once started", async () => {
    for (const action of ["stop", "suspend"] as const) {
      expect((await s.request("POST", `${hub}/${action}`)).status).to.equal(204);
      await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
      expect(await peers[1]!.settle(150), action).to.equal(0);
      expect(await peers[2]!.settle(0), action).to.equal(0);
    }
    expect((await s.request("POST", `${hub}/start`)).status).to.equal(204);
    const frame = ethernetFrame(BROADCAST, A, { payload: 100 });
    await peers[0]!.send(frame, lports[0]!);
    expect(await peers[1]!.waitFor(1)).to.deep.equal([frame]);
    expect(await peers[2]!.waitFor(1)).to.deep.equal([frame]);
  });

  it("captures a hub port's frames into a pcap streamed while the capture runs", async () => {
    const port = `${hub}/adapters/0/ports/1`;
    expect((await s.request("POST", `${port}/start_capture`, { capture_file_name: "live.pcap", data_link_type: "DLT_EN10MB" })).status).to.equal(200);
    const controller = new AbortController();
    const response = await fetch(`${s.url}${port}/pcap`, { signal: controller.signal });
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.equal("application/vnd.tcpdump.pcap");
    const frame = ethernetFrame(BROADCAST, A, { payload: 50 });
    await peers[0]!.send(frame, lports[0]!);
    await peers[1]!.waitFor(1);
    const reader = response.body!.getReader();
    let bytes = Buffer.alloc(0);
    const deadline = Date.now() + 3000;
    // A 24-byte file header, a 16-byte record header, then the frame.
    while (bytes.length < 24 + 16 + frame.length && Date.now() < deadline) {
      const chunk = await reader.read();
      if (chunk.done) break;
      bytes = Buffer.concat([bytes, Buffer.from(chunk.value)]);
    }
    expect(bytes.readUInt32LE(20), "link type Ethernet").to.equal(1);
    expect(bytes.subarray(40, 40 + frame.length)).to.deep.equal(frame);
    expect((await s.request("POST", `${port}/stop_capture`)).status).to.equal(204);
    // Once stopped, the stream ends by itself.
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
    }
    controller.abort();
  });
});
