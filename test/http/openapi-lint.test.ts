import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { OPENAPI_PATH } from "../../src/adapters/http/openapi/document.js";
import { startTestServer } from "../support/http-harness.js";

/** Redocly CLI, the devDependency (ADR 0063), run by this node: no npx, no download. */
const REDOCLY = fileURLToPath(new URL("../../../node_modules/@redocly/cli/bin/cli.js", import.meta.url));

/** Its `recommended` rules, and nothing sent anywhere: telemetry off in the config and the environment. */
const CONFIG = "extends:\n  - recommended\ntelemetry: off\n";

interface LintTotals {
  readonly errors: number;
  readonly warnings: number;
  readonly problems: readonly { ruleId: string; message: string; severity: string }[];
}

/** `redocly lint` on a document, its JSON report; the child is killed (by its pid) if it takes over 60 s. */
function lint(document: string): Promise<LintTotals> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-openapi-lint-"));
  writeFileSync(join(dir, "openapi.json"), document);
  writeFileSync(join(dir, "redocly.yaml"), CONFIG);
  return new Promise<LintTotals>((resolve, reject) => {
    const child = spawn(process.execPath, [REDOCLY, "lint", "openapi.json", "--config", "redocly.yaml", "--format", "json", "--max-problems", "1000"], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", DO_NOT_TRACK: "1", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    const timer = setTimeout(() => process.kill(child.pid as number, "SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      try {
        const report = JSON.parse(out) as { totals: { errors: number; warnings: number }; problems: LintTotals["problems"] };
        resolve({ ...report.totals, problems: report.problems });
      } catch {
        reject(new Error(`redocly lint ended with ${String(code)} and no JSON report: ${err.slice(-2000)}`));
      }
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}

const summary = (totals: LintTotals): string => totals.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`).slice(0, 20).join("\n");

describe("The OpenAPI document under Redocly's recommended rules", function () {
  this.timeout(90_000);

  it("has no error and no warning when the server runs without --auth", async () => {
    const s = await startTestServer();
    try {
      const totals = await lint((await s.request("GET", OPENAPI_PATH)).text);
      expect(totals.errors, summary(totals)).to.equal(0);
      expect(totals.warnings, summary(totals)).to.equal(0);
    } finally {
      await s.close();
    }
  });

  it("has no error and no warning when the server runs with --auth", async () => {
    const s = await startTestServer({ settings: { auth: { enabled: true, user: "admin", password: "s3cret" } } });
    try {
      const r = await s.request("GET", OPENAPI_PATH, undefined, { Authorization: `Basic ${Buffer.from("admin:s3cret").toString("base64")}` });
      expect(r.status).to.equal(200);
      const totals = await lint(r.text);
      expect(totals.errors, summary(totals)).to.equal(0);
      expect(totals.warnings, summary(totals)).to.equal(0);
    } finally {
      await s.close();
    }
  });

  it("is a linter that finds what the issue reported, on a document without them", async () => {
    const s = await startTestServer();
    try {
      const doc = (await s.request("GET", OPENAPI_PATH)).json as Record<string, any>;
      delete doc["servers"];
      delete doc["security"];
      const totals = await lint(JSON.stringify(doc));
      const rules = new Set(totals.problems.map((p) => p.ruleId));
      expect([...rules]).to.include.members(["security-defined", "no-empty-servers"]);
      expect(totals.errors).to.be.greaterThan(80);
    } finally {
      await s.close();
    }
  });
});
