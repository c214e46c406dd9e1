import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";

const PROJECT = "22222222-3333-4444-8555-666666666666";
const NIO_ROUTE =
  "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}/nio";

describe("HTTP: compute projects and Ethernet switches", () => {
  let s: TestServer;
  let dataPlane: FakeDataPlane;
  let base: string;
  let nodeId: string;

  beforeEach(async () => {
    dataPlane = new FakeDataPlane();
    s = await startTestServer({ overrides: { dataPlane } });
    await s.request("POST", "/v2/compute/projects", { name: "anchor-ethsw", project_id: PROJECT });
    const sw = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" });
    nodeId = sw.json.node_id;
    base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${nodeId}`;
  });
  afterEach(async () => s.close());

  describe("compute projects", () => {
    it("creates a project with the given id and answers it", async () => {
      const r = await s.request("POST", "/v2/compute/projects", { name: "p", project_id: "11111111-2222-4333-8444-555555555555" });
      expect(r.status).to.equal(201);
      expect(r.text).to.equal(
        '{\n    "name": "p",\n    "project_id": "11111111-2222-4333-8444-555555555555",\n    "variables": null\n}',
      );
    });

    it("generates an id when none is given", async () => {
      const r = await s.request("POST", "/v2/compute/projects", { name: "anchor-noid" });
      expect(r.status).to.equal(201);
      expect(r.json.project_id).to.match(/^[0-9a-f-]{36}$/);
    });

    it("answers the existing project when the id is known", async () => {
      const r = await s.request("POST", "/v2/compute/projects", { name: "other", project_id: PROJECT });
      expect(r.status).to.equal(201);
      expect(r.json.name).to.equal("anchor-ethsw");
    });

    it("refuses a malformed project_id and an empty body as GNS3 does, naming the field, the body in `request` and not as a Python repr in the message", async () => {
      const bad = await s.request("POST", "/v2/compute/projects", { name: "x", project_id: "not-a-uuid" });
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.equal(
        "JSON schema error with API request '/v2/compute/projects': project_id: 'not-a-uuid' is too short",
      );
      const empty = await s.request("POST", "/v2/compute/projects", {});
      expect(empty.json.message).to.equal(
        "JSON schema error with API request '/v2/compute/projects': 'name' is a required property",
      );
    });

    it("gets, closes and deletes a project, deleting its switches", async () => {
      expect((await s.request("GET", `/v2/compute/projects/${PROJECT}`)).json.name).to.equal("anchor-ethsw");
      await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001 });
      expect((await s.request("POST", `/v2/compute/projects/${PROJECT}/close`)).status).to.equal(204);
      expect(dataPlane.attached.size).to.equal(0);
      expect((await s.request("GET", `/v2/compute/projects/${PROJECT}`)).status).to.equal(404);
      await s.request("POST", "/v2/compute/projects", { name: "again", project_id: PROJECT });
      expect((await s.request("DELETE", `/v2/compute/projects/${PROJECT}`)).status).to.equal(204);
      expect((await s.request("DELETE", `/v2/compute/projects/${PROJECT}`)).status).to.equal(404);
    });

    it("checks project ids: 400 when malformed, 404 when unknown", async () => {
      const bad = await s.request("GET", "/v2/compute/projects/abc");
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.equal("Project ID abc is not a valid UUID");
      expect(bad.json.path).to.equal("/v2/compute/projects/{project_id}");
      const unknown = await s.request("GET", "/v2/compute/projects/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee");
      expect(unknown.json).to.deep.equal({ message: "Project ID aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee doesn't exist", status: 404 });
    });

    it("reserves distinct UDP ports of the configured range", async () => {
      const a = await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`);
      const b = await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`);
      expect(a.status).to.equal(201);
      const range = s.netemu.settings.udpPortRange;
      for (const port of [a.json.udp_port, b.json.udp_port]) expect(port).to.be.within(range.start, range.end);
      expect(a.json.udp_port).not.to.equal(b.json.udp_port);
    });
  });

  describe("switch nodes", () => {
    it("creates a switch with eight access ports in VLAN 1 by default", async () => {
      const r = await s.request("GET", base);
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.include({ name: "SW1", node_id: nodeId, project_id: PROJECT, status: "started", console_type: "none" });
      expect(r.json.ports_mapping).to.have.length(8);
      expect(r.json.ports_mapping[7]).to.deep.equal({ name: "Ethernet7", port_number: 7, type: "access", vlan: 1 });
    });

    it("keeps a given ports_mapping verbatim", async () => {
      const ports = [
        { name: "Ethernet0", port_number: 0, type: "access", vlan: 1 },
        { name: "Ethernet1", port_number: 1, type: "dot1q", vlan: 1 },
        { name: "Q", port_number: 5, type: "qinq", vlan: 100, ethertype: "0x88A8" },
      ];
      const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW2", console_type: "none", ports_mapping: ports });
      expect(r.status).to.equal(201);
      expect(r.json.ports_mapping).to.deep.equal(ports);
    });

    it("answers the existing switch when its node_id is known", async () => {
      const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "other", node_id: nodeId });
      expect(r.status).to.equal(201);
      expect(r.json.name).to.equal("SW1");
    });

    for (const [what, body, message] of [
      ["a missing name", {}, "'name' is a required property"],
      ["a port entry without type", { name: "S", ports_mapping: [{ name: "Ethernet0", port_number: 0 }] }, "'type' is a required property"],
      ["an unknown port type", { name: "S", ports_mapping: [{ name: "E", port_number: 0, type: "trunk", vlan: 1 }] }, "'trunk' is not one of ['access', 'dot1q', 'qinq']"],
      ["VLAN 0", { name: "S", ports_mapping: [{ name: "E", port_number: 0, type: "access", vlan: 0 }] }, "0 is less than the minimum of 1"],
      ["VLAN 4095", { name: "S", ports_mapping: [{ name: "E", port_number: 0, type: "access", vlan: 4095 }] }, "4095 is greater than the maximum of 4094"],
      ["a bad ethertype", { name: "S", ports_mapping: [{ name: "E", port_number: 0, type: "qinq", vlan: 2, ethertype: "0x1234" }] }, "'0x1234' is not one of"],
      ["an unknown key", { name: "S", color: "red" }, "Additional properties are not allowed ('color' was unexpected)"],
      ["a malformed node_id", { name: "S", node_id: "abc" }, "'abc' is too short"],
    ] as const) {
      it(`refuses ${what} with 400 and creates nothing`, async () => {
        const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, body);
        expect(r.status).to.equal(400);
        expect(r.json.message).to.include(message);
        expect(r.json.path).to.equal("/v2/compute/projects/{project_id}/ethernet_switch/nodes");
        expect(r.json.method).to.equal("POST");
      });
    }

    it("renames and renumbers ports on update, as GNS3 does", async () => {
      const r = await s.request("PUT", base, {
        name: "Core",
        ports_mapping: [
          { name: "foo", port_number: 5, type: "dot1q", vlan: 10 },
          { name: "bar", port_number: 9, type: "qinq", vlan: 20, ethertype: "0x88A8" },
        ],
      });
      expect(r.status).to.equal(200);
      expect(r.json.name).to.equal("Core");
      expect(r.json.ports_mapping).to.deep.equal([
        { name: "Ethernet0", port_number: 0, type: "dot1q", vlan: 10 },
        { ethertype: "0x88A8", name: "Ethernet1", port_number: 1, type: "qinq", vlan: 20 },
      ]);
      expect(dataPlane.updated.map((n) => [n.nodeId, n.portsMapping.length])).to.deep.equal([[nodeId, 2]]);
    });

    it("refuses to change the number of ports of a connected switch", async () => {
      await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_null" });
      const r = await s.request("PUT", base, { ports_mapping: [{ name: "E", port_number: 0, type: "access", vlan: 1 }] });
      expect(r.status).to.equal(409);
      expect(r.json.message).to.equal("Can't modify a switch already connected.");
      expect((await s.request("GET", base)).json.ports_mapping).to.have.length(8);
    });

    it("refuses an invalid update and changes nothing", async () => {
      const r = await s.request("PUT", base, { name: "X", status: "running" });
      expect(r.status).to.equal(400);
      expect(r.json.message).to.include("'running' is not one of ['started', 'stopped', 'suspended']");
      expect((await s.request("GET", base)).json.name).to.equal("SW1");
    });

    it("answers 204 to stop, suspend and start, and its status follows (GNS3's switch always says started)", async () => {
      for (const [action, status] of [["stop", "stopped"], ["suspend", "suspended"], ["start", "started"]] as const) {
        expect((await s.request("POST", `${base}/${action}`)).status).to.equal(204);
        expect((await s.request("GET", base)).json.status, action).to.equal(status);
      }
    });

    it("duplicates onto an existing destination and answers it", async () => {
      const dest = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW9" })).json;
      const r = await s.request("POST", `${base}/duplicate`, { destination_node_id: dest.node_id });
      expect(r.status).to.equal(201);
      expect(r.json.node_id).to.equal(dest.node_id);
      expect((await s.request("POST", `${base}/duplicate`, {})).status).to.equal(400);
      expect((await s.request("POST", `${base}/duplicate`, { destination_node_id: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee" })).status).to.equal(404);
    });

    it("deletes a switch with any kind of NIO, closing them", async () => {
      await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_null" });
      await s.request("POST", `${base}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001 });
      expect((await s.request("DELETE", base)).status).to.equal(204);
      expect(dataPlane.attached.size).to.equal(0);
      const again = await s.request("DELETE", base);
      expect(again.json).to.deep.equal({ message: `Node ID ${nodeId} doesn't exist`, status: 404 });
    });

    it("checks node ids: 400 when malformed, 404 when unknown, 404 when in another project", async () => {
      const bad = await s.request("GET", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/not-a-uuid`);
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.equal("Node ID not-a-uuid is not a valid UUID");
      const unknown = await s.request("GET", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee`);
      expect(unknown.status).to.equal(404);
      const other = "33333333-3333-4333-8333-333333333333";
      await s.request("POST", "/v2/compute/projects", { name: "other", project_id: other });
      const foreign = await s.request("GET", `/v2/compute/projects/${other}/ethernet_switch/nodes/${nodeId}`);
      expect(foreign.json).to.deep.equal({ message: `Project ID ${other} doesn't belong to node SW1`, status: 404 });
    });

    it("answers 405 on the collection for GET", async () => {
      const r = await s.request("GET", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`);
      expect(r.status).to.equal(405);
      expect(r.headers.get("allow")).to.include("POST");
    });
  });

  describe("NIOs", () => {
    const udp = { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001 };

    it("adds a UDP NIO and answers it as GNS3 does, byte for byte", async () => {
      const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp);
      expect(r.status).to.equal(201);
      expect(r.headers.get("x-route")).to.equal(NIO_ROUTE);
      expect(r.text).to.equal('{\n    "lport": 20000,\n    "rhost": "127.0.0.1",\n    "rport": 20001,\n    "type": "nio_udp"\n}');
      expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ lport: 20000, suspend: false, filters: {} });
    });

    it("refuses a second NIO on a busy port with 409 and keeps the first", async () => {
      await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp);
      const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { ...udp, lport: 20002 });
      expect(r.status).to.equal(409);
      expect(r.json).to.deep.equal({
        exception: "NodeError",
        message: "Port 0 isn't free: Ethernet switch SW1 already has a nio_udp (local UDP port 20000, to 127.0.0.1:20001) on it; delete that NIO first (DELETE .../adapters/0/ports/0/nio)",
        status: 409,
      });
      expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ lport: 20000 });
    });

    it("names the device a busy port holds when it is a TAP", async () => {
      const tap = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_tap", tap_device: "tap-busy0" });
      expect(tap.status).to.equal(201);
      const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp);
      expect(r.status).to.equal(409);
      expect(r.json).to.have.property("message").that.contains("already has a nio_tap (tap-busy0) on it");
    });

    it("deletes a NIO with 204, then answers 409 Port N is not allocated", async () => {
      await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp);
      const r = await s.request("DELETE", `${base}/adapters/0/ports/0/nio`);
      expect(r.status).to.equal(204);
      expect(r.text).to.equal("");
      expect(dataPlane.attached.size).to.equal(0);
      const again = await s.request("DELETE", `${base}/adapters/0/ports/0/nio`);
      expect(again.status).to.equal(409);
      expect(again.json).to.deep.equal({ exception: "NodeError", message: "Port 0 is not allocated", status: 409 });
      expect((await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp)).status).to.equal(201);
    });

    it("matches digits only in adapter and port numbers", async () => {
      for (const path of ["adapters/0/ports/abc/nio", "adapters/x/ports/2/nio", "adapters/-1/ports/2/nio", "adapters/0/ports/0x1/nio"]) {
        const r = await s.request("POST", `${base}/${path}`, udp);
        expect(r.status, path).to.equal(404);
        expect(r.json).to.deep.equal({ message: "404: Not Found", status: 404 });
      }
      expect((await s.request("GET", `${base}/adapters/0/ports/abc/nio`)).status, "never a 405").to.equal(404);
      expect((await s.request("POST", `${base}/adapters/000/ports/007/nio`, udp)).status).to.equal(201);
    });

    it("refuses any adapter but 0 with 404", async () => {
      const r = await s.request("POST", `${base}/adapters/1/ports/1/nio`, udp);
      expect(r.status).to.equal(404);
      expect(r.json.message).to.equal("Adapter 1 doesn't exist on Ethernet switch SW1: its ports are all on adapter 0");
      expect((await s.request("DELETE", `${base}/adapters/9/ports/1/nio`)).status).to.equal(404);
    });

    it("refuses a port that is not in ports_mapping with 404", async () => {
      const r = await s.request("POST", `${base}/adapters/0/ports/99/nio`, udp);
      expect(r.status).to.equal(404);
      expect(r.json.message).to.equal("Port 99 doesn't exist on Ethernet switch SW1: it is not in ports_mapping");
      expect(dataPlane.attached.size).to.equal(0);
    });

    it("accepts nio_null and refuses the NIO kinds netemu cannot run with 409", async () => {
      expect((await s.request("POST", `${base}/adapters/0/ports/1/nio`, { type: "nio_null" })).json).to.deep.equal({ type: "nio_null" });
      for (const body of [{ type: "nio_nat" }, { type: "nio_linux_ethernet", ethernet_device: "eth0" }, { type: "nio_unix", local_file: "a", remote_file: "b" }]) {
        const r = await s.request("POST", `${base}/adapters/0/ports/2/nio`, body);
        expect(r.status).to.equal(409);
        expect(r.json).to.deep.equal({ message: `NIO of type ${body.type} is not supported`, status: 409 });
      }
    });

    for (const [what, body, message] of [
      ["a missing rport", { type: "nio_udp", lport: 20000, rhost: "127.0.0.1" }, "is not valid under any of the given schemas"],
      ["an unknown type", { type: "nio_foo" }, "{'type': 'nio_foo'} is not valid under any of the given schemas"],
      ["a missing type", { lport: 1 }, "'type' is a required property"],
      ["a string lport", { ...udp, lport: "1" }, "'1' is not of type 'integer'"],
      ["lport 0", { ...udp, lport: 0 }, "0 is less than the minimum of 1"],
      ["rport 70000", { ...udp, rport: 70000 }, "70000 is greater than the maximum of 65535"],
      ["an extra key", { ...udp, extra: 1 }, "is not valid under any of the given schemas"],
    ] as const) {
      it(`refuses ${what} with 400 and attaches nothing`, async () => {
        const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, body);
        expect(r.status).to.equal(400);
        expect(r.json.message).to.include(message);
        expect(r.json.path).to.equal(NIO_ROUTE);
        expect(dataPlane.attached.size).to.equal(0);
      });
    }

    it("checks the filters of a new NIO and stores them normalised", async () => {
      const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: { delay: [50, 5], packet_loss: [0] }, suspend: true });
      expect(r.status).to.equal(201);
      expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ filters: { delay: [50, 5] }, suspend: true });
      const bad = await s.request("POST", `${base}/adapters/0/ports/1/nio`, { ...udp, lport: 20002, filters: { packet_loss: [101] } });
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.equal("Filter packet_loss: Chance must be between 0 and 100 %, got 101");
      expect(dataPlane.attached.has(`${nodeId}/1`)).to.equal(false);
    });

    it("answers 409 when the UDP socket cannot be opened, and leaves the port free", async () => {
      dataPlane.refusedLports.add(20000);
      const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp);
      expect(r.status).to.equal(409);
      expect(r.json.message).to.equal("Could not create an UDP connection to 127.0.0.1:20001: local port is already in use (EADDRINUSE)");
      dataPlane.refusedLports.clear();
      expect((await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp)).status).to.equal(201);
    });

    describe("PUT (netemu's filter update)", () => {
      beforeEach(async () => void (await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp)));

      it("replaces the filters and suspend flag and echoes the NIO with 201", async () => {
        const r = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: { frequency_drop: [3] }, suspend: true });
        expect(r.status).to.equal(201);
        expect(r.json).to.deep.equal({ ...udp, filters: { frequency_drop: [3] }, suspend: true });
        expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ filters: { frequency_drop: [3] }, suspend: true });
      });

      it("clears every filter with the web UI's reset", async () => {
        await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: { corrupt: [5] } });
        const reset = { bpf: [], corrupt: [0], delay: [0, 0], frequency_drop: [0], packet_loss: [0] };
        const r = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: reset });
        expect(r.json.filters).to.deep.equal({});
      });

      it("refuses invalid filters with 400 and keeps the old ones", async () => {
        await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: { corrupt: [5] } });
        const r = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: { delay: [40000] } });
        expect(r.status).to.equal(400);
        expect(r.json.message).to.equal("Filter delay: Latency must be between 0 and 32767 ms, got 40000");
        expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ filters: { corrupt: [5] } });
      });

      it("takes netemu's direction-specific filters, echoes them, and keeps them until a PUT replaces them", async () => {
        const r = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: { delay: [5] }, filters_in: { packet_loss: [10] }, filters_out: { bandwidth: [1000] } });
        expect(r.status, r.text).to.equal(201);
        expect(r.json).to.deep.equal({ ...udp, filters: { delay: [5] }, filters_in: { packet_loss: [10] }, filters_out: { bandwidth: [1000] }, suspend: false });
        expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ filtersIn: { packet_loss: [10] }, filtersOut: { bandwidth: [1000] } });
        // A PUT without them (GNS3's shape) leaves them; an empty object clears one.
        await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: {} });
        expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ filtersOut: { bandwidth: [1000] } });
        const cleared = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters_out: {} });
        expect(cleared.json).to.not.have.property("filters_out");
      });

      it("refuses invalid direction-specific filters with 400 and keeps the old ones", async () => {
        await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters_in: { corrupt: [5] } });
        const r = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters_in: { bandwidth: [1] } });
        expect(r.status).to.equal(400);
        expect(r.json.message).to.equal("filters_in: Filter bandwidth: Rate must be between 8 and 10000000 kbit/s, got 1");
        expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ filtersIn: { corrupt: [5] } });
      });

      it("takes netem's granularity in filters, filters_in and filters_out, and echoes them in the catalogue's units (ADR 0101)", async () => {
        const r = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: { delay: ["250us"] }, filters_in: { packet_loss: [0.05] }, filters_out: { bandwidth: ["1.5mbit", "2.5ms"], duplicate: ["0.75%"] } });
        expect(r.status, r.text).to.equal(201);
        expect(r.json).to.deep.include({ filters: { delay: [0.25] }, filters_in: { packet_loss: [0.05] }, filters_out: { bandwidth: [1500, 2.5], duplicate: [0.75] } });
        expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ filters: { delay: [0.25] }, filtersIn: { packet_loss: [0.05] }, filtersOut: { bandwidth: [1500, 2.5], duplicate: [0.75] } });
      });

      for (const [what, body, message] of [
        ["a loss finer than 0.01 %", { filters_in: { packet_loss: ["0.001%"] } }, 'filters_in: Filter packet_loss: Chance is finer than netemu takes (0.01 %), got "0.001%"'],
        ["a rate with a unit netemu does not read", { filters_out: { bandwidth: ["10xbit"] } }, 'filters_out: Filter bandwidth: Rate "10xbit" has a unit netemu does not read (xbit)'],
        ["a delay finer than 1 µs", { filters: { delay: [0.0001] } }, "Filter delay: Latency is finer than netemu takes (0.001 ms, 1 µs), got 0.0001"],
      ] as const) {
        it(`refuses ${what} with 400 naming it, and keeps the old filters`, async () => {
          await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, filters: { corrupt: [5] }, filters_in: { corrupt: [6] }, filters_out: { corrupt: [7] } });
          const r = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { ...udp, ...body });
          expect(r.status).to.equal(400);
          expect(r.json.message).to.include(message);
          expect(dataPlane.attached.get(`${nodeId}/0`)).to.deep.include({ filters: { corrupt: [5] }, filtersIn: { corrupt: [6] }, filtersOut: { corrupt: [7] } });
        });
      }

      it("answers 409 on a port without NIO", async () => {
        const r = await s.request("PUT", `${base}/adapters/0/ports/3/nio`, udp);
        expect(r.status).to.equal(409);
        expect(r.json.message).to.equal("Port 3 is not allocated");
      });
    });
  });
});
