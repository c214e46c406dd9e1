import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { ethernetFrame, UdpPeer } from "../support/udp-peer.js";
import { WebSocket } from "ws";

/**
 * The requests a GNS3 3.0.6 controller sends a compute, in lab order, each cited from 3.0.6's source
 * (paths under gns3server/, as /work/shared/reference/gns3-v3-compute-protocol.md reads them), sent
 * to netemu's /v3/compute with Basic credentials, as `Compute._run_http_query` sends them: JSON
 * bodies with content-type application/json, no body when the controller has none. Frames really
 * cross the switch and the hub through the UDP NIOs the controller set up.
 */
const AUTH = { Authorization: `Basic ${Buffer.from("gns3:s3cret").toString("base64")}` };
const BROADCAST = "ff:ff:ff:ff:ff:ff";

describe("replay of a GNS3 3.0.6 controller driving netemu as its compute (/v3/compute)", function () {
  this.timeout(20_000);
  let s: TestServer;
  let hostA: UdpPeer;
  let hostB: UdpPeer;
  const P = randomUUID();
  const SW = randomUUID();
  const HUB = randomUUID();
  const C = "/v3/compute";
  const call = (method: string, path: string, body?: unknown) => s.request(method, `${C}${path}`, body, AUTH);
  const SWITCH = `/projects/${P}/ethernet_switch/nodes/${SW}`;
  const HUB_NODE = `/projects/${P}/ethernet_hub/nodes/${HUB}`;
  /** The NIO bodies of the switch–hub link's first creation, which `UDPLink.reset` posts again. */
  let firstBodies: { sw: Record<string, unknown>; hub: Record<string, unknown> };

  before(async () => {
    s = await startTestServer({ settings: { auth: { enabled: true, user: "gns3", password: "s3cret" } } });
    hostA = await UdpPeer.open();
    hostB = await UdpPeer.open();
  });
  after(async () => {
    await hostA.close();
    await hostB.close();
    await s.close();
  });

  /** A broadcast from host A, in at switch port 0, must come out of the hub's port 0 to host B. */
  async function forwarded(swLport: number, payload: number): Promise<Buffer> {
    const before = hostB.received.length;
    await hostA.send(ethernetFrame(BROADCAST, "02:00:00:00:00:0a", { payload }), swLport);
    const frames = await hostB.waitFor(before + 1);
    return frames[before] as Buffer;
  }

  let swPort0Lport = 0;

  it("adds the compute: capabilities with the version a stable 3.0.6 controller demands (controller/compute.py Compute.connect)", async () => {
    const r = await call("GET", "/capabilities");
    expect(r.status).to.equal(200);
    expect(r.json.version.split("+")[0]).to.equal("3.0.6");
    expect(r.json).to.include.keys("cpus", "memory", "disk_size", "platform", "node_types");
  });

  it("opens the notification websocket with Basic in the upgrade and reads the ping's three figures (controller/compute.py Compute._connect_notification)", async () => {
    const ws = new WebSocket(`${s.url.replace("http", "ws")}${C}/notifications/ws`, { headers: AUTH });
    try {
      const ping = await new Promise<{ action: string; event: Record<string, number> }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no ping within 3 s")), 3000);
        ws.once("message", (data) => {
          clearTimeout(timer);
          resolve(JSON.parse(String(data)));
        });
        ws.once("error", reject);
      });
      expect(ping.action).to.equal("ping");
      // Compute._connect_notification reads the three keys unconditionally.
      for (const key of ["cpu_usage_percent", "memory_usage_percent", "disk_usage_percent"]) expect(ping.event[key], key).to.be.a("number");
    } finally {
      ws.close();
    }
  });

  it("asks the interfaces to pick the tunnel address (controller/compute.py get_ip_on_same_subnet)", async () => {
    const r = await call("GET", "/network/interfaces");
    expect(r.status).to.equal(200);
    expect(r.json.map((i: { ip_address: string }) => i.ip_address)).to.include("127.0.0.1");
  });

  it("creates the project with its first node (controller/project.py Project._create_node)", async () => {
    const r = await call("POST", "/projects", { name: "lab3", project_id: P, variables: null });
    expect(r.status).to.equal(201);
    expect(r.json).to.include({ name: "lab3", project_id: P });
  });

  it("creates a switch and a hub from the built-in templates, builtin key and all (controller/node.py Node.create)", async () => {
    const sw = await call("POST", `/projects/${P}/ethernet_switch/nodes`, { builtin: true, name: "Switch1", console_type: "none", node_id: SW });
    expect(sw.status, sw.text).to.equal(201);
    expect(sw.json).to.include({ name: "Switch1", node_id: SW, project_id: P, status: "started", usage: "", console_type: "none" });
    expect(sw.json.ports_mapping).to.have.length(8);
    const hub = await call("POST", `/projects/${P}/ethernet_hub/nodes`, { builtin: true, name: "Hub1", node_id: HUB });
    expect(hub.status, hub.text).to.equal(201);
    expect(hub.json).to.include({ name: "Hub1", usage: "" });
    expect(hub.json).to.not.have.any.keys("console", "console_type");
  });

  it("renames the switch, sending back everything it kept of the last answer (controller/node.py Node.update, Node._node_data)", async () => {
    const current = (await call("GET", SWITCH)).json;
    const ports = current.ports_mapping.map((p: Record<string, unknown>) => ({ ...p, ethertype: "0x8100" }));
    const r = await call("PUT", SWITCH, { builtin: true, name: "Switch2", console_type: "none", console: current.console, usage: "", ports_mapping: ports });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.name).to.equal("Switch2");
    expect(r.json.ports_mapping[0]).to.deep.equal({ name: "Ethernet0", port_number: 0, type: "access", vlan: 1, ethertype: "0x8100" });
  });

  it("duplicates the switch: creates the copy with the original's console, then asks the compute to copy it (controller/project.py Project.duplicate_node)", async () => {
    const original = (await call("GET", SWITCH)).json;
    const COPY = randomUUID();
    const copy = await call("POST", `/projects/${P}/ethernet_switch/nodes`, { builtin: true, name: "Switch2-1", console_type: "none", console: original.console, usage: "", ports_mapping: original.ports_mapping, node_id: COPY });
    expect(copy.status, copy.text).to.equal(201);
    const duplicated = await call("POST", `${SWITCH}/duplicate`, { destination_node_id: COPY });
    expect(duplicated.status, duplicated.text).to.equal(201);
    expect(duplicated.json.ports_mapping).to.deep.equal(original.ports_mapping);
    expect((await call("DELETE", `/projects/${P}/ethernet_switch/nodes/${COPY}`)).status).to.equal(204);
  });

  it("edits the project's variables (controller/project.py Project.update) and reads the statistics (GET /v3/statistics)", async () => {
    const r = await call("PUT", `/projects/${P}`, { variables: [{ name: "site", value: "lab" }] });
    expect(r.status).to.equal(200);
    expect(r.json.variables).to.deep.equal([{ name: "site", value: "lab" }]);
    expect((await call("GET", "/statistics")).json).to.include.keys("disk_usage_percent", "memory_total");
  });

  it("links host A to the switch and host B to the hub: a UDP port each, then the NIO (controller/udp_link.py UDPLink.create)", async () => {
    const a = await call("POST", `/projects/${P}/ports/udp`);
    expect(a.status).to.equal(201);
    swPort0Lport = a.json.udp_port;
    const nioA = await call("POST", `${SWITCH}/adapters/0/ports/0/nio`, { lport: swPort0Lport, rhost: "127.0.0.1", rport: hostA.port, type: "nio_udp", filters: {}, suspend: false });
    expect(nioA.status, nioA.text).to.equal(201);
    expect(nioA.json).to.deep.equal({ lport: swPort0Lport, rhost: "127.0.0.1", rport: hostA.port, type: "nio_udp" });
    const b = (await call("POST", `/projects/${P}/ports/udp`)).json.udp_port;
    const nioB = await call("POST", `${HUB_NODE}/adapters/0/ports/0/nio`, { lport: b, rhost: "127.0.0.1", rport: hostB.port, type: "nio_udp", filters: {}, suspend: false });
    expect(nioB.status, nioB.text).to.equal(201);
  });

  it("links the switch to the hub, node 1 then node 2, and frames cross both (controller/udp_link.py UDPLink.create)", async () => {
    const l1 = (await call("POST", `/projects/${P}/ports/udp`)).json.udp_port as number;
    const l2 = (await call("POST", `/projects/${P}/ports/udp`)).json.udp_port as number;
    firstBodies = {
      sw: { lport: l1, rhost: "127.0.0.1", rport: l2, type: "nio_udp", filters: {}, suspend: false },
      hub: { lport: l2, rhost: "127.0.0.1", rport: l1, type: "nio_udp", filters: {}, suspend: false },
    };
    expect((await call("POST", `${SWITCH}/adapters/0/ports/1/nio`, firstBodies.sw)).status).to.equal(201);
    expect((await call("POST", `${HUB_NODE}/adapters/0/ports/1/nio`, firstBodies.hub)).status).to.equal(201);
    const frame = await forwarded(swPort0Lport, 60);
    expect(frame.subarray(0, 6).toString("hex")).to.equal("ffffffffffff");
    expect(frame.length).to.equal(14 + 60);
  });

  it("captures the link on the switch side, streams it as pcap, and stops (controller/udp_link.py start_capture, links.py stream_pcap, stop_capture)", async () => {
    const port = `${SWITCH}/adapters/0/ports/1/capture`;
    const started = await call("POST", `${port}/start`, { capture_file_name: "Switch2_0-1_to_Hub1_0-1.pcap", data_link_type: "DLT_EN10MB" });
    expect(started.status, started.text).to.equal(200);
    expect(started.json.pcap_file_path).to.match(/Switch2_0-1_to_Hub1_0-1\.pcap$/);
    // links.py stream_pcap: Basic, no content-type; the answer streams until the capture stops.
    const stream = await fetch(`${s.url}${C}${port}/stream`, { headers: AUTH });
    expect(stream.status).to.equal(200);
    expect(stream.headers.get("content-type")).to.equal("application/vnd.tcpdump.pcap");
    await forwarded(swPort0Lport, 61);
    expect((await call("POST", `${port}/stop`)).status).to.equal(204);
    const pcap = Buffer.from(await stream.arrayBuffer());
    expect(pcap.readUInt32LE(0)).to.equal(0xa1b2c3d4);
    expect(pcap.readUInt32LE(20), "DLT_EN10MB").to.equal(1);
    expect(pcap.length, "the header and the frame").to.be.greaterThan(24 + 16 + 60);
  });

  it("resets the link: deletes both NIOs, takes two fresh UDP ports, then posts the first creation's bodies again, and frames cross (controller/link.py reset, udp_link.py UDPLink.reset)", async () => {
    expect((await call("DELETE", `${SWITCH}/adapters/0/ports/1/nio`)).status).to.equal(204);
    expect((await call("DELETE", `${HUB_NODE}/adapters/0/ports/1/nio`)).status).to.equal(204);
    expect((await call("POST", `/projects/${P}/ports/udp`)).status).to.equal(201);
    expect((await call("POST", `/projects/${P}/ports/udp`)).status).to.equal(201);
    const sw = await call("POST", `${SWITCH}/adapters/0/ports/1/nio`, firstBodies.sw);
    expect(sw.status, sw.text).to.equal(201);
    const hub = await call("POST", `${HUB_NODE}/adapters/0/ports/1/nio`, firstBodies.hub);
    expect(hub.status, hub.text).to.equal(201);
    expect((await forwarded(swPort0Lport, 62)).length).to.equal(14 + 62);
  });

  it("imports a file answered 204, lists it and reads it back for an export (import_project.py _upload_file, export_project.py)", async () => {
    const upload = await s.raw("POST", `${C}/projects/${P}/files/project-files/notes.txt`, "hello v3", { ...AUTH, "Content-Type": "application/octet-stream" });
    expect(upload.status, upload.text).to.equal(204);
    const list = await call("GET", `/projects/${P}/files`);
    expect(list.status).to.equal(200);
    expect(list.json.map((f: { path: string }) => f.path)).to.include("project-files/notes.txt");
    const read = await call("GET", `/projects/${P}/files/project-files/notes.txt`);
    expect(read.status).to.equal(200);
    expect(read.text).to.equal("hello v3");
  });

  it("starts, suspends, reloads and stops the switch, which change nothing (controller/node.py Node.start ...)", async () => {
    for (const action of ["start", "suspend", "reload", "stop", "start"]) {
      expect((await call("POST", `${SWITCH}/${action}`)).status, action).to.equal(204);
    }
    expect((await forwarded(swPort0Lport, 63)).length).to.equal(14 + 63);
  });

  it("answers bodies that do not validate with FastAPI's 422 detail, changing nothing (schemas/compute/ethernet_switch_nodes.py)", async () => {
    const before = (await call("GET", SWITCH)).json;
    const vlan = await call("PUT", SWITCH, { ports_mapping: [{ name: "e0", port_number: 0, type: "access", vlan: 5000 }] });
    expect(vlan.status).to.equal(422);
    expect(vlan.json.detail[0].loc).to.deep.equal(["body", "ports_mapping", 0, "vlan"]);
    const ethertype = await call("PUT", SWITCH, { ports_mapping: [{ name: "e0", port_number: 0, type: "access", vlan: 1, ethertype: "0x88A8" }] });
    expect(ethertype.status).to.equal(422);
    expect(ethertype.json.detail[0].msg).to.include("Ethertype is only for QinQ port type");
    expect((await call("GET", SWITCH)).json).to.deep.equal(before);
  });

  it("tears down: NIOs, nodes, then closes the project, reopens and deletes it (controller/project.py delete_node, Project.close, Project.delete)", async () => {
    for (const nio of [`${SWITCH}/adapters/0/ports/0/nio`, `${SWITCH}/adapters/0/ports/1/nio`, `${HUB_NODE}/adapters/0/ports/0/nio`, `${HUB_NODE}/adapters/0/ports/1/nio`]) {
      expect((await call("DELETE", nio)).status, nio).to.equal(204);
    }
    expect((await call("DELETE", SWITCH)).status).to.equal(204);
    expect((await call("DELETE", HUB_NODE)).status).to.equal(204);
    expect((await call("POST", `/projects/${P}/close`)).status).to.equal(204);
    // Project.delete reopens a closed project on its computes first (Project.open: the project, then
    // each node with what was saved of it), then deletes it.
    expect((await call("POST", "/projects", { name: "lab3", project_id: P, variables: null })).status).to.equal(201);
    const saved = { builtin: true, name: "Switch2", node_id: SW, console_type: "none", usage: "", ports_mapping: [{ name: "Ethernet0", port_number: 0, type: "access", vlan: 1, ethertype: "0x8100" }] };
    const reopened = await call("POST", `/projects/${P}/ethernet_switch/nodes`, saved);
    expect(reopened.status, reopened.text).to.equal(201);
    expect(reopened.json.ports_mapping).to.deep.equal(saved.ports_mapping);
    expect((await call("DELETE", `/projects/${P}`)).status).to.equal(204);
    expect((await call("GET", `/projects/${P}`)).status).to.equal(404);
  });
});
