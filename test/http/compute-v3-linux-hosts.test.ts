import { expect } from "chai";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { IpNamespaceHosts } from "../../src/adapters/system/namespace-hosts.js";
import { hostTapName } from "../../src/domain/switching/netemu-host-node.js";
import { FakeHostProcesses } from "../support/fake-host-processes.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { hostTraces, isRoot, sh } from "../support/netns.js";

/** The hosts' namespaces hold this test's pid, so that what it made is told apart from anyone else's. */
const PREFIX = `lv${process.pid}-`;
const HOST_A = "87878787-0000-4000-8000-0000000000a3";
const HOST_B = "87878787-0000-4000-8000-0000000000b3";

/** What a host leaves on the machine: its namespace and its TAP devices in netemu's namespace. */
const traces = (nodeIds: readonly string[]): Promise<string[]> => hostTraces(PREFIX, nodeIds);

/**
 * netemu's Linux host on /v3/compute (ADR 0087, 0090): v2's route values through 3.x's dialect, so a
 * client speaking 3.x (open, nullable bodies; `usage`; 422 for what does not validate) makes, starts,
 * links, runs commands in and deletes hosts as on /v2/compute.
 */
describe("/v3/compute Linux hosts", () => {
  const v3 = (s: TestServer, method: string, path: string, body?: unknown) => s.request(method, `/v3/compute${path}`, body);

  describe("stopped, where nothing needs root", () => {
    let s: TestServer;
    let P: string;
    const nodes = () => `/projects/${P}/netemu_host/nodes`;

    beforeEach(async () => {
      s = await startTestServer({ settings: { v3: { gns3Version: "3.0.6", noAuth: true } }, overrides: { hostProcesses: new FakeHostProcesses() } });
      P = randomUUID();
      expect((await v3(s, "POST", "/projects", { name: "p", project_id: P })).status).to.equal(201);
    });
    afterEach(async () => s.close());

    it("takes 3.x's bodies (nulls, unknown keys), answers 3.x's fields, and is not listed in the 3.x capabilities (as on v2)", async () => {
      const made = await v3(s, "POST", nodes(), { name: "h1", usage: null, builtin: false, interfaces: [{ name: "eth0", address: "10.0.0.1/24", mac: null }], gateway: "10.0.0.254" });
      expect(made.status, made.text).to.equal(201);
      expect(Object.keys(made.json).sort()).to.deep.equal(["gateway", "interfaces", "name", "node_directory", "node_id", "ports_mapping", "project_id", "status", "usage"]);
      expect(made.json).to.deep.include({ name: "h1", status: "stopped", usage: "", ports_mapping: [{ name: "eth0", port_number: 0 }], interfaces: [{ name: "eth0", address: "10.0.0.1/24" }], gateway: "10.0.0.254" });
      const node = `${nodes()}/${made.json.node_id}`;
      // A 3.x controller sends back every key it kept from the last answer: ignored.
      const changed = await v3(s, "PUT", node, { ...made.json, name: null, interfaces: [{ name: "lan" }], gateway: null });
      expect(changed.status, changed.text).to.equal(200);
      expect(changed.json).to.deep.include({ name: "h1", ports_mapping: [{ name: "lan", port_number: 0 }], interfaces: [{ name: "lan" }], gateway: null, usage: "" });
      expect((await v3(s, "GET", node)).json).to.deep.equal(changed.json);
      // On a compute a duplicate copies onto a node the controller made first.
      const copy = (await v3(s, "POST", nodes(), { name: "h2" })).json.node_id as string;
      const duplicated = await v3(s, "POST", `${node}/duplicate`, { destination_node_id: copy, extra: 1 });
      expect(duplicated.status, duplicated.text).to.equal(201);
      expect(duplicated.json).to.deep.include({ node_id: copy, usage: "" });
      expect((await v3(s, "GET", "/capabilities")).json.node_types).to.not.include("netemu_host");
      expect((await v3(s, "DELETE", node)).status).to.equal(204);
      expect((await v3(s, "GET", node)).status).to.equal(404);
    });

    it("answers a body 3.x's schema refuses with a 422, and the domain's refusals as 3.x's {message}", async () => {
      const unnamed = await v3(s, "POST", nodes(), { interfaces: null });
      expect(unnamed.status, unnamed.text).to.equal(422);
      expect(unnamed.json.detail[0].type).to.equal("value_error");
      const gateway = await v3(s, "POST", nodes(), { name: "h", gateway: "gw" });
      expect([gateway.status, gateway.json]).to.deep.equal([400, { message: "gateway: 'gw' is not an IPv4 or IPv6 address" }]);
      const made = (await v3(s, "POST", nodes(), { name: "h1" })).json;
      const exec = (body: unknown) => v3(s, "POST", `${nodes()}/${made.node_id}/exec`, body);
      expect([(await exec({ argv: ["true"] })).status, (await exec({ argv: ["true"] })).json.message]).to.deep.equal([409, "Linux host h1 is not started: start it first"]);
      expect((await exec({ argv: "true" })).status).to.equal(422);
      expect((await exec({ argv: ["true"], timeout: 601 })).status).to.equal(422);
      expect((await v3(s, "POST", `${nodes()}/not-a-uuid/exec`, { argv: ["true"] })).status).to.equal(422);
    });
  });

  describe("started: namespaces behind TAPs netemu opens, linked to a v3 switch (root)", function () {
    this.timeout(90_000);
    let stateDir: string;

    before(function () {
      if (!isRoot()) {
        if (process.env["CI"] === "true") throw new Error("CI runs as root: these tests need it");
        console.log("      skipped: namespaces and TAP devices need root");
        this.skip();
      }
    });
    beforeEach(() => {
      stateDir = mkdtempSync(join(tmpdir(), "netemu-v3-linux-hosts-"));
    });
    afterEach(async () => {
      rmSync(stateDir, { recursive: true, force: true });
      expect(await traces([HOST_A, HOST_B]), "what the test made, left behind").to.deep.equal([]);
    });

    for (const workers of [0, 1]) {
      it(`starts two hosts whose pings cross a v3 switch, runs commands inside through exec, and leaves nothing after stop and delete (data plane ${workers === 0 ? "on the main thread" : "in a worker"})`, async () => {
        const s = await startTestServer({
          dataPlaneWorkers: workers,
          settings: { v3: { gns3Version: "3.0.6", noAuth: true } },
          overrides: { namespaceHosts: new IpNamespaceHosts(stateDir, new RecordingLogger(), { namespacePrefix: PREFIX }) },
        });
        try {
          const P = randomUUID();
          expect((await v3(s, "POST", "/projects", { name: "v3-hosts", project_id: P })).status).to.equal(201);
          const sw = (await v3(s, "POST", `/projects/${P}/ethernet_switch/nodes`, { name: "SW1", builtin: true })).json;
          const hosts = [HOST_A, HOST_B];
          const node = (id: string) => `/projects/${P}/netemu_host/nodes/${id}`;
          for (const [i, nodeId] of hosts.entries()) {
            const made = await v3(s, "POST", `/projects/${P}/netemu_host/nodes`, { name: `host${i + 1}`, node_id: nodeId, usage: "", interfaces: [{ name: "eth0", address: `10.88.0.${i + 1}/24` }], gateway: null });
            expect(made.status, made.text).to.equal(201);
            const udp = async () => (await v3(s, "POST", `/projects/${P}/ports/udp`, {})).json.udp_port as number;
            const [hostSide, switchSide] = [await udp(), await udp()];
            const a = await v3(s, "POST", `${node(nodeId)}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: hostSide, rhost: "127.0.0.1", rport: switchSide, filters: {}, suspend: false });
            expect(a.status, a.text).to.equal(201);
            const b = await v3(s, "POST", `/projects/${P}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport: switchSide, rhost: "127.0.0.1", rport: hostSide, filters: {}, suspend: false });
            expect(b.status, b.text).to.equal(201);
            expect((await v3(s, "POST", `${node(nodeId)}/start`)).status).to.equal(204);
          }
          expect(await traces(hosts)).to.have.members([`namespace ${PREFIX}${HOST_A}`, `namespace ${PREFIX}${HOST_B}`]);
          expect((await v3(s, "GET", node(HOST_A))).json).to.deep.include({ status: "started", usage: "" });
          const pinged = await v3(s, "POST", `${node(HOST_A)}/exec`, { argv: ["ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", "10.88.0.2"], timeout: 20 });
          expect(pinged.status, pinged.text).to.equal(200);
          expect(pinged.json.exit_code, pinged.json.stdout + pinged.json.stderr).to.equal(0);
          expect(pinged.json.stdout).to.contain("3 received");
          expect((await v3(s, "POST", `${node(HOST_B)}/reload`)).status).to.equal(204);
          expect((await v3(s, "POST", `${node(HOST_A)}/stop`)).status).to.equal(204);
          expect(await traces([HOST_A]), "a stopped host has no namespace and no TAP").to.deep.equal([]);
          for (const nodeId of hosts) expect((await v3(s, "DELETE", node(nodeId))).status).to.equal(204);
          expect(await traces(hosts)).to.deep.equal([]);
        } finally {
          await s.close();
        }
      });
    }
  });
});
