import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { freeTcpPort } from "../support/free-tcp-port.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";
import { requireTool } from "../support/vpcs.js";
import { RULES_FILE, dashboardQueries, readDashboard, recordedNames, substitute, variableQuery, variableSelector } from "./dashboard-queries.js";

const PROJECT = "18181818-0000-4000-8000-0000000000aa";
const A = "00:50:79:66:68:01";
const B = "00:50:79:66:68:02";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
/** What Grafana puts in for $__rate_interval at a 1 s scrape interval is 4 s; a little more spares a late scrape. */
const RATE_INTERVAL = "10s";
/** Queries that have series only after a failure this healthy lab does not have. */
const EMPTY_WHEN_HEALTHY = new Set(["Server errors by route A", "Project write failures by code A", "Notification clients B"]);
const WAIT_MS = 40_000;

interface QueryAnswer {
  readonly status: string;
  readonly error?: string;
  readonly data?: { readonly resultType: string; readonly result: readonly { metric: Record<string, string>; value: [number, string] }[] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Debian's Prometheus (2.42) on 127.0.0.1 scraping a netemu every second with netemu's recording and
 * alerting rules loaded, while frames flow through a switch: every query of the dashboard and every
 * rule is run by the real thing.
 */
describe("a real Prometheus scraping netemu, with the shipped rules, answering the shipped dashboard's queries", function () {
  this.timeout(90_000);
  let s: TestServer;
  let dir: string;
  let prometheus: ChildProcess | undefined;
  let prometheusLog = "";
  let api: string;
  let target: string;
  let traffic: NodeJS.Timeout | undefined;
  const peers: UdpPeer[] = [];

  async function query(promql: string): Promise<QueryAnswer> {
    const r = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
    return (await r.json()) as QueryAnswer;
  }

  /** Asks until `done` holds for the answers, a bounded time; answers the last ones. */
  async function until<T>(ask: () => Promise<T>, done: (answer: T) => boolean): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const answer = await ask();
      if (done(answer) || Date.now() > deadline) return answer;
      await sleep(500);
    }
  }

  before(async function () {
    requireTool(this, "prometheus", "prometheus");
    dir = mkdtempSync(join(tmpdir(), "netemu-prometheus-"));
    s = await startTestServer({ dataPlaneWorkers: 1 });
    target = new URL(s.url).host;

    // A switch with two hosts: broadcasts, a unicast answer, and a runt per round (a drop with a reason).
    await s.request("POST", "/v2/compute/projects", { name: "ops", project_id: PROJECT });
    const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
    const wire = async (port: number): Promise<{ peer: UdpPeer; lport: number }> => {
      const peer = await UdpPeer.open();
      peers.push(peer);
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peer.port });
      expect(r.status, r.text).to.equal(201);
      return { peer, lport };
    };
    const [h0, h1] = [await wire(0), await wire(1)];
    const broadcast = ethernetFrame(BROADCAST, A, { payload: 46 });
    const answer = ethernetFrame(A, B, { payload: 100 });
    const runt = Buffer.alloc(10, 1);
    traffic = setInterval(() => {
      void h0.peer.send(broadcast, h0.lport).catch(() => undefined);
      void h1.peer.send(answer, h1.lport).catch(() => undefined);
      void h0.peer.send(runt, h0.lport).catch(() => undefined);
    }, 100);

    const port = await freeTcpPort();
    api = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, "prometheus.yml"),
      [
        "global:",
        "  scrape_interval: 1s",
        "  evaluation_interval: 1s",
        "rule_files:",
        `  - ${JSON.stringify(RULES_FILE)}`,
        "scrape_configs:",
        "  - job_name: netemu",
        "    static_configs:",
        `      - targets: [${JSON.stringify(target)}]`,
        "",
      ].join("\n"),
    );
    prometheus = spawn("prometheus", [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    prometheus.stdout!.on("data", (d: Buffer) => (prometheusLog += d.toString("utf8")));
    prometheus.stderr!.on("data", (d: Buffer) => (prometheusLog += d.toString("utf8")));

    const ready = await until(
      async () => (prometheus!.exitCode !== null ? "exited" : await fetch(`${api}/-/ready`).then((r) => (r.ok ? "ready" : "starting"), () => "starting")),
      (state) => state !== "starting",
    );
    if (ready !== "ready") throw new Error(`Prometheus did not start (${ready}):\n${prometheusLog}`);
  });

  after(async () => {
    if (traffic !== undefined) clearInterval(traffic);
    const child = prometheus;
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      process.kill(child.pid, "SIGTERM");
      const timer = setTimeout(() => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, "SIGKILL"), 10_000);
      await gone;
      clearTimeout(timer);
    }
    await Promise.all(peers.splice(0).map((p) => p.close()));
    await s?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("scrapes netemu every second: the target is up", async () => {
    const up = await until(() => query(`up{job="netemu", instance="${target}"}`), (a) => a.data?.result[0]?.value[1] === "1");
    expect(up.data?.result.map((r) => r.value[1]), prometheusLog).to.deep.equal(["1"]);
  });

  it("answers each dashboard variable with the lab's server, project and switch", async () => {
    const vars = new Map(readDashboard().templating.list.map((v) => [v.name, v]));
    // The project by the name its users know (ADR 0085), not its id.
    const expected: Record<string, string> = { instance: target, project: "ops", node: "SW1" };
    for (const [name, value] of Object.entries(expected)) {
      const { selector, label } = variableSelector(variableQuery(vars.get(name)!));
      const match = substitute(selector, { instance: ".*", project: ".*" });
      const values = await until(
        async () => ((await (await fetch(`${api}/api/v1/label/${label}/values?match[]=${encodeURIComponent(match)}`)).json()) as { data: string[] }).data,
        (v) => v.includes(value),
      );
      expect(values, name).to.include(value);
    }
  });

  it("runs every query of the dashboard, and those about the flowing traffic and the server's state give series", async () => {
    const queries = dashboardQueries(readDashboard()).map((q) => ({
      name: `${q.panel} ${q.refId}`,
      promql: substitute(q.expr, { instance: target.replace(/\./g, "\\\\."), project: "ops", node: "SW1", __rate_interval: RATE_INTERVAL }),
    }));
    expect(queries.length).to.be.above(20);
    const answers = await until(
      () => Promise.all(queries.map(async (q) => ({ ...q, answer: await query(q.promql) }))),
      (all) => all.every((a) => a.answer.status !== "success" || EMPTY_WHEN_HEALTHY.has(a.name) || (a.answer.data?.result.length ?? 0) > 0),
    );
    for (const a of answers) {
      expect(a.answer.status, `${a.name}: ${a.promql}: ${a.answer.error ?? ""}`).to.equal("success");
      if (!EMPTY_WHEN_HEALTHY.has(a.name)) expect(a.answer.data?.result.length, `${a.name}: ${a.promql} has no series`).to.be.above(0);
    }
    const received = answers.find((a) => a.name === "Frames received per port A")!.answer.data!.result;
    expect(received.map((r) => r.metric["port_number"]).sort()).to.deep.equal(["0", "1"]);
    expect(received.map((r) => r.metric["port_name"]).sort(), "ports by the names users know").to.deep.equal(["Ethernet0", "Ethernet1"]);
    expect(received.every((r) => Number(r.value[1]) > 0), "frames flow on both ports").to.equal(true);
    const drops = answers.find((a) => a.name === "Drops by reason A")!.answer.data!.result;
    expect(drops.map((r) => r.metric["reason"])).to.deep.equal(["runt"]);
  });

  it("gives series for every recording rule", async () => {
    const records = recordedNames(readFileSync(RULES_FILE, "utf8"));
    expect(records.length).to.be.above(5);
    const answers = await until(
      () => Promise.all(records.map(async (name) => ({ name, answer: await query(name) }))),
      (all) => all.every((a) => (a.answer.data?.result.length ?? 0) > 0),
    );
    for (const a of answers) expect(a.answer.data?.result.length, `${a.name}: ${JSON.stringify(a.answer)}`).to.be.above(0);
    const drops = answers.find((a) => a.name === "instance_reason:netemu_port_dropped_frames:rate1m")!.answer.data!.result;
    expect(drops.map((r) => [r.metric["reason"], r.metric["instance"]])).to.deep.equal([["runt", target]]);
  });

  it("evaluates every alert without an error, and a healthy netemu fires none", async () => {
    type Rule = { name: string; type: string; health: string; lastError?: string; state?: string };
    const rules = await until(
      async () => ((await (await fetch(`${api}/api/v1/rules`)).json()) as { data: { groups: { rules: Rule[] }[] } }).data.groups.flatMap((g) => g.rules),
      (all) => all.length > 0 && all.every((r) => r.health !== "unknown"),
    );
    const alerts = rules.filter((r) => r.type === "alerting");
    expect(alerts.map((r) => r.name)).to.include.members(["NetemuDown", "NetemuUnwrittenProjects", "NetemuDropsHigh", "NetemuLoginsThrottled", "NetemuNotificationClientsDropped"]);
    for (const r of rules) expect(r.health, `${r.name}: ${r.lastError ?? ""}`).to.equal("ok");
    for (const r of alerts) expect(r.state, r.name).to.not.equal("firing");
  });
});
