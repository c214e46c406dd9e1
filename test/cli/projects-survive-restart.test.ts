import { expect } from "chai";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, type Served } from "../support/netemu-cli.js";

const GNS3_WROTE = new URL("../../../../shared/gns3-peer/projects/", import.meta.url);

async function call(s: Served, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${s.url}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, json: text === "" ? undefined : JSON.parse(text) };
}

async function stop(s: Served): Promise<void> {
  s.child.kill("SIGTERM");
  expect((await s.exit).code).to.equal(0);
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

describe("a lab survives a restart of netemu serve (projects as GNS3 project files)", function () {
  this.timeout(60_000);
  let configDir: string;
  let running: Served | undefined;
  const projectsPath = (): string => join(configDir, "projects");
  beforeEach(() => (configDir = mkdtempSync(join(tmpdir(), "netemu-restart-"))));
  afterEach(async () => {
    if (running !== undefined && running.child.exitCode === null) running.child.kill("SIGKILL");
    running = undefined;
    rmSync(configDir, { recursive: true, force: true });
  });

  it("lists the project again, closed, and open rebuilds its switches, hubs, links, filters and suspend", async () => {
    let s = (running = await serve(configDir));
    const project = (await call(s, "POST", "/v2/projects", { name: "class-lab" })).json;
    const p = project.project_id as string;
    const portsMapping = [
      { name: "Ethernet0", port_number: 0, type: "access", vlan: 10 },
      { name: "Ethernet1", port_number: 1, type: "dot1q", vlan: 1 },
      { name: "Ethernet2", port_number: 2, type: "access", vlan: 20 },
    ];
    const sw = (await call(s, "POST", `/v2/projects/${p}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local", properties: { ports_mapping: portsMapping }, x: 100, y: -50 })).json;
    const hub = (await call(s, "POST", `/v2/projects/${p}/nodes`, { name: "HUB1", node_type: "ethernet_hub", compute_id: "local" })).json;
    const end = (node_id: string, port_number: number) => ({ node_id, adapter_number: 0, port_number });
    const impaired = (await call(s, "POST", `/v2/projects/${p}/links`, { nodes: [end(sw.node_id, 0), end(hub.node_id, 0)], filters: { packet_loss: [5], delay: [20, 3] } })).json;
    const suspended = (await call(s, "POST", `/v2/projects/${p}/links`, { nodes: [end(sw.node_id, 1), end(hub.node_id, 1)], suspend: true })).json;
    expect(suspended.suspend).to.equal(true);
    await stop(s);
    expect(filesUnder(projectsPath())).to.include(join(p, "class-lab.gns3"));

    s = running = await serve(configDir);
    const listed = (await call(s, "GET", "/v2/projects")).json as { project_id: string; status: string; filename: string; path: string }[];
    expect(listed.map((x) => [x.project_id, x.status, x.filename, x.path])).to.deep.equal([[p, "closed", "class-lab.gns3", join(projectsPath(), p)]]);
    const opened = await call(s, "POST", `/v2/projects/${p}/open`);
    expect(opened.status, JSON.stringify(opened.json)).to.equal(201);

    const nodes = (await call(s, "GET", `/v2/projects/${p}/nodes`)).json as { name: string; node_id: string; x: number; y: number; properties: { ports_mapping: unknown } }[];
    expect(nodes.map((n) => [n.name, n.node_id, n.x, n.y]).sort()).to.deep.equal([
      ["HUB1", hub.node_id, 0, 0],
      ["SW1", sw.node_id, 100, -50],
    ]);
    expect(nodes.find((n) => n.name === "SW1")?.properties.ports_mapping).to.deep.equal(portsMapping);
    const links = (await call(s, "GET", `/v2/projects/${p}/links`)).json as { link_id: string; filters: unknown; suspend: boolean }[];
    expect(links.map((l) => [l.link_id, l.filters, l.suspend]).sort()).to.deep.equal(
      [
        [impaired.link_id, { delay: [20, 3], packet_loss: [5] }, false],
        [suspended.link_id, {}, true],
      ].sort(),
    );
    // The live side: the switch exists on the compute again, with a NIO on each linked port.
    const live = (await call(s, "GET", `/v2/compute/projects/${p}/ethernet_switch/nodes/${sw.node_id}`)).json as { ports_statistics: { port_number: number }[] };
    expect(live.ports_statistics.map((x) => x.port_number)).to.deep.equal([0, 1]);
    await stop(s);
  });

  it("opens projects GNS3 2.2 wrote, with switches and a hub, and with VPCS nodes (their consoles as written), leaving their files as they were", async () => {
    const hubLab = join(projectsPath(), "02ae1f4f-ce48-4b47-a893-97a2af975372");
    const vpcsLab = join(projectsPath(), "vpcs-lab");
    mkdirSync(hubLab, { recursive: true });
    mkdirSync(vpcsLab, { recursive: true });
    cpSync(new URL("switches-and-hub.gns3", GNS3_WROTE), join(hubLab, "switches-and-hub.gns3"));
    cpSync(new URL("switch-and-vpcs.gns3", GNS3_WROTE), join(vpcsLab, "switch-and-vpcs.gns3"));
    const vpcsFile = readFileSync(join(vpcsLab, "switch-and-vpcs.gns3"), "utf8");

    const s = (running = await serve(configDir));
    const listed = (await call(s, "GET", "/v2/projects")).json as { name: string; status: string; project_id: string }[];
    expect(listed.map((x) => [x.name, x.status]).sort()).to.deep.equal([
      ["switch-and-vpcs", "closed"],
      ["switches-and-hub", "closed"],
    ]);
    const hubProject = "02ae1f4f-ce48-4b47-a893-97a2af975372";
    expect((await call(s, "POST", `/v2/projects/${hubProject}/open`)).status).to.equal(201);
    const nodes = (await call(s, "GET", `/v2/projects/${hubProject}/nodes`)).json as { name: string }[];
    expect(nodes.map((n) => n.name).sort()).to.deep.equal(["HUB1", "SW1", "SW2"]);
    const links = (await call(s, "GET", `/v2/projects/${hubProject}/links`)).json as { filters: unknown; suspend: boolean }[];
    expect(links.map((l) => JSON.stringify([l.filters, l.suspend])).sort()).to.deep.equal(['[{"delay":[40,5],"packet_loss":[2]},false]', "[{},false]", "[{},true]"]);

    const vpcsProject = listed.find((x) => x.name === "switch-and-vpcs")?.project_id as string;
    // VPCS nodes since ADR 0081: they come back stopped, on the console ports GNS3 wrote.
    expect((await call(s, "POST", `/v2/projects/${vpcsProject}/open`)).status).to.equal(201);
    const vpcsNodes = (await call(s, "GET", `/v2/projects/${vpcsProject}/nodes`)).json as { name: string; node_type: string; status: string; console: number }[];
    expect(vpcsNodes.map((n) => [n.name, n.node_type, n.status, n.console]).sort()).to.deep.equal([
      ["PC1", "vpcs", "stopped", 5001],
      ["PC2", "vpcs", "stopped", 5003],
      ["SW1", "ethernet_switch", "started", null],
    ]);
    await stop(s);
    expect(readFileSync(join(vpcsLab, "switch-and-vpcs.gns3"), "utf8")).to.equal(vpcsFile);
  });

  it("opens at start, as GNS3 does, the projects whose auto_open is set, and only those", async () => {
    let s = (running = await serve(configDir));
    const auto = (await call(s, "POST", "/v2/projects", { name: "runs-itself", auto_open: true })).json.project_id as string;
    const manual = (await call(s, "POST", "/v2/projects", { name: "opened-by-hand" })).json.project_id as string;
    const sw = (await call(s, "POST", `/v2/projects/${auto}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json;
    await stop(s);

    s = running = await serve(configDir);
    const status = async (p: string): Promise<string> => (await call(s, "GET", `/v2/projects/${p}`)).json.status as string;
    expect([await status(auto), await status(manual)]).to.deep.equal(["opened", "closed"]);
    expect((await call(s, "GET", `/v2/compute/projects/${auto}/ethernet_switch/nodes/${sw.node_id}`)).status, "its switch is live again").to.equal(200);
    await stop(s);
  });

  it("after kill -9 in the middle of writes, the next start finds whole files only and no leftovers", async () => {
    const s = (running = await serve(configDir));
    const p = (await call(s, "POST", "/v2/projects", { name: "busy" })).json.project_id as string;
    // Keep the project changing, so that its file is rewritten (at least once a second while changes
    // keep coming, ADR 0086), then kill the process without warning, most likely mid-write.
    let killed = false;
    const creating = (async () => {
      for (let i = 0; !killed; i++) await call(s, "POST", `/v2/projects/${p}/nodes`, { name: `SW${i}`, node_type: "ethernet_switch", compute_id: "local" }).catch(() => undefined);
    })();
    await new Promise((r) => setTimeout(r, 1500));
    killed = true;
    s.child.kill("SIGKILL");
    await s.exit;
    await creating;

    const again = (running = await serve(configDir));
    const listed = (await call(again, "GET", "/v2/projects")).json as { project_id: string }[];
    const files = filesUnder(projectsPath());
    expect(files.filter((f) => f.endsWith(".tmp")), "no temporary files left").to.deep.equal([]);
    for (const f of files.filter((x) => x.endsWith(".gns3"))) expect(() => JSON.parse(readFileSync(join(projectsPath(), f), "utf8")), f).not.to.throw();
    // The project is there if its first write had landed; whatever landed is whole.
    expect(listed.map((x) => x.project_id)).to.deep.equal(files.some((f) => f.endsWith(".gns3")) ? [p] : []);
    await stop(again);
  });
});
