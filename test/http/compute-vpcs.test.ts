import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:net";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeHostProcesses } from "../support/fake-host-processes.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { ComputeNotification, Notifications } from "../../src/application/ports/notifications.js";
import type { UdpPortPool } from "../../src/application/ports/udp-port-pool.js";

/** GNS3's VPCS routes on netemu's compute, its processes faked: what the routes answer and keep (ADR 0081). */
describe("HTTP: the compute's VPCS nodes (GNS3 2.2's vpcs routes), processes faked", () => {
  let s: TestServer;
  let processes: FakeHostProcesses;
  let projectId: string;
  const base = () => `/v2/compute/projects/${projectId}/vpcs/nodes`;

  beforeEach(async () => {
    processes = new FakeHostProcesses();
    s = await startTestServer({ overrides: { hostProcesses: processes } });
    projectId = randomUUID();
    await s.request("POST", "/v2/compute/projects", { name: "p", project_id: projectId });
  });
  afterEach(async () => s.close());

  const create = async (body: Record<string, unknown> = { name: "PC1" }) => {
    const r = await s.request("POST", base(), body);
    expect(r.status, r.text).to.equal(201);
    return r.json as { node_id: string; console: number; node_directory: string };
  };

  it("writes the startup script once, %h as the node's name, and renames it with the node as GNS3 does", async () => {
    const pc = await create({ name: "PC1", startup_script: "set pcname %h\nip 10.0.0.1/24\n" });
    const script = `${pc.node_directory}/startup.vpc`;
    expect(processes.files.get(script)).to.equal("set pcname PC1\nip 10.0.0.1/24\n");
    const renamed = await s.request("PUT", `${base()}/${pc.node_id}`, { name: "Web" });
    expect(renamed.json.name).to.equal("Web");
    expect(processes.files.get(script)).to.equal("set pcname Web\nip 10.0.0.1/24\n");
  });

  it("gives each VPCS its own console port, refuses one already used, and takes console_type none as no console", async () => {
    const a = await create();
    const b = await create({ name: "PC2" });
    expect(a.console).to.not.equal(b.console);
    const taken = await s.request("POST", base(), { name: "PC3", console: a.console });
    expect(taken.json).to.deep.equal({ message: `Console port ${a.console} is already used by another node`, status: 409 });
    const none = await s.request("POST", base(), { name: "PC4", console_type: "none" });
    expect(none.json).to.include({ console: null, console_type: "none" });
    const net = (await s.request("GET", "/v2/compute/network/ports")).json;
    expect(net.console_ports).to.include.members([a.console, b.console]);
  });

  it("starts the program with GNS3's command line, in the node's directory, and answers it as command_line", async () => {
    const pc = await create({ name: "PC1", startup_script: "ip 10.0.0.1/24" });
    expect((await s.request("POST", `${base()}/${pc.node_id}/start`)).status).to.equal(204);
    const [spec] = processes.started;
    expect(spec?.program).to.equal("vpcs");
    expect(spec?.cwd).to.equal(pc.node_directory);
    expect(spec?.args.slice(0, 8)).to.deep.equal(["-p", String(pc.console), "-m", "0", "-i", "1", "-F", "-R"]);
    expect(spec?.args.at(-1)).to.equal("startup.vpc");
    const got = (await s.request("GET", `${base()}/${pc.node_id}`)).json;
    expect(got).to.include({ status: "started", command_line: `vpcs ${spec?.args.join(" ")}` });
    // suspend does nothing to a VPCS, as in GNS3.
    expect((await s.request("POST", `${base()}/${pc.node_id}/suspend`)).status).to.equal(204);
    expect((await s.request("GET", `${base()}/${pc.node_id}`)).json.status).to.equal("started");
  });

  it("starts Debian's 0.5b2 without -F and -R, as a daemon found by the UDP port it is told to bind, and says its death's status is unknown", async () => {
    await s.close();
    processes = new FakeHostProcesses("0.5b2");
    s = await startTestServer({ overrides: { hostProcesses: processes } });
    await s.request("POST", "/v2/compute/projects", { name: "p", project_id: projectId });
    const pc = await create();
    expect((await s.request("POST", `${base()}/${pc.node_id}/start`)).status).to.equal(204);
    const [spec] = processes.started;
    expect(spec?.args).to.not.include.members(["-F", "-R"]);
    expect(spec?.daemon).to.deep.equal({ udpPort: Number(spec?.args[spec.args.indexOf("-s") + 1]) });
    const heard: ComputeNotification[] = [];
    s.netemu.container.resolve<Notifications>(TOKENS.Notifications).subscribe((n) => heard.push(n));
    processes.die(pc.node_id, null);
    for (let i = 0; i < 50 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await s.request("GET", `${base()}/${pc.node_id}`)).json.status).to.equal("stopped");
    expect(heard.find((n) => n.kind === "log")).to.deep.include({ severity: "error", message: "VPCS process of PC1 has stopped, return code: unknown (a daemon's status goes to init)\n" });
  });

  it("refuses a start whose process dies at once with GNS3's VPCSError, and gives back the ports it took", async () => {
    const pc = await create();
    const pool = s.netemu.container.resolve<UdpPortPool>(TOKENS.UdpPortPool);
    const before = pool.reserved();
    processes.failStart = "it ended at once (exit code 1): bind: Address already in use";
    const r = await s.request("POST", `${base()}/${pc.node_id}/start`);
    expect(r.json).to.deep.equal({ exception: "VPCSError", message: "Could not start PC1 with vpcs: it ended at once (exit code 1): bind: Address already in use", status: 409 });
    expect((await s.request("GET", `${base()}/${pc.node_id}`)).json.status).to.equal("stopped");
    expect(pool.reserved()).to.deep.equal(before);
  });

  it("makes a VPCS whose process dies stopped, and tells its controller with a log.error and node.updated", async () => {
    const pc = await create();
    await s.request("POST", `${base()}/${pc.node_id}/start`);
    const heard: ComputeNotification[] = [];
    s.netemu.container.resolve<Notifications>(TOKENS.Notifications).subscribe((n) => heard.push(n));
    processes.die(pc.node_id, 139, "Segmentation fault");
    for (let i = 0; i < 50 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await s.request("GET", `${base()}/${pc.node_id}`)).json.status).to.equal("stopped");
    expect(heard.map((n) => n.kind).sort()).to.deep.equal(["log", "node.updated"]);
    expect(heard.find((n) => n.kind === "log")).to.deep.include({ severity: "error", message: "VPCS process of PC1 has stopped, return code: 139\nSegmentation fault" });
  });

  it("ends the process when the node is deleted, and answers GNS3's 404 on the VPCS routes for a switch", async () => {
    const pc = await create();
    await s.request("POST", `${base()}/${pc.node_id}/start`);
    expect(processes.pidOf(pc.node_id)).to.be.a("number");
    expect((await s.request("DELETE", `${base()}/${pc.node_id}`)).status).to.equal(204);
    expect(processes.pidOf(pc.node_id)).to.equal(undefined);
    const sw = (await s.request("POST", `/v2/compute/projects/${projectId}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id;
    expect((await s.request("GET", `${base()}/${sw}`)).status).to.equal(404);
  });

  it("refuses a NIO on a port VPCS does not have, naming the node", async () => {
    const pc = await create();
    const r = await s.request("POST", `${base()}/${pc.node_id}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001 });
    expect(r.json).to.deep.equal({ message: "Port 1 doesn't exist on VPCS PC1: it is not in ports_mapping", status: 404 });
  });
});

