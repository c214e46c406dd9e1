import { expect } from "chai";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNetemu, type Netemu } from "../../src/adapters/composition-root.js";
import { Gns3Server, requireGns3Peer, waitUntil, type Gns3Reply } from "../support/gns3-peer.js";
import { VpcsConsole } from "../support/vpcs-console.js";

/** netemu as a second compute on this machine: its own loopback address and a UDP range of its own. */
interface NetemuCompute {
  readonly netemu: Netemu;
  readonly port: number;
  readonly dir: string;
}

let udpBase = 33000 + (process.pid % 20) * 100;

async function startNetemuCompute(auth?: { user: string; password: string }, dataPlaneWorkers = 0, vpcsPath?: string): Promise<NetemuCompute> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-compute-"));
  const start = udpBase;
  udpBase += 100;
  const netemu = createNetemu({
    logLevel: "silent",
    dataPlaneWorkers,
    settings: {
      host: "127.0.0.2",
      port: 0,
      configDir: dir,
      projectsPath: join(dir, "projects"),
      udpPortRange: { start, end: start + 99 },
      ...(auth === undefined ? {} : { auth: { enabled: true, ...auth } }),
      ...(vpcsPath === undefined ? {} : { vpcsPath }),
    },
  });
  const { port } = await netemu.listen(0, "127.0.0.2");
  return { netemu, port, dir };
}

async function stopNetemuCompute(c: NetemuCompute | undefined): Promise<void> {
  if (c === undefined) return;
  await c.netemu.shutdown();
  rmSync(c.dir, { recursive: true, force: true });
}

/** The ICMP echo (type 8) and reply (type 0) frames between two IPv4 hosts in a classic pcap. */
function icmpEchoes(pcap: Buffer, a: string, b: string): { requests: number; replies: number } {
  const ip = (s: string): string => s.split(".").map((n) => Number(n).toString(16).padStart(2, "0")).join("");
  const [ha, hb] = [ip(a), ip(b)];
  let requests = 0;
  let replies = 0;
  for (let at = 24; at + 16 <= pcap.length; ) {
    const caplen = pcap.readUInt32LE(at + 8);
    const frame = pcap.subarray(at + 16, at + 16 + caplen);
    at += 16 + caplen;
    if (frame.length < 42 || frame.readUInt16BE(12) !== 0x0800 || frame[23] !== 1) continue;
    const src = frame.subarray(26, 30).toString("hex");
    const dst = frame.subarray(30, 34).toString("hex");
    const type = frame[14 + ((frame[14] as number) & 0x0f) * 4];
    if (type === 8 && src === ha && dst === hb) requests++;
    if (type === 0 && src === hb && dst === ha) replies++;
  }
  return { requests, replies };
}

const ok = (r: Gns3Reply, status: number, what: string, gns3?: Gns3Server): void => {
  expect(r.status, `${what}: ${r.text}${gns3 === undefined ? "" : `\n--- gns3.log (tail) ---\n${gns3.log().slice(-3000)}`}`).to.equal(status);
};

