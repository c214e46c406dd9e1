import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { requireTool } from "../support/vpcs.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RULES_DIR = join(ROOT, "deploy", "prometheus");
const RULES = "netemu-rules.yml";
const RULE_TESTS = "netemu-rules.test.yml";

function promtool(args: readonly string[], cwd: string): { status: number | null; output: string } {
  const r = spawnSync("promtool", args, { cwd, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** The names after `- alert:` in the rules file. */
function alertNames(rules: string): string[] {
  return [...rules.matchAll(/^\s*- alert:\s*(\S+)\s*$/gm)].map((m) => m[1] as string);
}

/** For each alert the unit tests evaluate, whether some case expects it firing and some expects it silent. */
function casesByAlert(tests: string): Map<string, { fires: boolean; silent: boolean }> {
  const cases = new Map<string, { fires: boolean; silent: boolean }>();
  const lines = tests.split("\n");
  lines.forEach((line, i) => {
    const m = /^\s*alertname:\s*(\S+)\s*$/.exec(line);
    if (m === null) return;
    const expected = /^\s*exp_alerts:\s*(.*)$/.exec(lines[i + 1] ?? "");
    if (expected === null) throw new Error(`${RULE_TESTS} line ${i + 2}: exp_alerts should follow alertname`);
    const entry = cases.get(m[1] as string) ?? { fires: false, silent: false };
    if (expected[1]?.trim() === "[]") entry.silent = true;
    else entry.fires = true;
    cases.set(m[1] as string, entry);
  });
  return cases;
}

/** A copy of deploy/prometheus in a scratch directory with `from` replaced by `to` in the rules. */
function mutatedRules(from: string, to: string): string {
  const dir = mkdtempSync(join(tmpdir(), "netemu-rules-"));
  cpSync(RULES_DIR, dir, { recursive: true });
  const rules = readFileSync(join(dir, RULES), "utf8");
  expect(rules, `the rules contain ${from}`).to.include(from);
  writeFileSync(join(dir, RULES), rules.replace(from, to));
  return dir;
}

describe("the Prometheus rules that ship in deploy/prometheus", function () {
  this.timeout(60_000);

  before(function () {
    requireTool(this, "promtool", "prometheus");
  });

  it("pass promtool check rules", () => {
    const r = promtool(["check", "rules", RULES], RULES_DIR);
    expect(r.status, r.output).to.equal(0);
    expect(r.output).to.match(/SUCCESS: \d+ rules found/);
  });

  it("pass their unit tests under promtool test rules", () => {
    const r = promtool(["test", "rules", RULE_TESTS], RULES_DIR);
    expect(r.status, r.output).to.equal(0);
    expect(r.output).to.include("SUCCESS");
  });

  it("have a unit test case where each alert fires and one where it does not", () => {
    const alerts = alertNames(readFileSync(join(RULES_DIR, RULES), "utf8"));
    const cases = casesByAlert(readFileSync(join(RULES_DIR, RULE_TESTS), "utf8"));
    expect(alerts).to.include.members(["NetemuDown", "NetemuUnwrittenProjects", "NetemuProjectWriteFailures", "NetemuDataPlaneLoopDelayHigh", "NetemuDropsHigh", "NetemuLoginsThrottled", "NetemuNotificationClientsDropped"]);
    for (const alert of alerts) expect(cases.get(alert), alert).to.deep.equal({ fires: true, silent: true });
  });

  // The unit tests are only worth their name if they catch a rule gone wrong.
  for (const [what, from, to] of [
    ["an alert on write failures that misses a code's first failure", " or (netemu_project_write_failures_total > 0 unless netemu_project_write_failures_total offset 10m)", ""],
    ["an alert on dropped notification clients that misses the first drop", " or (netemu_notification_clients_dropped_total > 0 unless netemu_notification_clients_dropped_total offset 10m)", ""],
    ["an alert on dropped notification clients that takes netemu's zeros for drops", "(netemu_notification_clients_dropped_total > 0 unless", "(netemu_notification_clients_dropped_total unless"],
    ["an alert on write failures that takes a zero for a failure", "(netemu_project_write_failures_total > 0 unless", "(netemu_project_write_failures_total unless"],
    ["a drops alert that counts the drops filters asked for", 'reason!~"bpf|frequency_drop|packet_loss|suspend|stopped"', 'reason!=""'],
    ["a loop-delay alert on every Node.js process Prometheus scrapes", 'nodejs_eventloop_lag_p99_seconds{job="netemu"}', "nodejs_eventloop_lag_p99_seconds"],
    ["a down alert without its minute of grace", "expr: up{job=\"netemu\"} == 0\n        for: 1m", 'expr: up{job="netemu"} == 0'],
  ] as const) {
    it(`fail their unit tests for ${what}`, () => {
      const dir = mutatedRules(from, to);
      try {
        const r = promtool(["test", "rules", RULE_TESTS], dir);
        expect(r.status, r.output).to.equal(1);
        expect(r.output).to.include("FAILED");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("refuse, under promtool check rules, a rule whose expression does not parse", () => {
    const dir = mutatedRules("expr: netemu_unwritten_projects > 0", "expr: netemu_unwritten_projects >");
    try {
      const r = promtool(["check", "rules", RULES], dir);
      expect(r.status, r.output).to.equal(1);
      expect(r.output).to.include("parse error");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
