import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeHostProcesses } from "../support/fake-host-processes.js";
import { NODES_AT_ONCE } from "../../src/application/bounded-pool.js";

/**
 * Start all, stop all, close and delete of a project with many hosts (issue 27): its nodes a few at a
 * time, as GNS3's controller does (a pool of 3), the VPCS program probed once. Processes faked: the fake
 * records how many starts overlap.
 */
describe("HTTP: starting and stopping many hosts at once (issue 27), processes faked", () => {
  let s: TestServer;
  let processes: FakeHostProcesses;
  let projectId: string;

  beforeEach(async () => {
    processes = new FakeHostProcesses();
    s = await startTestServer({ overrides: { hostProcesses: processes } });
    projectId = (await s.request("POST", "/v2/projects", { name: "hosts" })).json.project_id;
  });
  afterEach(async () => s.close());

  const createHosts = async (n: number): Promise<{ node_id: string; name: string }[]> => {
    const made = [];
    for (let i = 1; i <= n; i++) {
      const r = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: `PC${i}`, node_type: "vpcs", compute_id: "local" });
      expect(r.status, r.text).to.equal(201);
      made.push(r.json as { node_id: string; name: string });
    }
    return made;
  };
  const statuses = async () => ((await s.request("GET", `/v2/projects/${projectId}/nodes`)).json as { name: string; status: string }[]).map((n) => `${n.name}:${n.status}`);

  it("starts all of a project's hosts several at a time, never more than GNS3's pool of 3", async () => {
    await createHosts(9);
    processes.startDelayMs = 30;
    const r = await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {});
    expect(r.status, r.text).to.equal(204);
    expect(processes.started).to.have.length(9);
    expect(processes.maxStartsAtOnce).to.be.at.least(2);
    expect(processes.maxStartsAtOnce).to.be.at.most(NODES_AT_ONCE);
    expect(NODES_AT_ONCE).to.equal(3);
    expect(await statuses()).to.deep.equal(Array.from({ length: 9 }, (_, i) => `PC${i + 1}:started`));
  });

  it("gives each host started together its own MAC offset", async () => {
    await createHosts(6);
    processes.startDelayMs = 10;
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    const macIds = processes.started.map((spec) => spec.args[spec.args.indexOf("-m") + 1]);
    expect(new Set(macIds).size, macIds.join(",")).to.equal(6);
  });

  it("starts the other hosts when one cannot start, and answers that one's refusal", async () => {
    const [, broken] = await createHosts(5);
    processes.failStartOf.set(broken!.node_id, "UDP port taken");
    const r = await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {});
    expect(r.status).to.equal(409);
    expect(r.json.message).to.equal("Could not start PC2 with vpcs: UDP port taken");
    expect(await statuses()).to.deep.equal(["PC1:started", "PC2:stopped", "PC3:started", "PC4:started", "PC5:started"]);
  });

  it("stops all of a project's hosts several at a time, and deletes a project with started hosts several at a time", async () => {
    await createHosts(7);
    processes.stopDelayMs = 30;
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/stop`, {})).status).to.equal(204);
    expect((await statuses()).every((x) => x.endsWith(":stopped"))).to.equal(true);
    expect(processes.maxStopsAtOnce).to.be.within(2, NODES_AT_ONCE);
    processes.maxStopsAtOnce = 0;
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    const keys = processes.started.map((spec) => spec.key);
    expect(keys.some((k) => processes.pidOf(k) !== undefined)).to.equal(true);
    expect((await s.request("DELETE", `/v2/projects/${projectId}`)).status).to.equal(204);
    expect(keys.filter((k) => processes.pidOf(k) !== undefined)).to.deep.equal([]);
    expect(processes.maxStopsAtOnce).to.be.within(2, NODES_AT_ONCE);
  });

  /**
   * A shutdown during a long start all (issue 27: a 1,000-node lab's start held a SIGTERM for over 20 s,
   * then SIGKILL left its VPCS running). 40 hosts at 250 ms a start (or stop) take 3.5 s 3 at a time (the test
   * server's 100 UDP ports hold 40 VPCS, 2 each); the shutdown
   * comes after ~0.3 s. It must take no further host (at most the 3 under way finish), answer the request
   * with how far it got, end well before the start all would have (bound: 1.5 s, under half of it, for
   * the 250 ms of the hosts under way and a close that takes tens of ms unloaded), and leave no host
   * process running.
   */
  for (const action of ["start", "stop"] as const) {
    it(`a shutdown during a ${action} all takes no further host, answers how far it got (503), ends promptly and leaves no host process running`, async function () {
      this.timeout(30_000);
      const total = 40;
      await createHosts(total);
      if (action === "stop") {
        const started = await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {});
        expect(started.status, started.text).to.equal(204);
        processes.stopDelayMs = 250;
      } else processes.startDelayMs = 250;
      const before = processes.started.length;
      const answered = s.request("POST", `/v2/projects/${projectId}/nodes/${action}`, {});
      await new Promise((r) => setTimeout(r, 300));
      const began = Date.now();
      await s.netemu.shutdown();
      const took = Date.now() - began;
      const r = await answered;
      expect(r.status, r.text).to.equal(503);
      const [, acted] = /stopped after (\d+) of (\d+) nodes/.exec(r.json.message) ?? [];
      expect(r.json.message).to.equal(`netemu is shutting down: ${action} all stopped after ${acted} of ${total} nodes and acted on no other; the shutdown stops every node that started`);
      expect(Number(acted)).to.be.within(1, total / 2);
      if (action === "start") expect(processes.started.length - before, "hosts started: those taken before the shutdown").to.equal(Number(acted));
      expect(took, "the shutdown's time (ms)").to.be.below(1500);
      expect(processes.started.map((spec) => spec.key).filter((key) => processes.pidOf(key) !== undefined), "host processes left running").to.deep.equal([]);
      await new Promise((r) => setTimeout(r, 300));
      expect(processes.started.length - before, "no host started after the shutdown").to.equal(action === "start" ? Number(acted) : 0);
    });
  }

  it("probes the VPCS program once for many starts, and again once its file is replaced", async () => {
    await createHosts(6);
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    expect(processes.probes).to.equal(1);
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/stop`, {})).status).to.equal(204);
    processes.programIdentity = "vpcs 2";
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    expect(processes.probes).to.equal(2);
  });

  it("keeps no probe's answer while the program's file cannot be identified: each start probes", async () => {
    await createHosts(2);
    processes.programIdentity = undefined;
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/start`, {})).status).to.equal(204);
    expect(processes.probes).to.equal(2);
  });
});
