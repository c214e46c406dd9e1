import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { ensurePageBuilt } from "../support/netemu-page.js";
import { ethernetFrame, UdpPeer } from "../support/udp-peer.js";
import { wireUdpNio } from "../support/http-nios.js";
import { createHttpApp } from "../../src/adapters/http/app.js";

const LAB = "94949494-1111-4222-8333-444444444444";
const OTHER = "94949494-1111-4222-8333-555555555555";

describe("netemu's page and the routes it reads (ADR 0094)", function () {
  this.timeout(60_000);
  before(() => ensurePageBuilt());

  describe("GET /v2/netemu/labs and /v2/netemu/labs/{project_id}/counters", () => {
    let s: TestServer;
    const opened: UdpPeer[] = [];
    let switchId: string;
    let hubId: string;
    let sender: UdpPeer;
    let switchLport: number;
    beforeEach(async () => {
      s = await startTestServer();
      await s.request("POST", "/v2/compute/projects", { name: "placed-by-gns3", project_id: LAB });
      await s.request("POST", "/v2/compute/projects", { name: "empty", project_id: OTHER });
      switchId = (await s.request("POST", `/v2/compute/projects/${LAB}/ethernet_switch/nodes`, { name: "Switch1" })).json.node_id;
      hubId = (await s.request("POST", `/v2/compute/projects/${LAB}/ethernet_hub/nodes`, { name: "Hub1" })).json.node_id;
      const sw = `/v2/compute/projects/${LAB}/ethernet_switch/nodes/${switchId}`;
      const hub = `/v2/compute/projects/${LAB}/ethernet_hub/nodes/${hubId}`;
      // Switch1 Ethernet1 <-> Hub1 Ethernet0 as a GNS3 controller links them: two NIOs sending to each other.
      const [a, b] = [(await s.request("POST", `/v2/compute/projects/${LAB}/ports/udp`)).json.udp_port as number, (await s.request("POST", `/v2/compute/projects/${LAB}/ports/udp`)).json.udp_port as number];
      expect((await s.request("POST", `${sw}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: a, rhost: "127.0.0.1", rport: b })).status).to.equal(201);
      expect((await s.request("POST", `${hub}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: b, rhost: "127.0.0.1", rport: a })).status).to.equal(201);
      const wired = await wireUdpNio(s, LAB, sw, 0, opened);
      sender = wired.peer;
      switchLport = wired.lport;
      await wireUdpNio(s, LAB, hub, 1, opened);
    });
    afterEach(async () => {
      await s.close();
      for (const p of opened.splice(0)) await p.close();
    });

    it("answers every lab with its nodes, their ports, and the links read from the NIOs that send to each other", async () => {
      const r = await s.request("GET", "/v2/netemu/labs");
      expect(r.status, r.text).to.equal(200);
      const lab = r.json.find((l: { project_id: string }) => l.project_id === LAB);
      expect(lab).to.include({ name: "placed-by-gns3", held_by_controller: false });
      expect(lab.nodes.map((n: { name: string; node_type: string }) => [n.name, n.node_type]).sort()).to.deep.equal([["Hub1", "ethernet_hub"], ["Switch1", "ethernet_switch"]]);
      const sw = lab.nodes.find((n: { name: string }) => n.name === "Switch1");
      expect(sw.ports.slice(0, 3)).to.deep.equal([{ port_number: 0, name: "Ethernet0", connected: true }, { port_number: 1, name: "Ethernet1", connected: true }, { port_number: 2, name: "Ethernet2", connected: false }]);
      expect(lab.links).to.have.length(1);
      const ends = [lab.links[0].a, lab.links[0].b].sort((x: { node_id: string }, y: { node_id: string }) => (x.node_id === switchId ? -1 : y.node_id === switchId ? 1 : 0));
      expect(ends).to.deep.equal([{ node_id: switchId, port_number: 1 }, { node_id: hubId, port_number: 0 }]);
      expect(r.json.find((l: { project_id: string }) => l.project_id === OTHER)).to.deep.equal({ project_id: OTHER, name: "empty", held_by_controller: false, nodes: [], links: [], remote_links: [] });
    });

    it("gives each port whose NIO sends to no port here as a link to its peer's address (a node on another compute, an emulator)", async () => {
      const lab = (await s.request("GET", "/v2/netemu/labs")).json.find((l: { project_id: string }) => l.project_id === LAB);
      const remote = lab.remote_links.map((r: { a: { node_id: string; port_number: number }; peer: { host: string; port: number } }) => [r.a.node_id === switchId ? "Switch1" : "Hub1", r.a.port_number, r.peer.host, r.peer.port]);
      expect(remote.sort()).to.deep.equal([["Hub1", 1, "127.0.0.1", opened[1]!.port], ["Switch1", 0, "127.0.0.1", sender.port]].sort());
      // The wired pair is a link here, not two remote ends.
      expect(lab.links).to.have.length(1);
    });

    it("names the controller link of each link in a project of netemu's own, where its ends' one-way filters are set", async () => {
      const project = (await s.request("POST", "/v2/projects", { name: "own" })).json.project_id as string;
      const node = async (name: string, node_type: string) => (await s.request("POST", `/v2/projects/${project}/nodes`, { name, node_type, compute_id: "local" })).json.node_id as string;
      const [sw, hub] = [await node("SW", "ethernet_switch"), await node("Hub", "ethernet_hub")];
      const made = await s.request("POST", `/v2/projects/${project}/links`, { nodes: [{ node_id: sw, adapter_number: 0, port_number: 3 }, { node_id: hub, adapter_number: 0, port_number: 1 }] });
      expect(made.status, made.text).to.equal(201);
      const lab = (await s.request("GET", "/v2/netemu/labs")).json.find((l: { project_id: string }) => l.project_id === project);
      expect(lab.links).to.have.length(1);
      expect(lab.links[0].link_id).to.equal(made.json.link_id);
      expect([lab.links[0].a, lab.links[0].b].map((e: { node_id: string; port_number: number }) => `${e.node_id === sw ? "SW" : "Hub"}:${e.port_number}`).sort()).to.deep.equal(["Hub:1", "SW:3"]);
      expect(lab.remote_links).to.deep.equal([]);
    });

    it("marks a project of netemu's own controller and gives its nodes' places", async () => {
      const project = (await s.request("POST", "/v2/projects", { name: "own" })).json.project_id as string;
      await s.request("POST", `/v2/projects/${project}/nodes`, { name: "SW", node_type: "ethernet_switch", compute_id: "local", x: 120, y: -40 });
      const lab = (await s.request("GET", "/v2/netemu/labs")).json.find((l: { project_id: string }) => l.project_id === project);
      expect(lab.held_by_controller).to.equal(true);
      expect(lab.nodes.map((n: { name: string; x: number; y: number }) => [n.name, n.x, n.y])).to.deep.equal([["SW", 120, -40]]);
    });

    it("answers a lab's counters in one reading: every port's frames and bytes each way, drops by reason, MAC table sizes", async () => {
      for (let i = 0; i < 5; i++) await sender.send(ethernetFrame("ff:ff:ff:ff:ff:ff", "02:00:00:00:00:01", { payload: 100 }), switchLport);
      // A runt: dropped by the switch, counted under its reason.
      await sender.send(Buffer.alloc(8), switchLport);
      let counters: any;
      const deadline = Date.now() + 5000;
      do {
        await new Promise((r) => setTimeout(r, 50));
        counters = (await s.request("GET", `/v2/netemu/labs/${LAB}/counters`)).json;
      } while (Date.now() < deadline && counters.ports.find((p: { node_id: string; port_number: number }) => p.node_id === switchId && p.port_number === 0)?.frames_in !== 6);
      expect(counters.project_id).to.equal(LAB);
      expect(counters.at_ms).to.be.a("number");
      const port0 = counters.ports.find((p: { node_id: string; port_number: number }) => p.node_id === switchId && p.port_number === 0);
      expect(port0).to.include({ frames_in: 6 });
      expect(port0.drops).to.deep.equal({ runt: 1 });
      const port1 = counters.ports.find((p: { node_id: string; port_number: number }) => p.node_id === switchId && p.port_number === 1);
      expect(port1.frames_out).to.equal(5);
      const hubIn = counters.ports.find((p: { node_id: string; port_number: number }) => p.node_id === hubId && p.port_number === 0);
      expect(hubIn.frames_in).to.equal(5);
      expect(counters.mac_table_entries).to.deep.equal([{ node_id: switchId, entries: 1 }]);
      expect(counters.unanswered).to.deep.equal([]);
    });

    it("answers each port's measured queue delay each way, as the switch's own port statistics do (ADR 0097)", async () => {
      // Switch1 Ethernet1 sends towards Hub1 at 100 kbit/s: a frame of 1,000 B takes 80 ms, so ten sent
      // back to back wait about 0, 80, ... 720 ms before their transmission starts.
      const set = await s.request("PUT", "/v2/netemu/impairments", { project: LAB, node: switchId, port: "1", filters_in: {}, filters_out: { bandwidth: [100, 1000] } });
      expect(set.status, set.text).to.equal(200);
      for (let i = 0; i < 10; i++) await sender.send(ethernetFrame("ff:ff:ff:ff:ff:ff", "02:00:00:00:00:01", { payload: 986 }), switchLport);
      const portOf = (c: any, nodeId: string, port: number) => c.ports.find((p: { node_id: string; port_number: number }) => p.node_id === nodeId && p.port_number === port);
      let counters: any;
      const deadline = Date.now() + 5000;
      do {
        await new Promise((r) => setTimeout(r, 50));
        counters = (await s.request("GET", `/v2/netemu/labs/${LAB}/counters`)).json;
      } while (Date.now() < deadline && portOf(counters, switchId, 1)?.queue_delay.out.frames !== 10);
      const shaped = portOf(counters, switchId, 1).queue_delay;
      expect(shaped.out.frames).to.equal(10);
      // The sender's sends and the switch's reads take some of the wait away: the margins are wide.
      expect(shaped.out.max_ms, "the last frame waited for the nine before it").to.be.within(500, 730);
      expect(shaped.out.sum_ms / shaped.out.frames, "the mean wait").to.be.within(200, 370);
      expect(shaped.in).to.deep.equal({ sum_ms: 0, frames: 0, max_ms: 0 });
      expect(portOf(counters, switchId, 0), "a port whose queues nothing went through has no figures, so a large lab's reading stays small").not.to.have.property("queue_delay");
      const node = await s.request("GET", `/v2/compute/projects/${LAB}/ethernet_switch/nodes/${switchId}`);
      const statistics = node.json.ports_statistics.find((p: { port_number: number }) => p.port_number === 1);
      expect(statistics.queue_delay.out).to.deep.include({ frames: 10 });
      expect(statistics.queue_delay.out.sum_ms).to.equal(shaped.out.sum_ms);
    });

    it("refuses counters of a project id that is not a UUID (400) or not on this compute (404)", async () => {
      const bad = await s.request("GET", "/v2/netemu/labs/not-a-uuid/counters");
      expect([bad.status, bad.json]).to.deep.equal([400, { message: "Project ID not-a-uuid is not a valid UUID", status: 400, method: "GET", path: "/v2/netemu/labs/{project_id}/counters", request: {} }]);
      const gone = "94949494-1111-4222-8333-999999999999";
      const missing = await s.request("GET", `/v2/netemu/labs/${gone}/counters`);
      expect([missing.status, missing.json]).to.deep.equal([404, { message: `Project ID ${gone} doesn't exist`, status: 404 }]);
    });
  });

  describe("the page at /netemu/", () => {
    let s: TestServer;
    afterEach(() => s?.close());

    it("serves the page's HTML, its bundle and styles, from this origin only; /netemu goes to /netemu/", async () => {
      s = await startTestServer();
      const html = await s.request("GET", "/netemu/");
      expect(html.status).to.equal(200);
      expect(html.headers.get("content-type")).to.equal("text/html; charset=utf-8");
      expect(html.headers.get("content-security-policy")).to.contain("default-src 'self'");
      expect(html.text).to.contain('<script type="module" src="page.js">');
      const js = await s.request("GET", "/netemu/page.js");
      expect([js.status, js.headers.get("content-type")]).to.deep.equal([200, "text/javascript; charset=utf-8"]);
      // Nothing is fetched from another site at run time: no URL of one in the bundle's code paths.
      expect(js.text).to.not.match(/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr)/);
      expect((await s.request("GET", "/netemu/uPlot.min.css")).status).to.equal(200);
      const bare = await fetch(`${s.url}/netemu`, { redirect: "manual" });
      expect([bare.status, bare.headers.get("location")]).to.deep.equal([302, "/netemu/"]);
    });

    it("answers JSON 404 for a name that is not a file of the page, also one that climbs out of it", async () => {
      s = await startTestServer();
      for (const path of ["/netemu/nothing.js", "/netemu/..%2Fpackage.json", "/netemu/sub/page.js", "/netemu/.hidden.js", "/netemu/page.ts"]) {
        const r = await s.request("GET", path);
        expect([r.status, r.json], path).to.deep.equal([404, { message: "404: Not Found", status: 404 }]);
      }
    });

    it("answers 405 with Allow for a method other than GET or HEAD", async () => {
      s = await startTestServer();
      const r = await s.request("POST", "/netemu/", {});
      expect([r.status, r.json, r.headers.get("allow")]).to.deep.equal([405, { message: "405: Method Not Allowed", status: 405 }, "GET, HEAD"]);
    });

    it("refuses the page and its routes without credentials when --auth is on, and serves them with", async () => {
      s = await startTestServer({ settings: { auth: { enabled: true, user: "admin", password: "s3cret" } } });
      for (const path of ["/netemu/", "/netemu/page.js", "/v2/netemu/labs"]) {
        const r = await s.request("GET", path);
        expect([r.status, r.headers.get("www-authenticate")], path).to.deep.equal([401, 'Basic realm="GNS3 server"']);
      }
      const wrong = await s.request("GET", "/netemu/", undefined, { Authorization: `Basic ${Buffer.from("admin:nope").toString("base64")}` });
      expect(wrong.status).to.equal(401);
      const auth = { Authorization: `Basic ${Buffer.from("admin:s3cret").toString("base64")}` };
      expect((await s.request("GET", "/netemu/", undefined, auth)).status).to.equal(200);
      expect((await s.request("GET", "/v2/netemu/labs", undefined, auth)).status).to.equal(200);
    });

    it("says the page is not built, and how to build it, when its bundle is missing", async () => {
      const empty = mkdtempSync(join(tmpdir(), "netemu-no-page-"));
      try {
        s = await startTestServer();
        const app = createHttpApp({ useCases: s.netemu.useCases, settings: s.netemu.settings, logger: { debug() {}, info() {}, warn() {}, error() {} } as never, packageVersion: "0", pageDirectory: empty });
        const server = app.listen(0, "127.0.0.1");
        await new Promise((r) => server.once("listening", r));
        try {
          const port = (server.address() as { port: number }).port;
          const r = await fetch(`http://127.0.0.1:${port}/netemu/`);
          expect([r.status, await r.json()]).to.deep.equal([404, { message: `netemu's page is not built in ${empty}: npm run build builds it`, status: 404 }]);
        } finally {
          await new Promise((r) => server.close(r));
        }
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });
  });
});