describe("HTTP: console ports a program outside netemu holds are not handed out", () => {
  let server: Server;
  let s: TestServer;
  afterEach(async () => {
    await s?.close();
    await new Promise((r) => server.close(r));
  });

  it("skips a console port another program listens on", async () => {
    server = createServer();
    await new Promise<void>((r) => server.listen({ port: 5000, host: "0.0.0.0" }, () => r()).once("error", () => r()));
    s = await startTestServer({ overrides: { hostProcesses: new FakeHostProcesses() } });
    const projectId = randomUUID();
    await s.request("POST", "/v2/compute/projects", { name: "p", project_id: projectId });
    const pc = (await s.request("POST", `/v2/compute/projects/${projectId}/vpcs/nodes`, { name: "PC1" })).json;
    expect(pc.console).to.not.equal(5000);
  });

  it("gives a VPCS of a project opened again another console port when a program outside netemu took its own meanwhile, as GNS3 does", async () => {
    s = await startTestServer({ overrides: { hostProcesses: new FakeHostProcesses() } });
    const projectId = (await s.request("POST", "/v2/projects", { name: "console-taken" })).json.project_id as string;
    const pc = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "PC1", node_type: "vpcs", compute_id: "local" })).json as { node_id: string; console: number };
    expect((await s.request("POST", `/v2/projects/${projectId}/close`)).status).to.equal(204);
    server = createServer();
    await new Promise<void>((r, reject) => server.listen({ port: pc.console, host: "0.0.0.0" }, () => r()).once("error", reject));
    expect((await s.request("POST", `/v2/projects/${projectId}/open`)).status).to.equal(201);
    const reopened = (await s.request("GET", `/v2/projects/${projectId}/nodes/${pc.node_id}`)).json as { console: number };
    expect(reopened.console).to.be.a("number").and.not.equal(pc.console);
  });
});
