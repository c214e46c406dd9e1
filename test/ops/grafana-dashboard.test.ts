import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { parseExposition } from "../support/prometheus-text.js";
import { PROMETHEUS_SERIES, allPanels, dashboardQueries, metricNamesOf, readDashboard, variableQuery, variableSelector, type Dashboard } from "./dashboard-queries.js";

const HISTOGRAM_SUFFIXES = ["_bucket", "_sum", "_count"];

/** Every name a netemu scrape can carry: each family's samples, histograms' suffixes included. */
async function exposedNames(s: TestServer): Promise<Set<string>> {
  const r = await s.request("GET", "/metrics");
  expect(r.status, r.text).to.equal(200);
  const m = parseExposition(r.text);
  const names = new Set(m.samples.map((x) => x.name));
  for (const [family, type] of m.types) {
    names.add(family);
    if (type === "histogram") for (const suffix of HISTOGRAM_SUFFIXES) names.add(family + suffix);
  }
  return names;
}

describe("the Grafana dashboard that ships in deploy/grafana", () => {
  let d: Dashboard;
  before(() => {
    d = readDashboard();
  });

  it("is a Grafana JSON model with a uid, a title and a schema version", () => {
    expect(d.uid).to.match(/^[a-z0-9-]{1,40}$/);
    expect(d.title).to.equal("netemu");
    expect(d.schemaVersion).to.be.within(36, 41);
    const ids = allPanels(d).map((p) => p.id);
    expect(new Set(ids).size, "panel ids are unique").to.equal(ids.length);
    for (const p of allPanels(d)) {
      expect(p.gridPos, p.title).to.be.an("object");
      expect(p.gridPos!.x + p.gridPos!.w, `${p.title} fits the 24 columns`).to.be.at.most(24);
    }
  });

  it("chooses its Prometheus through a data-source variable, and the server, project and node through query variables", () => {
    const vars = new Map(d.templating.list.map((v) => [v.name, v]));
    expect(vars.get("datasource")).to.include({ type: "datasource", query: "prometheus" });
    for (const name of ["instance", "project", "node"]) {
      const v = vars.get(name);
      expect(v?.type, name).to.equal("query");
      expect(v?.datasource, name).to.deep.equal({ type: "prometheus", uid: "${datasource}" });
    }
    expect(variableQuery(vars.get("project")!)).to.include('instance=~"$instance"');
    // Projects are chosen by the name users know (ADR 0085).
    expect(variableQuery(vars.get("project")!)).to.match(/, project_name\)$/);
    expect(variableQuery(vars.get("node")!)).to.include('project_name=~"$project"');
  });

  it("gives every panel but rows at least one query with a PromQL expression, through the data-source variable", () => {
    const panels = allPanels(d).filter((p) => p.type !== "row");
    expect(panels.length).to.be.above(10);
    for (const p of panels) {
      expect(p.datasource, p.title).to.deep.equal({ type: "prometheus", uid: "${datasource}" });
      expect(p.targets, p.title).to.be.an("array").that.is.not.empty;
      for (const t of p.targets!) {
        expect(t.expr.trim(), `${p.title} ${t.refId}`).to.not.equal("");
        expect(t.datasource, `${p.title} ${t.refId}`).to.deep.equal({ type: "prometheus", uid: "${datasource}" });
      }
    }
  });

  it("hard-codes no server: each query picks its series by the $instance variable, never by a fixed instance or job", () => {
    const queries = [
      ...dashboardQueries(d).map((q) => ({ where: `${q.panel} ${q.refId}`, expr: q.expr })),
      ...d.templating.list.filter((v) => v.type === "query" && v.name !== "instance").map((v) => ({ where: `variable ${v.name}`, expr: variableSelector(variableQuery(v)).selector })),
    ];
    for (const q of queries) {
      expect(q.expr, q.where).to.not.match(/\b(instance|job)\s*(=|!=|=~|!~)\s*"(?!\$instance")/);
      for (const name of metricNamesOf(q.expr)) {
        expect(q.expr, `${q.where}: ${name} without a selector`).to.not.match(new RegExp(`(?<![\\w:])${name}(?![\\w:{])`));
      }
      for (const s of q.expr.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*\{([^}]*)\}/g)) expect(s[1], q.where).to.include('instance=~"$instance"');
    }
  });

  it("names ports as their users do in every per-port legend (port_name, not port_number alone: ADR 0085)", () => {
    const perPort = allPanels(d).flatMap((p) => p.targets ?? []).filter((t) => /port_number/.test(t.expr));
    expect(perPort.length).to.be.above(3);
    for (const t of perPort) expect((t as { legendFormat?: string }).legendFormat, t.expr).to.include("{{port_name}}").and.include("{{node_name}}");
  });

  it("has panels for per-port rates, drops by reason, MAC tables, workers' loop delay, HTTP rate and latency, unwritten projects, login throttling and notification drops", () => {
    const exprs = dashboardQueries(d).map((q) => q.expr);
    const reads = (pattern: RegExp) => exprs.some((e) => pattern.test(e));
    for (const counter of ["receive_frames", "transmit_frames", "receive_bytes", "transmit_bytes"]) {
      expect(reads(new RegExp(`sum by \\(node_name, port_name, port_number\\) \\(rate\\(netemu_port_${counter}_total`)), counter).to.equal(true);
    }
    expect(reads(/sum by \(reason\) \(rate\(netemu_port_dropped_frames_total/), "drops by reason").to.equal(true);
    expect(reads(/netemu_mac_table_entries/), "MAC tables").to.equal(true);
    expect(reads(/netemu_dataplane_eventloop_lag_p99_seconds/), "workers' loop delay").to.equal(true);
    expect(reads(/sum by \(route, status\) \(rate\(netemu_http_requests_total/), "HTTP rate").to.equal(true);
    expect(reads(/histogram_quantile\(0\.5, .*netemu_http_request_duration_seconds_bucket/), "HTTP p50").to.equal(true);
    expect(reads(/histogram_quantile\(0\.99, .*netemu_http_request_duration_seconds_bucket/), "HTTP p99").to.equal(true);
    expect(reads(/netemu_unwritten_projects/), "unwritten projects").to.equal(true);
    expect(reads(/netemu_login_throttled_total/), "login throttling").to.equal(true);
    expect(reads(/netemu_notification_clients_dropped_total/), "notification drops").to.equal(true);
  });

  describe("against a running netemu's scrape", () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ dataPlaneWorkers: 1 });
    });
    after(async () => s?.close());

    it("reads only metrics netemu exposes, or that Prometheus makes for each target", async () => {
      const exposed = await exposedNames(s);
      const exprs = [...dashboardQueries(d).map((q) => q.expr), ...d.templating.list.filter((v) => v.type === "query").map((v) => variableSelector(variableQuery(v)).selector)];
      const used = new Set(exprs.flatMap(metricNamesOf));
      expect(used.size).to.be.above(15);
      const unknown = [...used].filter((name) => !exposed.has(name) && !PROMETHEUS_SERIES.includes(name));
      expect(unknown, "metrics the dashboard reads that netemu does not expose").to.deep.equal([]);
    });

    it("would notice a query that reads a misspelt metric", async () => {
      const exposed = await exposedNames(s);
      const names = metricNamesOf('sum by (node_name, port_number) (rate(netemu_port_recieve_frames_total{instance=~"$instance"}[$__rate_interval]))');
      expect(names).to.deep.equal(["netemu_port_recieve_frames_total"]);
      expect(exposed.has("netemu_port_recieve_frames_total")).to.equal(false);
      expect(exposed.has("netemu_port_receive_frames_total")).to.equal(true);
    });
  });
});
