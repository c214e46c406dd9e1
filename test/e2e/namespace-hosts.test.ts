import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as E from "fp-ts/lib/Either.js";
import { IpNamespaceHosts } from "../../src/adapters/system/namespace-hosts.js";
import type { HostSpec } from "../../src/application/ports/namespace-hosts.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { TestNamespace, leftovers, requireRoot, sh, testName } from "../support/netns.js";

const PROJECT = "83838383-2222-4444-8555-666666666666";
const here = dirname(fileURLToPath(import.meta.url));
/** Every namespace a test's hosts make holds the test's pid, so `leftovers()` finds them. */
const PREFIX = `nh${process.pid}-`;

const hostSpec = (name: string, index: number): HostSpec => ({
  name,
  interfaces: [{ tap: testName("hx", `${name}0`), inside: "eth0", addresses: [`10.84.0.${index}/24`], macAddress: `02:00:00:00:84:0${index}` }],
  gateway: "10.84.0.254",
});

const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left));
  return e.right;
};

/**
 * Namespace hosts (ADR 0083): network namespaces with TAP interfaces netemu's own data plane opens
 * (nio_tap), addresses, a default route, commands run inside, and nothing left behind after
 * destroy, shutdown or a kill -9 and the next start. Root only (CI is root).
 */
