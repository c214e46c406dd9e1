import { expect } from "chai";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IpNamespaceHosts } from "../../src/adapters/system/namespace-hosts.js";
import { NotificationHub } from "../../src/application/notification-hub.js";
import { hostTapName } from "../../src/domain/switching/netemu-host-node.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { testWorkerDataPlane } from "../support/live-data-planes.js";
import { hostTraces, requireRoot, sh } from "../support/netns.js";

const PROJECT = "87878787-2222-4444-8555-666666666666";
/** The hosts' namespaces hold this test's pid, so that what it made is told apart from anyone else's. */
const PREFIX = `lh${process.pid}-`;
const CRASHING_WORKER = new URL("../support/crashing-data-plane-worker.js", import.meta.url);
const HOST_A = "87878787-0000-4000-8000-00000000000a";
const HOST_B = "87878787-0000-4000-8000-00000000000b";

/** What a host leaves on the machine: its namespace and its TAP devices in netemu's namespace. */
const traces = (nodeIds: readonly string[]): Promise<string[]> => hostTraces(PREFIX, nodeIds);

/**
 * netemu's Linux host as a compute node kind (ADR 0087): `/v2/compute/projects/{id}/netemu_host/nodes`,
 * started as a network namespace behind TAPs netemu opens, linked to a switch by UDP NIOs like any node,
 * commands run inside through exec, nothing left after stop and delete. Root only (CI is root).
 */
