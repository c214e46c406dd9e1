import { expect } from "chai";
import { existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { GNS3_PEER_VPCS, VpcsConsole } from "../support/vpcs-console.js";
import { OutsideHost } from "../support/outside-host.js";
import { UdpPeer, freeUdpPort } from "../support/udp-peer.js";

const min = (xs: readonly number[]) => Math.min(...xs);

describe("end to end: GNS3's Cloud on netemu's compute, a UDP tunnel to an emulator outside (ADR 0082)", function () {
  this.timeout(90_000);
  let s: TestServer;
  let projectId: string;
  const closers: (() => unknown)[] = [];

  const start = async (workers = 0) => {
    await s?.close();
    s = await startTestServer({ settings: { vpcsPath: GNS3_PEER_VPCS }, dataPlaneWorkers: workers });
    projectId = randomUUID();
    expect((await s.request("POST", "/v2/compute/projects", { name: "cloud", project_id: projectId })).status).to.equal(201);
  };
  beforeEach(() => start());
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    await s?.close();
  });

  const base = () => `/v2/compute/projects/${projectId}`;
  const udpPort = async (): Promise<number> => (await s.request("POST", `${base()}/ports/udp`, {})).json.udp_port;
  const udpTunnel = (lport: number, rport: number, name = "UDP tunnel 1", rhost = "127.0.0.1") => ({ name, port_number: 0, type: "udp", lport, rhost, rport });

  /** Two node ports joined by a UDP tunnel, as a controller wires a link; answers the NIO of the first end. */
  async function wire(a: string, aPort: number, b: string, bPort: number): Promise<{ lport: number; rport: number }> {
    const [pa, pb] = [await udpPort(), await udpPort()];
    const one = await s.request("POST", `${base()}/${a}/adapters/0/ports/${aPort}/nio`, { type: "nio_udp", lport: pa, rhost: "127.0.0.1", rport: pb });
    expect(one.status, one.text).to.equal(201);
    const two = await s.request("POST", `${base()}/${b}/adapters/0/ports/${bPort}/nio`, { type: "nio_udp", lport: pb, rhost: "127.0.0.1", rport: pa });
    expect(two.status, two.text).to.equal(201);
    return { lport: pa, rport: pb };
  }

  async function cloudWith(ports: unknown[], name = "Cloud1"): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
    return s.request("POST", `${base()}/cloud/nodes`, { name, ports_mapping: ports });
  }

  it("answers a created cloud in GNS3's shape: started, its ports renumbered by place, the host's interfaces, listed in capabilities", async () => {
    const r = await cloudWith([udpTunnel(await freeUdpPort(), 40001), { name: "eth", port_number: 7, type: "ethernet", interface: "eth0" }]);
    expect(r.status, r.text).to.equal(201);
    expect(Object.keys(r.json).sort()).to.deep.equal(
      ["interfaces", "name", "node_directory", "node_id", "ports_mapping", "project_id", "remote_console_host", "remote_console_http_path", "remote_console_port", "remote_console_type", "status"].sort(),
    );
    expect(r.json).to.include({ name: "Cloud1", status: "started", remote_console_host: "", remote_console_port: 23, remote_console_type: "none", remote_console_http_path: "/" });
    expect((r.json.ports_mapping as { port_number: number }[]).map((p) => p.port_number)).to.deep.equal([0, 1]);
    expect((r.json.interfaces as { name: string }[]).map((i) => i.name)).to.include("lo");
    expect((await s.request("GET", "/v2/compute/capabilities")).json.node_types).to.include("cloud");
    // A cloud made with no ports gets one per host interface that is not special (GNS3's cloud.py).
    const bare = await s.request("POST", `${base()}/cloud/nodes`, { name: "Cloud2" });
    expect(bare.status, bare.text).to.equal(201);
    const names = (bare.json.ports_mapping as { interface: string; type: string }[]).map((p) => p.interface);
    expect(names).to.not.include("lo");
    // Stop and suspend do nothing to a cloud, as in GNS3.
    expect((await s.request("POST", `${base()}/cloud/nodes/${r.json.node_id}/stop`, {})).status).to.equal(204);
    expect((await s.request("GET", `${base()}/cloud/nodes/${r.json.node_id}`)).json.status).to.equal("started");
  });

  for (const workers of [0, 1]) {
    it(`carries a VPCS's frames through a switch and the cloud's UDP tunnel to an emulator outside, which answers its ARP and pings; a link delay shows in the round trips (${workers === 0 ? "main-thread" : "worker"} data plane)`, async function () {
      if (!existsSync(GNS3_PEER_VPCS)) this.skip();
      await start(workers);
      const outside = await OutsideHost.open();
      closers.push(() => outside.close());
      const lport = await freeUdpPort();
      const cloud = await cloudWith([udpTunnel(lport, outside.port)]);
      expect(cloud.status, cloud.text).to.equal(201);
      const sw = (await s.request("POST", `${base()}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id;
      const pc = (await s.request("POST", `${base()}/vpcs/nodes`, { name: "PC1" })).json;
      const cloudLink = await wire(`cloud/nodes/${cloud.json.node_id}`, 0, `ethernet_switch/nodes/${sw}`, 0);
      await wire(`vpcs/nodes/${pc.node_id}`, 0, `ethernet_switch/nodes/${sw}`, 1);
      expect((await s.request("POST", `${base()}/vpcs/nodes/${pc.node_id}/start`, {})).status).to.equal(204);
      const console = await VpcsConsole.open(pc.console);
      closers.push(() => console.close());
      await console.command("ip 10.0.0.1/24");

      // The outside asks for the VPCS's MAC: the VPCS answers through the switch and the tunnel.
      await outside.send(outside.arpRequest("10.0.0.1"), lport);
      const deadline = Date.now() + 5000;
      while (outside.arpRepliesFrom("10.0.0.1").length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(outside.arpRepliesFrom("10.0.0.1"), "the VPCS's ARP reply reached the outside").to.have.length.at.least(1);

      const plain = await console.ping("10.0.0.9", 4);
      expect(plain.replies, plain.output).to.be.at.least(3);
      expect(outside.echoRequests.length).to.be.at.least(3);

      // 100 ms of delay on the cloud's link NIO (the switch side keeps none).
      const delayed = await s.request("PUT", `${base()}/cloud/nodes/${cloud.json.node_id}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: cloudLink.lport, rhost: "127.0.0.1", rport: cloudLink.rport, filters: { delay: [100, 0] } });
      expect(delayed.status, delayed.text).to.equal(201);
      const slow = await console.ping("10.0.0.9", 4);
      expect(slow.replies, slow.output).to.be.at.least(3);
      const added = min(slow.rttsMs) - min(plain.rttsMs);
      process.stdout.write(`      cloud link delay 100 ms (workers=${workers}): fastest RTT ${min(plain.rttsMs)} ms -> ${min(slow.rttsMs)} ms (+${added.toFixed(1)} ms)\n`);
      // The delay acts on the link's frames in both directions of the cloud's port: at least 100 ms more,
      // and well under a second (2 cores shared with other test runs).
      expect(added).to.be.within(90, 1000);
    });
  }

  describe("refusals, each changing nothing", () => {
    it("refuses a bad rhost, a duplicate lport, a duplicate port number and an unknown port type with a 400 naming the field", async () => {
      const l = await freeUdpPort();
      const cases: [unknown[], RegExp][] = [
        [[udpTunnel(l, 4000, "t", "not a host")], /ports_mapping\[0\]\.rhost: 'not a host' is not an IPv4 or IPv6 address or a host name/],
        [[udpTunnel(l, 4000, "t", "300.1.1.1")], /rhost/],
        [[udpTunnel(l, 4000, "a"), { ...udpTunnel(l, 4001, "b"), port_number: 1 }], /ports_mapping\[1\]\.lport: \d+ is already given by ports_mapping\[0\]\.lport/],
        [[udpTunnel(l, 4000, "a"), udpTunnel(l + 1, 4001, "b")], /port number 0 is already given/],
        [[{ name: "x", port_number: 0, type: "serial", interface: "x" }], /400|type/],
        [[{ name: "x", port_number: 0, type: "tap", interface: "a/b" }], /interface/],
      ];
      for (const [ports, message] of cases) {
        const r = await cloudWith(ports);
        expect(r.status, r.text).to.equal(400);
        expect(r.json.message as string).to.match(message);
      }
      expect((await s.request("GET", `${base()}/nodes`)).json ?? []).to.satisfy((n: unknown) => !Array.isArray(n) || n.length === 0);
    });

    it("refuses an lport another cloud or a link holds (409 naming the cloud and its port), and frees a deleted cloud's lport", async () => {
      const l = await freeUdpPort();
      const first = await cloudWith([udpTunnel(l, 4000)]);
      expect(first.status).to.equal(201);
      const second = await cloudWith([udpTunnel(l, 4001, "to qemu")], "Cloud2");
      expect(second.status, second.text).to.equal(409);
      expect(second.json.message).to.equal(`Cloud Cloud2: port to qemu cannot use local UDP port ${l}, another port or link of this compute holds it`);
      const linkPort = await udpPort();
      const onLink = await cloudWith([udpTunnel(linkPort, 4001)], "Cloud3");
      expect(onLink.status, onLink.text).to.equal(409);
      expect((await s.request("DELETE", `${base()}/cloud/nodes/${first.json.node_id}`)).status).to.equal(204);
      expect((await cloudWith([udpTunnel(l, 4001)], "Cloud2")).status).to.equal(201);
    });

    it("refuses to change the ports of a linked cloud as GNS3 does, and changes them when it has no link", async () => {
      const l = await freeUdpPort();
      const cloud = await cloudWith([udpTunnel(l, 4000)]);
      const id = cloud.json.node_id as string;
      const moved = await s.request("PUT", `${base()}/cloud/nodes/${id}`, { ports_mapping: [udpTunnel(l, 4009)] });
      expect(moved.status, moved.text).to.equal(200);
      expect((moved.json.ports_mapping as { rport: number }[])[0]?.rport).to.equal(4009);
      const peer = await UdpPeer.open();
      closers.push(() => peer.close());
      expect((await s.request("POST", `${base()}/cloud/nodes/${id}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: await udpPort(), rhost: "127.0.0.1", rport: peer.port })).status).to.equal(201);
      const refused = await s.request("PUT", `${base()}/cloud/nodes/${id}`, { ports_mapping: [udpTunnel(l, 4010)] });
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.json.message).to.equal("Cannot modify a cloud that is already connected.");
      expect(((await s.request("GET", `${base()}/cloud/nodes/${id}`)).json.ports_mapping as { rport: number }[])[0]?.rport).to.equal(4009);
    });

    it("refuses a link on a port whose tunnel cannot bind or whose device does not exist, naming the cloud and its port, and leaves the port free", async () => {
      const squatter = await UdpPeer.open();
      closers.push(() => squatter.close());
      const cloud = await cloudWith([udpTunnel(squatter.port, 4000, "busy tunnel"), { name: "ghost", port_number: 1, type: "ethernet", interface: "nosuchif0" }]);
      expect(cloud.status, cloud.text).to.equal(201);
      const id = cloud.json.node_id as string;
      for (const [port, message] of [
        [0, /^Cloud Cloud1: port busy tunnel cannot be used: could not create an UDP connection to 127\.0\.0\.1:4000/],
        [1, /^Cloud Cloud1: port ghost cannot be used: Ethernet interface nosuchif0 does not exist/],
      ] as const) {
        const r = await s.request("POST", `${base()}/cloud/nodes/${id}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport: await udpPort(), rhost: "127.0.0.1", rport: 4100 });
        expect(r.status, r.text).to.equal(409);
        expect(r.json.message).to.match(message);
      }
      // Nothing changed: the ports are free, and a change of the mapping is still allowed.
      expect((await s.request("PUT", `${base()}/cloud/nodes/${id}`, { ports_mapping: [udpTunnel(await freeUdpPort(), 4000)] })).status).to.equal(200);
    });
  });
});