describe("namespace hosts: Linux hosts joined to netemu's switches by TAP devices it opens itself", function () {
  this.timeout(60_000);
  let stateDir: string;

  before(function () {
    requireRoot(this, "namespaces and TAP devices need root");
  });
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), "netemu-hosts-"));
  });
  afterEach(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    expect(await leftovers(), "what the test made, left behind").to.deep.equal([]);
  });

  for (const workers of [0, 1]) {
    describe(workers === 0 ? "with the data plane on the main thread" : "with the data plane in a worker", () => {
      let s: TestServer;
      let hosts: IpNamespaceHosts;
      beforeEach(async () => {
        s = await startTestServer({ dataPlaneWorkers: workers });
        hosts = new IpNamespaceHosts(stateDir, new RecordingLogger(), { namespacePrefix: PREFIX });
      });
      afterEach(async () => {
        await hosts.close();
        await s.close();
      });

      it("creates two hosts, pings between them across a netemu switch, runs bounded commands inside, and leaves nothing after destroy", async () => {
        await s.request("POST", "/v2/compute/projects", { name: "hosts", project_id: PROJECT });
        const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
        const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
        const made = [right(await hosts.create(hostSpec("a", 1))), right(await hosts.create(hostSpec("b", 2)))];
        expect(made.map((h) => h.namespace)).to.deep.equal([`${PREFIX}a`, `${PREFIX}b`]);
        for (const [port, host] of made.entries()) {
          const r = await s.request("POST", `${base}/adapters/0/ports/${port}/nio`, { type: "nio_tap", tap_device: host.taps[0] });
          expect(r.status, r.text).to.equal(201);
          right(await hosts.plug(host.name));
        }
        const ping = right(await hosts.exec("a", ["ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", "10.84.0.2"], { timeoutMs: 10_000, maxOutputBytes: 64_000 }));
        expect(ping.exitCode, ping.stdout + ping.stderr).to.equal(0);
        expect(ping.stdout).to.contain("3 received");
        const inside = right(await hosts.exec("b", ["ip", "-o", "addr", "show", "dev", "eth0"], { timeoutMs: 5000, maxOutputBytes: 64_000 }));
        expect(inside.stdout).to.contain("10.84.0.2/24");
        const route = right(await hosts.exec("b", ["ip", "route", "show", "default"], { timeoutMs: 5000, maxOutputBytes: 64_000 }));
        expect(route.stdout).to.contain("default via 10.84.0.254 dev eth0");
        const slow = right(await hosts.exec("a", ["sleep", "30"], { timeoutMs: 300, maxOutputBytes: 1000 }));
        expect(slow).to.deep.include({ timedOut: true, signal: "SIGKILL" });
        const loud = right(await hosts.exec("a", ["head", "-c", "100000", "/dev/zero"], { timeoutMs: 5000, maxOutputBytes: 1000 }));
        expect(loud.truncated).to.equal(true);
        expect(loud.stdout.length).to.equal(1000);

        for (const host of made) right(await hosts.destroy(host.name));
        expect(await leftovers()).to.deep.equal([]);
        expect(readdirSync(stateDir), "no record is left once every host is gone").to.deep.equal([]);
      });
    });
  }

  it("refuses to make a host whose namespace or TAP name is taken, and one with a name that cannot be an interface's", async () => {
    const hosts = new IpNamespaceHosts(stateDir, new RecordingLogger(), { namespacePrefix: PREFIX });
    const taken = await TestNamespace.make(`${PREFIX}c`);
    try {
      expect(await hosts.create(hostSpec("c", 3))).to.deep.equal(E.left({ problem: "exists", what: `network namespace ${PREFIX}c` }));
      expect(await hosts.create({ name: "d", interfaces: [{ tap: "a/b", inside: "eth0", addresses: [] }] })).to.deep.equal(E.left({ problem: "invalid_name", name: "a/b" }));
    } finally {
      await taken.remove();
    }
    expect(hosts.list()).to.deep.equal([]);
  });

  it("refuses every host without root, saying so (a fake privilege check: the real one is the process's euid)", async () => {
    const hosts = new IpNamespaceHosts(stateDir, new RecordingLogger(), { namespacePrefix: PREFIX, privileged: () => false });
    expect(await hosts.create(hostSpec("e", 5))).to.deep.equal(E.left({ problem: "not_root" }));
  });

  it("removes at the next start what a netemu killed with -9 made, and nothing else", async () => {
    const configDir = mkdtempSync(join(tmpdir(), "netemu-config-"));
    stateDir = join(configDir, "namespace-hosts");
    const decoy = await TestNamespace.make(testName("nd", "x"));
    try {
      // A process that makes a host and is then killed, as a netemu would be.
      const module = join(here, "..", "..", "src", "adapters", "system", "namespace-hosts.js");
      const script = [
        `const { IpNamespaceHosts } = await import(${JSON.stringify(module)});`,
        "const logger = { debug() {}, info() {}, warn() {}, error() {} };",
        `const hosts = new IpNamespaceHosts(${JSON.stringify(stateDir)}, logger, { namespacePrefix: ${JSON.stringify(PREFIX)} });`,
        `const made = await hosts.create(${JSON.stringify(hostSpec("k", 7))});`,
        "console.log(JSON.stringify(made));",
        "setInterval(() => {}, 1000);",
      ].join("\n");
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
      const line = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(d.toString())));
      expect(JSON.parse(line)._tag).to.equal("Right");
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const tap = testName("hx", "k0");
      expect(existsSync(`/run/netns/${PREFIX}k`), "the killed process's namespace is still there").to.equal(true);
      expect(existsSync(`/sys/class/net/${tap}`), "and its TAP").to.equal(true);

      // The next start: netemu's own start removes them, found in its configuration directory's record.
      const next = await startTestServer({ settings: { configDir } });
      try {
        for (let i = 0; i < 100 && (existsSync(`/run/netns/${PREFIX}k`) || existsSync(`/sys/class/net/${tap}`)); i++) await new Promise((r) => setTimeout(r, 100));
      } finally {
        await next.close();
      }
      expect(existsSync(`/run/netns/${PREFIX}k`)).to.equal(false);
      expect(existsSync(`/sys/class/net/${tap}`)).to.equal(false);
      expect(readdirSync(stateDir), "its record is gone").to.deep.equal([]);
      expect(await sh("ip", "netns", "list"), "another namespace is left alone").to.contain(decoy.name);
    } finally {
      await decoy.remove();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