describe("end to end: a real GNS3 2.2.59 controller drives netemu as a remote compute", function () {
  this.timeout(300_000);
  let gns3: Gns3Server | undefined;
  let compute: NetemuCompute | undefined;
  const consoles: VpcsConsole[] = [];
  const vpcsConsoles: VpcsConsole[] = [];

  before(function () {
    requireGns3Peer(this);
  });

  afterEach(async () => {
    await Promise.all(consoles.splice(0).map((c) => c.close()));
    for (const c of vpcsConsoles.splice(0)) c.close();
    await gns3?.stop();
    gns3 = undefined;
    await stopNetemuCompute(compute);
    compute = undefined;
  });

  /** Adds netemu to the controller as the GUI's Preferences → Servers does, and waits for its first ping. */
  const addCompute = async (g: Gns3Server, c: NetemuCompute, credentials: Record<string, string> = {}): Promise<Gns3Reply> =>
    g.request("POST", "/v2/computes", { compute_id: "netemu", name: "netemu", protocol: "http", host: "127.0.0.2", port: c.port, ...credentials });

  const waitConnected = (g: Gns3Server): Promise<Record<string, unknown>> =>
    waitUntil(
      "the controller to show netemu connected with CPU and memory from its websocket",
      async () => {
        const r = await g.request("GET", "/v2/computes/netemu");
        const j = r.json as Record<string, unknown>;
        return r.status === 200 && j["connected"] === true && typeof j["cpu_usage_percent"] === "number" && typeof j["memory_usage_percent"] === "number"
          ? j
          : undefined;
      },
      15_000,
    );

  it("runs a lab through netemu's switch and hub, its data plane in a worker thread: link, ping, capture, edit, stop and start, snapshot, statistics, delete", async () => {
    const g = (gns3 = await Gns3Server.start());
    const c = (compute = await startNetemuCompute(undefined, 1));

    // Connecting: the capabilities probe, then the websocket with its pings.
    ok(await addCompute(g, c), 201, "POST /v2/computes");
    const connected = await waitConnected(g);
    expect(connected["capabilities"]).to.deep.equal({ node_types: ["ethernet_hub", "ethernet_switch", "vpcs", "cloud"], platform: process.platform, version: "2.2.59" });
    expect(connected["cpu_usage_percent"]).to.be.within(0, 100);
    expect(connected["memory_usage_percent"]).to.be.within(0, 100);
    expect(connected["last_error"]).to.equal(null);

    // A project with a switch and a hub on netemu, two VPCS on GNS3's own compute.
    const project = await g.request("POST", "/v2/projects", { name: "netemu-compute-lab" });
    ok(project, 201, "POST /v2/projects");
    const p = project.json.project_id as string;
    const node = async (body: Record<string, unknown>): Promise<string> => {
      const r = await g.request("POST", `/v2/projects/${p}/nodes`, body);
      ok(r, 201, `POST node ${JSON.stringify(body)}`, g);
      return r.json.node_id;
    };
    const sw = await node({ name: "SW1", node_type: "ethernet_switch", compute_id: "netemu", console_type: "none" });
    const hub = await node({ name: "HUB1", node_type: "ethernet_hub", compute_id: "netemu" });
    const pc1 = await node({ name: "PC1", node_type: "vpcs", compute_id: "local" });
    const pc2 = await node({ name: "PC2", node_type: "vpcs", compute_id: "local" });
    const swNode = (await g.request("GET", `/v2/projects/${p}/nodes/${sw}`)).json;
    expect(swNode.status).to.equal("started");
    expect(swNode.ports).to.have.length(8);
    expect((await g.request("GET", `/v2/projects/${p}/nodes/${hub}`)).json.ports).to.have.length(8);

    const link = async (a: string, portA: number, b: string, portB: number): Promise<string> => {
      const r = await g.request("POST", `/v2/projects/${p}/links`, {
        nodes: [
          { node_id: a, adapter_number: 0, port_number: portA },
          { node_id: b, adapter_number: 0, port_number: portB },
        ],
      });
      ok(r, 201, "POST link", g);
      return r.json.link_id;
    };
    const l1 = await link(pc1, 0, sw, 0);
    const l2 = await link(sw, 1, pc2, 0);
    ok(await g.request("POST", `/v2/projects/${p}/nodes/start`), 204, "start all", g);

    const openConsole = async (nodeId: string): Promise<VpcsConsole> => {
      const n = (await g.request("GET", `/v2/projects/${p}/nodes/${nodeId}`)).json;
      const con = await VpcsConsole.connect(n.console, n.console_host);
      consoles.push(con);
      return con;
    };
    const [c1, c2] = await Promise.all([openConsole(pc1), openConsole(pc2)]);
    await Promise.all([c1.setIp("10.0.0.1/24"), c2.setIp("10.0.0.2/24")]);
    const pings = async (count: number): Promise<number> => (await c1.ping("10.0.0.2", count)).replies;

    expect(await pings(3), "PC1 pings PC2 through netemu's switch").to.be.at.least(2);

    // Capture on a link: the controller puts it on netemu's switch port and streams the pcap from it.
    const capture = await g.request("POST", `/v2/projects/${p}/links/${l1}/start_capture`, {});
    ok(capture, 201, "start_capture", g);
    expect(capture.json.capturing).to.equal(true);
    expect(capture.json.capture_compute_id).to.equal("netemu");
    const abort = new AbortController();
    const stream = await fetch(`${g.url}/v2/projects/${p}/links/${l1}/pcap`, { signal: abort.signal });
    expect(stream.status).to.equal(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Buffer[] = [];
    const reading = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          chunks.push(Buffer.from(value));
        }
      } catch {
        // aborted
      }
    })();
    expect(await pings(2)).to.be.at.least(1);
    const echoes = await waitUntil(
      "ICMP echoes in the pcap streamed through the controller",
      async () => {
        const pcap = Buffer.concat(chunks);
        const seen = pcap.length >= 24 ? icmpEchoes(pcap, "10.0.0.1", "10.0.0.2") : undefined;
        return seen !== undefined && seen.requests >= 1 && seen.replies >= 1 ? seen : undefined;
      },
      10_000,
    );
    expect(Buffer.concat(chunks).readUInt32LE(0), "classic pcap magic").to.equal(0xa1b2c3d4);
    expect(echoes.requests).to.be.at.least(1);
    abort.abort();
    await reading;
    ok(await g.request("POST", `/v2/projects/${p}/links/${l1}/stop_capture`, {}), 201, "stop_capture", g);

    // Rename, and a ports_mapping change that takes effect on live traffic.
    const renamed = await g.request("PUT", `/v2/projects/${p}/nodes/${sw}`, { name: "CORE" });
    ok(renamed, 200, "rename", g);
    expect((await g.request("GET", `/v2/projects/${p}/nodes/${sw}`)).json.name).to.equal("CORE");
    const mapping = (vlan: number) =>
      (swNode.properties.ports_mapping as { name: string; port_number: number; type: string; vlan: number }[]).map((e) =>
        e.port_number === 1 ? { ...e, vlan } : e,
      );
    const moved = await g.request("PUT", `/v2/projects/${p}/nodes/${sw}`, { properties: { ports_mapping: mapping(20) } });
    ok(moved, 200, "ports_mapping", g);
    expect(moved.json.properties.ports_mapping[1].vlan).to.equal(20);
    expect((await g.request("GET", `/v2/projects/${p}/nodes/${sw}`)).json.properties.ports_mapping[1].vlan).to.equal(20);
    expect(await pings(2), "PC2's port is in VLAN 20 now").to.equal(0);
    ok(await g.request("PUT", `/v2/projects/${p}/nodes/${sw}`, { properties: { ports_mapping: mapping(1) } }), 200, "ports_mapping back", g);
    expect(await pings(3)).to.be.at.least(2);

    // Stop, suspend and start: the controller learns the status from netemu's node.updated.
    const statusBecomes = (status: string) =>
      waitUntil(`the switch to be ${status} in the controller`, async () => ((await g.request("GET", `/v2/projects/${p}/nodes/${sw}`)).json.status === status ? true : undefined), 10_000);
    ok(await g.request("POST", `/v2/projects/${p}/nodes/${sw}/stop`, {}), 200, "stop", g);
    await statusBecomes("stopped");
    expect(await pings(2), "a stopped switch forwards nothing").to.equal(0);
    ok(await g.request("POST", `/v2/projects/${p}/nodes/${sw}/suspend`, {}), 200, "suspend", g);
    await statusBecomes("suspended");
    ok(await g.request("POST", `/v2/projects/${p}/nodes/${sw}/start`, {}), 200, "start", g);
    await statusBecomes("started");
    expect(await pings(3)).to.be.at.least(2);

    // The same two hosts through the hub instead.
    ok(await g.request("DELETE", `/v2/projects/${p}/links/${l1}`), 204, "delete link 1", g);
    ok(await g.request("DELETE", `/v2/projects/${p}/links/${l2}`), 204, "delete link 2", g);
    const l3 = await link(pc1, 0, hub, 0);
    await link(hub, 3, pc2, 0);
    expect(await pings(3), "PC1 pings PC2 through netemu's hub").to.be.at.least(2);

    // A snapshot copies the compute's project files through /files (the project must be stopped).
    ok(await g.request("POST", `/v2/projects/${p}/nodes/stop`), 204, "stop all", g);
    const snapshot = await g.request("POST", `/v2/projects/${p}/snapshots`, { name: "before-cleanup" });
    ok(snapshot, 201, "snapshot", g);

    const statistics = await g.request("GET", "/v2/statistics");
    ok(statistics, 200, "GET /v2/statistics", g);
    const ours = (statistics.json as { compute_id: string; statistics: Record<string, unknown> }[]).find((s) => s.compute_id === "netemu");
    expect(ours?.statistics).to.include.keys("memory_total", "cpu_usage_percent", "disk_usage_percent", "load_average_percent");

    ok(await g.request("GET", "/v2/computes/netemu/ports"), 200, "compute ports", g);

    // Deleting, closing, removing.
    ok(await g.request("DELETE", `/v2/projects/${p}/links/${l3}`), 204, "delete link 3", g);
    ok(await g.request("DELETE", `/v2/projects/${p}/nodes/${hub}`), 204, "delete the hub", g);
    const onNetemu = await c.netemu.useCases.listComputeProjects.execute();
    expect(onNetemu.map((x) => x.projectId)).to.deep.equal([p]);
    ok(await g.request("POST", `/v2/projects/${p}/close`), 204, "close", g);
    expect(await c.netemu.useCases.listComputeProjects.execute(), "closing the project closes it on netemu").to.deep.equal([]);
    ok(await g.request("DELETE", `/v2/projects/${p}`), 204, "delete project", g);
    expect(await c.netemu.useCases.listComputeProjects.execute()).to.deep.equal([]);
    ok(await g.request("DELETE", "/v2/computes/netemu"), 204, "remove the compute", g);
    expect((await g.request("GET", "/v2/computes/netemu")).status).to.equal(404);
  });

  it("places VPCS nodes on netemu's compute (netemu runs VPCS 0.8.3 itself) that ping through a netemu switch, and stops them", async () => {
    const g = (gns3 = await Gns3Server.start());
    const c = (compute = await startNetemuCompute(undefined, 0, "/opt/gns3-peer/bin/vpcs"));
    ok(await addCompute(g, c), 201, "POST /v2/computes", g);
    await waitConnected(g);
    const p = (await g.request("POST", "/v2/projects", { name: "vpcs-on-netemu" })).json.project_id as string;
    const node = async (body: Record<string, unknown>): Promise<Record<string, any>> => {
      const r = await g.request("POST", `/v2/projects/${p}/nodes`, body);
      ok(r, 201, `POST node ${JSON.stringify(body)}`, g);
      return r.json;
    };
    // From GNS3's built-in VPCS template, as the GUI drops one on a canvas.
    const fromTemplate = async (name: string): Promise<Record<string, any>> => {
      const r = await g.request("POST", `/v2/projects/${p}/templates/19021f99-e36f-394d-b4a1-8aaa902ab9cc`, { x: 0, y: 0, name, compute_id: "netemu" });
      ok(r, 201, `VPCS ${name} from the template on netemu`, g);
      return r.json;
    };
    const sw = await node({ name: "SW1", node_type: "ethernet_switch", compute_id: "netemu", console_type: "none" });
    const pc1 = await fromTemplate("PC1");
    const pc2 = await fromTemplate("PC2");
    expect(pc1).to.deep.include({ node_type: "vpcs", compute_id: "netemu", console_type: "telnet", status: "stopped" });
    expect(pc1.node_directory).to.match(/project-files\/vpcs\//);
    for (const [pc, port] of [[pc1, 0], [pc2, 1]] as const) {
      const r = await g.request("POST", `/v2/projects/${p}/links`, { nodes: [{ node_id: pc.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: port }] });
      ok(r, 201, "POST link", g);
    }
    ok(await g.request("POST", `/v2/projects/${p}/nodes/start`), 204, "start all", g);
    const started = (await g.request("GET", `/v2/projects/${p}/nodes/${pc1.node_id}`)).json;
    expect(started.status).to.equal("started");
    expect(started.command_line).to.match(/^\/opt\/gns3-peer\/bin\/vpcs -p \d+ -m \d+ -i 1 -F -R /);
    // netemu's VPCS serves its console itself (no GNS3 telnet proxy in front): on the compute's address.
    const [c1, c2] = await Promise.all(
      [pc1, pc2].map(async (pc) => {
        const n = (await g.request("GET", `/v2/projects/${p}/nodes/${pc.node_id as string}`)).json;
        expect(n.console_host).to.equal("127.0.0.2");
        const con = await VpcsConsole.open(n.console, n.console_host);
        vpcsConsoles.push(con);
        return con;
      }),
    );
    await c1!.command("ip 10.0.0.1/24");
    await c2!.command("ip 10.0.0.2/24");
    const ping = await c1!.ping("10.0.0.2", 3);
    expect(ping.replies, `PC1 pings PC2, both VPCS and the switch on netemu: ${ping.output}`).to.be.at.least(2);
    ok(await g.request("POST", `/v2/projects/${p}/nodes/stop`), 204, "stop all", g);
    expect((await g.request("GET", `/v2/projects/${p}/nodes/${pc1.node_id}`)).json.status).to.equal("stopped");
    ok(await g.request("DELETE", `/v2/projects/${p}`), 204, "delete project", g);
  });

  it("connects with the compute's credentials when netemu runs with --auth, and says Invalid auth for wrong ones", async () => {
    const g = (gns3 = await Gns3Server.start());
    const c = (compute = await startNetemuCompute({ user: "lab", password: "s3cret" }));

    const wrong = await g.request("POST", "/v2/computes", {
      compute_id: "netemu-wrong",
      name: "netemu-wrong",
      protocol: "http",
      host: "127.0.0.2",
      port: c.port,
      user: "lab",
      password: "guess",
    });
    expect(wrong.status, wrong.text).to.equal(409);
    expect(wrong.json.message).to.equal("Invalid auth for server netemu-wrong");

    ok(await addCompute(g, c, { user: "lab", password: "s3cret" }), 201, "POST /v2/computes with credentials", g);
    await waitConnected(g);

    // Ordinary requests carry the credentials too: a switch on netemu linked to a VPCS.
    const p = (await g.request("POST", "/v2/projects", { name: "netemu-auth" })).json.project_id as string;
    const sw = await g.request("POST", `/v2/projects/${p}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "netemu" });
    ok(sw, 201, "switch on netemu with auth", g);
    const pc = await g.request("POST", `/v2/projects/${p}/nodes`, { name: "PC1", node_type: "vpcs", compute_id: "local" });
    ok(pc, 201, "VPCS", g);
    const l = await g.request("POST", `/v2/projects/${p}/links`, {
      nodes: [
        { node_id: pc.json.node_id, adapter_number: 0, port_number: 0 },
        { node_id: sw.json.node_id, adapter_number: 0, port_number: 2 },
      ],
    });
    ok(l, 201, "link across computes with auth", g);
    const view = await c.netemu.useCases.getComputeNode.execute({ projectId: p, nodeId: sw.json.node_id });
    expect(view._tag === "Right" && view.right.node.nios.has(2), "the NIO is on netemu's port 2").to.equal(true);
    ok(await g.request("DELETE", `/v2/projects/${p}`), 204, "delete project", g);
  });

  it("moves a lab as a file: the project GNS3 wrote with switches and a hub on netemu opens in netemu's own controller, filters and suspend included", async () => {
    const g = (gns3 = await Gns3Server.start());
    const c = (compute = await startNetemuCompute());
    ok(await addCompute(g, c), 201, "POST /v2/computes", g);
    await waitConnected(g);
    const p = (await g.request("POST", "/v2/projects", { name: "moved-lab" })).json.project_id as string;
    const portsMapping = [
      { name: "Ethernet0", port_number: 0, type: "access", vlan: 10 },
      { name: "Ethernet1", port_number: 1, type: "dot1q", vlan: 1 },
      { name: "Ethernet2", port_number: 2, type: "qinq", vlan: 30, ethertype: "0x8100" },
    ];
    const sw = await g.request("POST", `/v2/projects/${p}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "netemu", properties: { ports_mapping: portsMapping } });
    ok(sw, 201, "switch on netemu", g);
    const hub = await g.request("POST", `/v2/projects/${p}/nodes`, { name: "HUB1", node_type: "ethernet_hub", compute_id: "netemu" });
    ok(hub, 201, "hub on netemu", g);
    const end = (node: Gns3Reply, port_number: number) => ({ node_id: node.json.node_id, adapter_number: 0, port_number });
    const filtered = await g.request("POST", `/v2/projects/${p}/links`, { nodes: [end(sw, 0), end(hub, 0)], filters: { packet_loss: [3], delay: [25, 2] } });
    ok(filtered, 201, "filtered link", g);
    const plain = await g.request("POST", `/v2/projects/${p}/links`, { nodes: [end(sw, 1), end(hub, 1)] });
    ok(plain, 201, "second link", g);
    ok(await g.request("PUT", `/v2/projects/${p}/links/${plain.json.link_id}`, { suspend: true }), 201, "suspend", g);
    const gns3Nodes = (await g.request("GET", `/v2/projects/${p}/nodes`)).json as { name: string; properties: { ports_mapping: unknown } }[];
    const gns3Links = (await g.request("GET", `/v2/projects/${p}/links`)).json as { link_id: string; filters: unknown; suspend: boolean }[];
    const project = (await g.request("GET", `/v2/projects/${p}`)).json as { path: string; filename: string };
    ok(await g.request("POST", `/v2/projects/${p}/close`), 204, "close (GNS3 writes the project file)", g);

    // The file GNS3 wrote, into a fresh netemu's projects directory, as a user would copy it.
    const dir = mkdtempSync(join(tmpdir(), "netemu-moved-"));
    try {
      mkdirSync(join(dir, "projects", p), { recursive: true });
      copyFileSync(join(project.path, project.filename), join(dir, "projects", p, project.filename));
      const netemu = createNetemu({ logLevel: "silent", persistProjects: true, settings: { configDir: dir, udpPortRange: { start: udpBase, end: udpBase + 99 } } });
      udpBase += 100;
      try {
        const { url } = await netemu.listen(0, "127.0.0.1");
        const get = async (path: string, method = "GET"): Promise<any> => (await (await fetch(`${url}${path}`, { method })).json()) as unknown;
        expect(((await get("/v2/projects")) as { project_id: string; status: string }[]).map((x) => [x.project_id, x.status])).to.deep.equal([[p, "closed"]]);
        expect((await get(`/v2/projects/${p}/open`, "POST")).status).to.equal("opened");
        const nodes = (await get(`/v2/projects/${p}/nodes`)) as { name: string; compute_id: string; properties: { ports_mapping: unknown } }[];
        expect(nodes.map((n) => [n.name, n.compute_id, n.properties.ports_mapping]).sort()).to.deep.equal(gns3Nodes.map((n) => [n.name, "local", n.properties.ports_mapping]).sort());
        const links = (await get(`/v2/projects/${p}/links`)) as { link_id: string; filters: unknown; suspend: boolean }[];
        const shape = (l: { link_id: string; filters: unknown; suspend: boolean }) => JSON.stringify([l.link_id, l.filters, l.suspend]);
        expect(links.map(shape).sort()).to.deep.equal(gns3Links.map(shape).sort());
        expect(links.find((l) => l.link_id === filtered.json.link_id)?.filters).to.deep.equal({ delay: [25, 2], packet_loss: [3] });
      } finally {
        await netemu.shutdown();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    ok(await g.request("DELETE", `/v2/projects/${p}`), 204, "delete project", g);
  });
});
