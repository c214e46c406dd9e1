import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const MODULE = fileURLToPath(new URL("../../../src/adapters/metrics/process-metrics.js", import.meta.url));

/** Runs `body` in a Node process of its own, where the process's metrics were never made; its stdout. */
function inFreshProcess(body: string): string {
  const script = `const { processMetrics } = await import(${JSON.stringify(MODULE)});\n${body}`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
}

describe("the process's metrics (prom-client's, ADR 0113)", () => {
  it("read, the first time they are asked for, the loop-delay monitor's own samples, not an empty histogram", () => {
    // Node's empty delay histogram reads a minimum of 2^63 ns (9.2e9 s): a reading taken with no sample shows it.
    const out = inFreshProcess(`
      const text = await (await processMetrics()).metrics();
      const read = (name) => Number(text.split(String.fromCharCode(10)).find((line) => line.startsWith(name + " ")).slice(name.length + 1));
      console.log(JSON.stringify({ min: read("nodejs_eventloop_lag_min_seconds"), max: read("nodejs_eventloop_lag_max_seconds") }));
      process.exit(0);
    `);
    const { min, max } = JSON.parse(out) as { min: number; max: number };
    expect(min, "a sampled minimum, not an empty histogram's").to.be.above(0).and.below(1);
    expect(max).to.be.at.least(min);
  });

  it("are made once per process: every caller gets the same registry", () => {
    const out = inFreshProcess(`
      const [a, b] = await Promise.all([processMetrics(), processMetrics()]);
      console.log(String(a === b && a === (await processMetrics())));
      process.exit(0);
    `);
    expect(out.trim()).to.equal("true");
  });
});