describe("Linux hosts on the compute: namespaces behind TAPs netemu opens, linked like any node", function () {
  this.timeout(90_000);
  let stateDir: string;

  before(function () {
    requireRoot(this, "namespaces and TAP devices need root");
  });
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), "netemu-linux-hosts-"));
  });
  afterEach(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    expect(await traces([HOST_A, HOST_B]), "what the test made, left behind").to.deep.equal([]);
  });

  const hostsAdapter = () => new IpNamespaceHosts(stateDir, new RecordingLogger(), { namespacePrefix: PREFIX });

  /** A switch and two hosts (10.87.0.1, 10.87.0.2), each host's eth0 linked to a switch port by a pair of UDP NIOs. */
  async function twoHostsOnASwitch(s: TestServer): Promise<{ hosts: readonly string[] }> {
    expect((await s.request("POST", "/v2/compute/projects", { name: "linux-hosts", project_id: PROJECT })).status).to.equal(201);
    const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
    const hosts = [HOST_A, HOST_B];
    for (const [i, nodeId] of hosts.entries()) {
      const made = await s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes`, {
        name: `host${i + 1}`,
        node_id: nodeId,
        interfaces: [{ name: "eth0", address: `10.87.0.${i + 1}/24`, mac: `02:00:00:00:87:0${i + 1}` }],
        gateway: "10.87.0.254",
      });
      expect(made.status, made.text).to.equal(201);
      expect(made.json).to.deep.include({ status: "stopped", ports_mapping: [{ name: "eth0", port_number: 0 }], gateway: "10.87.0.254" });
      const udp = async () => (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      const [hostSide, switchSide] = [await udp(), await udp()];
      const a = await s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${nodeId}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: hostSide, rhost: "127.0.0.1", rport: switchSide });
      expect(a.status, a.text).to.equal(201);
      const b = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport: switchSide, rhost: "127.0.0.1", rport: hostSide });
      expect(b.status, b.text).to.equal(201);
    }
    return { hosts };
  }

  const exec = (s: TestServer, nodeId: string, argv: string[], extra: Record<string, unknown> = {}) => s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${nodeId}/exec`, { argv, ...extra });
  const ping = (s: TestServer, from: string, to: string) => exec(s, from, ["ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", to], { timeout: 20 });

  for (const workers of [0, 1]) {
    describe(workers === 0 ? "with the data plane on the main thread" : "with the data plane in a worker", () => {
      let s: TestServer;
      beforeEach(async () => {
        s = await startTestServer({ dataPlaneWorkers: workers, overrides: { namespaceHosts: hostsAdapter() } });
      });
      afterEach(async () => {
        await s.close();
      });

      it("starts two hosts whose pings cross a netemu switch, runs bounded commands inside, and leaves no namespace or TAP after stop and delete", async () => {
        const { hosts } = await twoHostsOnASwitch(s);
        for (const nodeId of hosts) expect((await s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${nodeId}/start`)).status).to.equal(204);
        expect(await traces(hosts)).to.have.members([`namespace ${PREFIX}${HOST_A}`, `namespace ${PREFIX}${HOST_B}`]);
        const running = await s.request("PUT", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${HOST_A}`, { gateway: null });
        expect([running.status, running.json.message]).to.deep.equal([409, "host1 is running: stop it to change its interfaces and gateway"]);
        // A rename changes nothing of the namespace: taken while it runs.
        expect((await s.request("PUT", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${HOST_A}`, { name: "host1" })).status).to.equal(200);

        const pinged = await ping(s, HOST_A, "10.87.0.2");
        expect(pinged.status, pinged.text).to.equal(200);
        expect(pinged.json.exit_code, pinged.json.stdout + pinged.json.stderr).to.equal(0);
        expect(pinged.json.stdout).to.contain("3 received");
        const addr = (await exec(s, HOST_B, ["ip", "-o", "link", "show", "dev", "eth0"])).json;
        expect(addr.stdout).to.contain("02:00:00:00:87:02");
        const route = (await exec(s, HOST_B, ["ip", "route", "show", "default"])).json;
        expect(route.stdout).to.contain("default via 10.87.0.254 dev eth0");
        const lo = (await exec(s, HOST_B, ["ip", "-o", "link", "show", "dev", "lo"])).json;
        expect(lo.stdout).to.match(/state UNKNOWN|UP/);
        const slow = (await exec(s, HOST_A, ["sleep", "30"], { timeout: 1 })).json;
        expect(slow).to.deep.include({ timed_out: true, signal: "SIGKILL", exit_code: null });
        const loud = (await exec(s, HOST_A, ["head", "-c", "100000", "/dev/zero"], { max_output_bytes: 1000 })).json;
        expect(loud).to.deep.include({ truncated: true, exit_code: 0 });
        expect(loud.stdout.length).to.equal(1000);

        // The GET answer counts the link port only: the inside TAP port is netemu's own.
        const got = (await s.request("GET", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${HOST_A}`)).json;
        expect(got.status).to.equal("started");
        expect((got.ports_statistics as { port_number: number }[]).map((p) => p.port_number)).to.deep.equal([0]);

        expect((await s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${HOST_A}/stop`)).status).to.equal(204);
        expect(await traces([HOST_A]), "a stopped host has no namespace and no TAP").to.deep.equal([]);
        const stopped = await exec(s, HOST_A, ["true"]);
        expect(stopped.status).to.equal(409);
        expect(stopped.json.message).to.equal("Linux host host1 is not started: start it first");
        expect((await s.request("DELETE", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${HOST_B}`)).status).to.equal(204);
        expect(await traces(hosts)).to.deep.equal([]);
      });

      it("closes a project's running hosts with it, and removes them at shutdown", async () => {
        const { hosts } = await twoHostsOnASwitch(s);
        for (const nodeId of hosts) await s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${nodeId}/start`);
        expect((await s.request("POST", `/v2/compute/projects/${PROJECT}/close`)).status).to.equal(204);
        expect(await traces(hosts)).to.deep.equal([]);
        await twoHostsOnASwitch(s);
        for (const nodeId of hosts) await s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${nodeId}/start`);
        expect(await traces(hosts)).to.have.length(2);
        await s.close();
        expect(await traces(hosts), "shutdown removed them").to.deep.equal([]);
      });
    });
  }

  it("plugs a host's TAP again after its data-plane worker dies and restarts, and pings resume", async () => {
    const notifications = new NotificationHub();
    const dataPlane = testWorkerDataPlane({ workers: 1, notifications, workerScript: CRASHING_WORKER });
    const s = await startTestServer({ overrides: { namespaceHosts: hostsAdapter(), notifications, dataPlane } });
    try {
      const { hosts } = await twoHostsOnASwitch(s);
      for (const nodeId of hosts) await s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${nodeId}/start`);
      expect((await ping(s, HOST_A, "10.87.0.2")).json.exit_code).to.equal(0);
      // A switch named crash... makes the test worker die (an uncaught exception, as a bug would).
      const told: string[] = [];
      notifications.subscribe((n) => told.push(n.kind === "log" ? n.message : n.kind));
      const crash = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "crash-me" })).json;
      // A node without NIOs is not sent to a worker: its first NIO sends it.
      const crashed = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${crash.node_id}/adapters/0/ports/0/nio`, { type: "nio_null" });
      expect(crashed.status, crashed.text).to.be.at.least(500);
      const back = () => told.filter((m) => /^The data plane of host\d forwards again$/.test(m)).length === 2;
      for (let i = 0; i < 100 && !back(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(back(), `the worker died and took the hosts back: ${told.join(" / ")}`).to.equal(true);
      let last: unknown;
      for (let attempt = 0; attempt < 40; attempt++) {
        const r = await exec(s, HOST_A, ["ping", "-n", "-c", "1", "-W", "1", "10.87.0.2"], { timeout: 5 });
        last = r.json;
        if (r.json.exit_code === 0) break;
      }
      expect(last, "pings resume after the worker's restart").to.deep.include({ exit_code: 0 });
      expect((await ping(s, HOST_B, "10.87.0.1")).json.exit_code).to.equal(0);
    } finally {
      await s.close();
      await dataPlane.close();
    }
  });

  it("removes at the next start the namespace and TAP of a host whose netemu was killed with -9", async () => {
    const configDir = mkdtempSync(join(tmpdir(), "netemu-killed-"));
    const nodeId = "87878787-0000-4000-8000-00000000000c";
    const root = new URL("../../src/", import.meta.url).pathname;
    // A netemu in a process of its own, with a started Linux host, killed as `kill -9` would.
    const script = [
      `const { createNetemu } = await import(${JSON.stringify(join(root, "adapters", "composition-root.js"))});`,
      `const netemu = createNetemu({ logLevel: "silent", settings: { host: "127.0.0.1", port: 0, configDir: ${JSON.stringify(configDir)}, udpPortRange: { start: 47100, end: 47199 } } });`,
      "const { url } = await netemu.listen(0, '127.0.0.1');",
      "const call = (m, p, b) => fetch(url + p, { method: m, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b ?? {}) });",
      `await call("POST", "/v2/compute/projects", { name: "killed", project_id: ${JSON.stringify(PROJECT)} });`,
      `await call("POST", "/v2/compute/projects/${PROJECT}/netemu_host/nodes", { name: "h", node_id: ${JSON.stringify(nodeId)} });`,
      `const started = await call("POST", "/v2/compute/projects/${PROJECT}/netemu_host/nodes/${nodeId}/start");`,
      "console.log(String(started.status));",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, ["-r", "reflect-metadata", "--input-type=module", "-e", `import "reflect-metadata";\n${script}`], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const line = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim())));
      expect(line, "the killed netemu had started its host").to.equal("204");
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const namespace = `netemu-${nodeId}`;
      expect((await sh("ip", "netns", "list")).includes(namespace), "its namespace outlived it").to.equal(true);
      const next = await startTestServer({ settings: { configDir } });
      try {
        for (let i = 0; i < 100 && (await sh("ip", "netns", "list")).includes(namespace); i++) await new Promise((r) => setTimeout(r, 100));
      } finally {
        await next.close();
      }
      expect((await sh("ip", "netns", "list")).includes(namespace), "the next start removed it").to.equal(false);
      expect(existsSync(`/sys/class/net/${hostTapName(nodeId, 0)}`), "and its TAP").to.equal(false);
    } finally {
      child.kill("SIGKILL");
      await sh("ip", "netns", "del", `netemu-${nodeId}`).catch(() => undefined);
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it("refuses to start a host without root, naming it and what is missing, and changes nothing", async () => {
    const s = await startTestServer({ overrides: { namespaceHosts: new IpNamespaceHosts(stateDir, new RecordingLogger(), { namespacePrefix: PREFIX, privileged: () => false }) } });
    try {
      await twoHostsOnASwitch(s);
      const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${HOST_A}/start`);
      expect(r.status).to.equal(409);
      expect(r.json.message).to.equal(
        "Cannot start Linux host host1: netemu does not run as root, and a Linux host needs root (CAP_SYS_ADMIN for its network namespace, CAP_NET_ADMIN for its TAP devices); run netemu as root",
      );
      expect((await s.request("GET", `/v2/compute/projects/${PROJECT}/netemu_host/nodes/${HOST_A}`)).json.status).to.equal("stopped");
      expect(await traces([HOST_A])).to.deep.equal([]);
    } finally {
      await s.close();
    }
  });
});
