import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { UdpPeer, ethernetFrame, freeUdpPort } from "../support/udp-peer.js";

/**
 * GNS3's Cloud on /v3/compute, as a GNS3 3.0.6 controller drives it (api/routes/compute/cloud_nodes.py,
 * ADR 0082 through ADR 0066's dialect): listed in the capabilities, 3.x's bodies (nulls, unknown keys),
 * 3.x's answer (`usage`, no `node_directory`), frames through its UDP tunnel.
 */
describe("/v3/compute clouds", () => {
  let s: TestServer;
  let P: string;
  const peers: UdpPeer[] = [];
  const v3 = (method: string, path: string, body?: unknown) => s.request(method, `/v3/compute${path}`, body);

  beforeEach(async () => {
    s = await startTestServer({ settings: { v3: { gns3Version: "3.0.6", noAuth: true } } });
    P = randomUUID();
    expect((await v3("POST", "/projects", { name: "p", project_id: P })).status).to.equal(201);
  });
  afterEach(async () => {
    for (const p of peers.splice(0)) await p.close();
    await s.close();
  });

  it("is listed in the 3.x capabilities", async () => {
    expect((await v3("GET", "/capabilities")).json.node_types).to.include("cloud");
  });

  it("takes 3.x's body (nulls, unknown keys), answers 3.x's fields, and carries frames between its tunnel and its link", async () => {
    const [outside, linkPeer] = [await UdpPeer.open(), await UdpPeer.open()];
    peers.push(outside, linkPeer);
    const lport = await freeUdpPort();
    const made = await v3("POST", `/projects/${P}/cloud/nodes`, {
      builtin: true,
      name: "Cloud1",
      usage: null,
      remote_console_host: null,
      remote_console_port: null,
      remote_console_type: "none",
      remote_console_http_path: null,
      ports_mapping: [{ name: "UDP tunnel 1", port_number: 0, type: "udp", lport, rhost: "127.0.0.1", rport: outside.port, extra: true }],
      interfaces: null,
    });
    expect(made.status, made.text).to.equal(201);
    expect(Object.keys(made.json).sort()).to.deep.equal(["interfaces", "name", "node_id", "ports_mapping", "project_id", "remote_console_host", "remote_console_http_path", "remote_console_port", "remote_console_type", "status", "usage"]);
    expect(made.json).to.deep.include({ name: "Cloud1", status: "started", usage: "", remote_console_port: 23 });
    expect(made.json.ports_mapping).to.deep.equal([{ name: "UDP tunnel 1", port_number: 0, type: "udp", lport, rhost: "127.0.0.1", rport: outside.port }]);
    const node = `/projects/${P}/cloud/nodes/${made.json.node_id}`;
    const nioLport = (await v3("POST", `/projects/${P}/ports/udp`, {})).json.udp_port as number;
    const nio = await v3("POST", `${node}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: nioLport, rhost: "127.0.0.1", rport: linkPeer.port, filters: {}, suspend: false });
    expect(nio.status, nio.text).to.equal(201);
    const frame = ethernetFrame("02:00:00:00:00:02", "02:00:00:00:00:01");
    await outside.send(frame, lport);
    expect((await linkPeer.waitFor(1))[0]).to.deep.equal(frame);
    await linkPeer.send(frame, nioLport);
    expect((await outside.waitFor(1))[0]).to.deep.equal(frame);
    // Linked, its ports cannot change (GNS3's rule), answered with the exception name, as 3.0.6 answers its node errors.
    const refused = await v3("PUT", node, { ports_mapping: [] });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.json).to.deep.equal({ exception: "NodeError", message: "Cannot modify a cloud that is already connected." });
    expect((await v3("DELETE", `${node}/adapters/0/ports/0/nio`)).status).to.equal(204);
    const renamed = await v3("PUT", node, { name: "edge", ports_mapping: null, remote_console_type: "telnet", remote_console_port: 2323 });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.json).to.deep.include({ name: "edge", remote_console_type: "telnet", remote_console_port: 2323 });
    expect((await v3("GET", node)).json.name).to.equal("edge");
    expect((await v3("DELETE", node)).status).to.equal(204);
  });

  it("answers a body 3.x's schema refuses with a 422, and the domain's refusals as 3.x's {message}", async () => {
    const bad = await v3("POST", `/projects/${P}/cloud/nodes`, { name: "C", remote_console_port: 70000 });
    expect(bad.status, bad.text).to.equal(422);
    const rhost = await v3("POST", `/projects/${P}/cloud/nodes`, { name: "C", ports_mapping: [{ name: "t", port_number: 0, type: "udp", lport: 1, rhost: "no host", rport: 2 }] });
    expect(rhost.status, rhost.text).to.be.oneOf([400, 422]);
    expect(JSON.stringify(rhost.json)).to.include("rhost");
  });
});
