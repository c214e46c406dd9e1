import { expect } from "chai";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DROP_REASONS } from "../../src/domain/switching/port-counters.js";

const METRICS_DOC = fileURLToPath(new URL("../../../docs/metrics.md", import.meta.url));

/** The `reason` column of the drop-reason table that follows "Drop `reason`s". */
function documentedDropReasons(markdown: string): string[] {
  const start = markdown.indexOf("Drop `reason`s");
  expect(start, "docs/metrics.md has its drop-reason table").to.be.greaterThan(-1);
  const reasons: string[] = [];
  let rows = -1; // the header and its rule come first
  for (const line of markdown.slice(start).split("\n").slice(1)) {
    if (line.startsWith("|")) {
      rows++;
      const m = /^\|\s*`([a-z_]+)`\s*\|/.exec(line);
      if (rows >= 2 && m !== null) reasons.push(m[1] as string);
    } else if (rows >= 0) break;
  }
  return reasons;
}

describe("docs/metrics.md", () => {
  it("lists exactly the drop reasons the data plane counts, each once", () => {
    const documented = documentedDropReasons(readFileSync(METRICS_DOC, "utf8"));
    expect([...documented].sort()).to.deep.equal([...DROP_REASONS].sort());
  });

  it("documents the datagram path metric with every path netemu reports", () => {
    const row = readFileSync(METRICS_DOC, "utf8").split("\n").find((l) => l.startsWith("| `netemu_datagram_path_info`"));
    expect(row, "docs/metrics.md has a row for netemu_datagram_path_info").to.be.a("string");
    // The kinds of DatagramPath (src/adapters/transport/datagram-path.ts).
    for (const path of ["batched", "dgram", "host"]) expect(row).to.include(`\`${path}\``);
  });

  it("gives the number of drop reasons the code has, where it says how many", () => {
    const text = readFileSync(METRICS_DOC, "utf8");
    for (const m of text.matchAll(/closed list of (\d+)/g)) expect(Number(m[1])).to.equal(DROP_REASONS.length);
  });
});
