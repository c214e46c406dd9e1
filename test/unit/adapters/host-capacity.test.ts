import { expect } from "chai";
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostCapacity } from "../../../src/adapters/system/host-capacity.js";

describe("the machine's size a compute reports (ADR 0066, 0078)", () => {
  it("measures the disk of a projects directory not made yet by its nearest existing ancestor", () => {
    const dir = mkdtempSync(join(tmpdir(), "netemu-capacity-"));
    try {
      const fs = statfsSync(dir);
      const capacity = hostCapacity(join(dir, "not", "made", "yet"));
      expect(capacity.diskBytes).to.equal(fs.blocks * fs.bsize);
      expect(capacity.cpus).to.be.at.least(1);
      expect(capacity.memoryBytes).to.be.above(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
