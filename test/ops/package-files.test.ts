import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { ROOT } from "./dashboard-queries.js";

describe("the npm package", function () {
  this.timeout(60_000);

  it("ships the Grafana dashboard, the Prometheus rules and their unit tests", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).to.include.members(["deploy/grafana/netemu-dashboard.json", "deploy/prometheus/netemu-rules.yml", "deploy/prometheus/netemu-rules.test.yml"]);
  });
});
