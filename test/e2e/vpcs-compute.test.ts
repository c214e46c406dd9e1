import { expect } from "chai";
import { running as alive, runningIn } from "../support/process-checks.js";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { DEBIAN_VPCS, GNS3_PEER_VPCS, VpcsConsole } from "../support/vpcs-console.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { HostProcesses } from "../../src/application/ports/host-processes.js";

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** GNS3's VPCS (stays in the foreground with -F) and Debian's (daemonizes: found by its UDP port, ADR 0088). */
const PROGRAMS = [
  { path: GNS3_PEER_VPCS, version: "0.8.3", flags: "-F -R " },
  { path: DEBIAN_VPCS, version: "0.5b2", flags: "" },
] as const;

for (const vpcs of PROGRAMS)
describe(`end to end: netemu's compute runs VPCS nodes as GNS3's compute does (real VPCS ${vpcs.version})`, function () {
  this.timeout(90_000);
  let s: TestServer;
  let projectId: string;
  const consoles: VpcsConsole[] = [];

  before(function () {
    if (!existsSync(vpcs.path)) this.skip();
  });

  beforeEach(async () => {
    s = await startTestServer({ settings: { vpcsPath: vpcs.path } });
    projectId = randomUUID();
    expect((await s.request("POST", "/v2/compute/projects", { name: "vpcs", project_id: projectId })).status).to.equal(201);
  });

  afterEach(async () => {
    for (const c of consoles.splice(0)) c.close();
    await s?.close();
  });

  const base = () => `/v2/compute/projects/${projectId}`;
  const processes = (): HostProcesses => s.netemu.container.resolve<HostProcesses>(TOKENS.HostProcesses);
  const udpPort = async (): Promise<number> => (await s.request("POST", `${base()}/ports/udp`, {})).json.udp_port;

  /** A VPCS and a switch port joined by a UDP tunnel, as a controller wires a link. */
  async function wire(vpcsId: string, switchId: string, switchPort: number): Promise<void> {
    const [a, b] = [await udpPort(), await udpPort()];
    const toSwitch = await s.request("POST", `${base()}/vpcs/nodes/${vpcsId}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: a, rhost: "127.0.0.1", rport: b });
    expect(toSwitch.status, toSwitch.text).to.equal(201);
    const toVpcs = await s.request("POST", `${base()}/ethernet_switch/nodes/${switchId}/adapters/0/ports/${switchPort}/nio`, { type: "nio_udp", lport: b, rhost: "127.0.0.1", rport: a });
    expect(toVpcs.status, toVpcs.text).to.equal(201);
  }

  it("answers a created VPCS in GNS3's shape: stopped, a telnet console of the console range, its directory, no command line yet", async () => {
    const r = await s.request("POST", `${base()}/vpcs/nodes`, { name: "PC1", startup_script: "set pcname %h\nip 10.0.0.9/24\n" });
    expect(r.status, r.text).to.equal(201);
    expect(Object.keys(r.json).sort()).to.deep.equal(["command_line", "console", "console_type", "name", "node_directory", "node_id", "project_id", "status"]);
    expect(r.json).to.include({ name: "PC1", status: "stopped", console_type: "telnet", command_line: "", project_id: projectId });
    expect(r.json.console).to.be.within(5000, 10000);
    expect(r.json.node_directory).to.match(new RegExp(`/${projectId}/project-files/vpcs/${r.json.node_id}$`));
    expect(readFileSync(`${r.json.node_directory}/startup.vpc`, "utf8")).to.equal("set pcname PC1\nip 10.0.0.9/24\n");
    const capabilities = await s.request("GET", "/v2/compute/capabilities");
    expect(capabilities.json.node_types).to.include("vpcs");
  });

  for (const workers of [0, 1]) {
    it(`starts one VPCS process per node whose frames cross a netemu switch: the two ping each other from their consoles (${workers === 0 ? "main-thread" : "worker"} data plane)`, async () => {
      if (workers > 0) {
        await s.close();
        s = await startTestServer({ settings: { vpcsPath: vpcs.path }, dataPlaneWorkers: workers });
        await s.request("POST", "/v2/compute/projects", { name: "vpcs", project_id: projectId });
      }
      const sw = (await s.request("POST", `${base()}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id;
      const pcs = [];
      for (const name of ["PC1", "PC2"]) pcs.push((await s.request("POST", `${base()}/vpcs/nodes`, { name })).json);
      await wire(pcs[0].node_id, sw, 0);
      await wire(pcs[1].node_id, sw, 1);
      for (const pc of pcs) expect((await s.request("POST", `${base()}/vpcs/nodes/${pc.node_id}/start`, {})).status).to.equal(204);
      const started = (await s.request("GET", `${base()}/vpcs/nodes/${pcs[0].node_id}`)).json;
      expect(started.status).to.equal("started");
      expect(started.command_line).to.match(new RegExp(`^${vpcs.path} -p ${pcs[0].console} -m \\d+ -i 1 ${vpcs.flags}-s \\d+ -c \\d+ -t 127.0.0.1$`));
      const [c1, c2] = [await VpcsConsole.open(pcs[0].console), await VpcsConsole.open(pcs[1].console)];
      consoles.push(c1, c2);
      await c1.command("ip 10.0.0.1/24");
      await c2.command("ip 10.0.0.2/24");
      const ping = await c1.ping("10.0.0.2", 3);
      expect(ping.replies, ping.output).to.be.at.least(2);
    });
  }

  it("serves VPCS on /v3/compute as GNS3 3.0.6's compute does: created, started, pinging through a switch, stopped, deleted", async () => {
    await s.close();
    s = await startTestServer({ settings: { vpcsPath: vpcs.path, v3: { gns3Version: "3.0.6", noAuth: true } } });
    const v3 = `/v3/compute/projects/${projectId}`;
    expect((await s.request("POST", "/v3/compute/projects", { name: "vpcs3", project_id: projectId })).status).to.equal(201);
    expect((await s.request("GET", "/v3/compute/capabilities")).json.node_types).to.include("vpcs");
    const sw = (await s.request("POST", `${v3}/ethernet_switch/nodes`, { name: "SW1", builtin: true, console_type: "none" })).json.node_id;
    const pcs = [];
    for (const name of ["PC1", "PC2"]) {
      // What a 3.x controller sends for a node from the built-in VPCS template.
      const r = await s.request("POST", `${v3}/vpcs/nodes`, { name, usage: "", console_type: "telnet", startup_script: null, builtin: true });
      expect(r.status, r.text).to.equal(201);
      expect(r.json).to.include({ name, status: "stopped", usage: "", startup_script: null, console_type: "telnet" });
      pcs.push(r.json);
    }
    for (const [i, pc] of pcs.entries()) {
      const port = async () => (await s.request("POST", `${v3}/ports/udp`, {})).json.udp_port;
      const [a, b] = [await port(), await port()];
      const toSwitch = await s.request("POST", `${v3}/vpcs/nodes/${pc.node_id}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: a, rhost: "127.0.0.1", rport: b, filters: {}, suspend: false });
      expect(toSwitch.status, toSwitch.text).to.equal(201);
      const toVpcs = await s.request("POST", `${v3}/ethernet_switch/nodes/${sw}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport: b, rhost: "127.0.0.1", rport: a, filters: {}, suspend: false });
      expect(toVpcs.status, toVpcs.text).to.equal(201);
    }
    for (const pc of pcs) expect((await s.request("POST", `${v3}/vpcs/nodes/${pc.node_id}/start`, {})).status).to.equal(204);
    expect((await s.request("GET", `${v3}/vpcs/nodes/${pcs[0].node_id}`)).json).to.include({ status: "started", usage: "" });
    const [c1, c2] = [await VpcsConsole.open(pcs[0].console), await VpcsConsole.open(pcs[1].console)];
    consoles.push(c1, c2);
    await c1.command("ip 10.0.3.1/24");
    await c2.command("ip 10.0.3.2/24");
    const ping = await c1.ping("10.0.3.2", 3);
    expect(ping.replies, ping.output).to.be.at.least(2);
    const pid = processes().pidOf(pcs[0].node_id) as number;
    expect((await s.request("POST", `${v3}/vpcs/nodes/${pcs[0].node_id}/stop`, {})).status).to.equal(204);
    await until("its process to be gone", () => !alive(pid), 5000);
    expect((await s.request("GET", `${v3}/vpcs/nodes/${pcs[0].node_id}`)).json.status).to.equal("stopped");
    const other = processes().pidOf(pcs[1].node_id) as number;
    expect((await s.request("DELETE", `${v3}/vpcs/nodes/${pcs[1].node_id}`)).status).to.equal(204);
    await until("the deleted node's process to be gone", () => !alive(other), 5000);
    expect((await s.request("GET", `${v3}/vpcs/nodes/${pcs[1].node_id}`)).status).to.equal(404);
  });

  it("refuses a start whose console port another program holds (409 with what VPCS said), the node stopped and nothing of it left", async () => {
    // Taken after the node was made (a console port held at creation is not handed out at all).
    const pc = (await s.request("POST", `${base()}/vpcs/nodes`, { name: "PC1" })).json;
    const holder = createServer();
    await new Promise<void>((r, reject) => holder.listen(pc.console, "0.0.0.0", r).once("error", reject));
    try {
      const r = await s.request("POST", `${base()}/vpcs/nodes/${pc.node_id}/start`, {});
      expect(r.status, r.text).to.equal(409);
      expect(r.json.message).to.match(new RegExp(`^Could not start PC1 with ${vpcs.path}: `)).and.match(/Address already in use/);
      expect((await s.request("GET", `${base()}/vpcs/nodes/${pc.node_id}`)).json.status).to.equal("stopped");
      expect(processes().pidOf(pc.node_id)).to.equal(undefined);
      expect(runningIn(vpcs.path, pc.node_directory)).to.deep.equal([]);
    } finally {
      holder.close();
    }
  });

  it("ends the process on stop, and a process that dies on its own makes its node stopped with a log.error, never hung", async () => {
    const pc = (await s.request("POST", `${base()}/vpcs/nodes`, { name: "PC1" })).json;
    expect((await s.request("POST", `${base()}/vpcs/nodes/${pc.node_id}/start`, {})).status).to.equal(204);
    const pid = processes().pidOf(pc.node_id) as number;
    expect(alive(pid)).to.equal(true);
    expect((await s.request("POST", `${base()}/vpcs/nodes/${pc.node_id}/stop`, {})).status).to.equal(204);
    expect(alive(pid)).to.equal(false);
    expect((await s.request("GET", `${base()}/vpcs/nodes/${pc.node_id}`)).json.status).to.equal("stopped");

    const heard: unknown[] = [];
    s.netemu.container.resolve<{ subscribe(l: (n: unknown) => void): () => void }>(TOKENS.Notifications).subscribe((n) => heard.push(n));
    expect((await s.request("POST", `${base()}/vpcs/nodes/${pc.node_id}/start`, {})).status).to.equal(204);
    const again = processes().pidOf(pc.node_id) as number;
    // VPCS 0.8.3 forks its console pty into a session of its own, which ignores SIGHUP: it must not outlive it.
    // VPCS 0.5b2's daemon (the pid known) forks the instance that holds the UDP socket: it must not either.
    const forked = readFileSync(`/proc/${again}/task/${again}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    expect(forked).to.have.length.at.least(1);
    process.kill(again, "SIGKILL");
    await until("the node to be stopped", async () => (await s.request("GET", `${base()}/vpcs/nodes/${pc.node_id}`)).json.status === "stopped");
    await until("its forked console child to be gone", () => forked.filter(alive).length === 0, 5000);
    expect(heard.some((n) => (n as { kind: string; message?: string }).kind === "log" && /VPCS process of PC1 has stopped/.test((n as { message: string }).message))).to.equal(true);
    // It starts again after its death.
    expect((await s.request("POST", `${base()}/vpcs/nodes/${pc.node_id}/start`, {})).status).to.equal(204);
  });

  it("leaves no VPCS process behind when its project closes or the server shuts down", async () => {
    const pids: number[] = [];
    for (const name of ["PC1", "PC2"]) {
      const pc = (await s.request("POST", `${base()}/vpcs/nodes`, { name })).json;
      await s.request("POST", `${base()}/vpcs/nodes/${pc.node_id}/start`, {});
      pids.push(processes().pidOf(pc.node_id) as number);
    }
    expect((await s.request("POST", `${base()}/close`, {})).status).to.equal(204);
    expect(alive(pids[0] as number)).to.equal(false);
    const other = randomUUID();
    await s.request("POST", "/v2/compute/projects", { name: "other", project_id: other });
    const pc = (await s.request("POST", `/v2/compute/projects/${other}/vpcs/nodes`, { name: "PC3" })).json;
    await s.request("POST", `/v2/compute/projects/${other}/vpcs/nodes/${pc.node_id}/start`, {});
    const last = processes().pidOf(pc.node_id) as number;
    await s.netemu.shutdown();
    expect(pids.concat(last).filter(alive)).to.deep.equal([]);
  });

});

describe("end to end: netemu's compute refuses to start a VPCS with a program it cannot run", function () {
  this.timeout(30_000);
  let s: TestServer | undefined;
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-not-vpcs-"));
  });

  afterEach(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A program that prints `text` for `-v` and would otherwise run for a minute. */
  function program(text: string): string {
    const path = join(dir, "vpcs");
    writeFileSync(path, `#!/bin/sh\n[ "$1" = -v ] && { printf '%s\\n' ${JSON.stringify(text)}; exit 0; }\nsleep 60\n`, { mode: 0o755 });
    return path;
  }

  for (const [what, text, reason] of [
    ["that is not a VPCS", "hello", /does not print a VPCS version/],
    ["a VPCS older than 0.5b2", "Welcome to Virtual PC Simulator, version 0.4.2", /0\.4\.2 is too old: netemu needs 0\.5b2/],
  ] as const) {
    it(`refuses ${what}, naming the node and the setting, and the node stays stopped`, async () => {
      s = await startTestServer({ settings: { vpcsPath: program(text) } });
      const projectId = randomUUID();
      await s.request("POST", "/v2/compute/projects", { name: "vpcs", project_id: projectId });
      const pc = (await s.request("POST", `/v2/compute/projects/${projectId}/vpcs/nodes`, { name: "PC1" })).json;
      const r = await s.request("POST", `/v2/compute/projects/${projectId}/vpcs/nodes/${pc.node_id}/start`, {});
      expect(r.status).to.equal(409);
      expect(r.json.message).to.match(/Cannot start PC1: /).and.match(reason).and.match(/--vpcs-path/);
      expect((await s.request("GET", `/v2/compute/projects/${projectId}/vpcs/nodes/${pc.node_id}`)).json.status).to.equal("stopped");
    });
  }
});
