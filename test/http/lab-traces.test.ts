import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLabCommand } from "../../src/adapters/cli/lab/lab-command.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

/** A lab file that ships its traces beside it (ADR 0103): `traces:` names each file, relative to the lab file. */
const LAB = `name: cellular
nodes:
  sw1: {kind: ethernet_switch}
  sw2: {kind: ethernet_switch}
traces:
  lte.down: traces/lte.down
links:
  - endpoints: [sw1:e7, sw2:e7]
    a_to_b: {capacity_trace: [lte.down, 300]}
`;

describe("netemu lab deploy with a lab file's traces (ADR 0103)", function () {
  this.timeout(30_000);
  let s: TestServer;
  let dir: string;

  const lab = async (args: readonly string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runLabCommand([args[0] ?? "", "--server", s.url, ...args.slice(1)], {}, (l) => out.push(l), (l) => err.push(l));
    return { code, out, err };
  };

  beforeEach(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-traces-"));
    mkdirSync(join(dir, "traces"));
  });
  afterEach(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("uploads each trace from its file beside the lab before the links that name it, and deploys the same lab again as nothing to change", async () => {
    writeFileSync(join(dir, "traces", "lte.down"), "1\n1\n2\n5\n");
    writeFileSync(join(dir, "lab.yml"), LAB);
    const first = await lab(["deploy", join(dir, "lab.yml")]);
    expect(first.err, first.err.join("\n")).to.deep.equal([]);
    expect(first.code).to.equal(0);
    expect((await s.request("GET", "/v2/netemu/traces")).json).to.deep.equal([{ name: "lte.down", kind: "capacity", lines: 4, bytes: 8, duration_ms: 5, mean_capacity_kbps: 9600 }]);
    // The trace is in use by the link: a second deploy must not try to replace it (that would be a 409).
    const again = await lab(["deploy", join(dir, "lab.yml")]);
    expect(again.err, again.err.join("\n")).to.deep.equal([]);
    expect(again.code).to.equal(0);
    expect(again.out.join("\n")).to.include("nothing to change");
  });

  it("refuses with 2 a trace file that cannot be read, naming it, and makes nothing", async () => {
    writeFileSync(join(dir, "lab.yml"), LAB);
    const r = await lab(["deploy", join(dir, "lab.yml")]);
    expect(r.code).to.equal(2);
    expect(r.err.join("\n")).to.match(/traces\.lte\.down: .*no such file/i);
    expect((await s.request("GET", "/v2/projects")).json).to.deep.equal([]);
  });

  it("refuses with 1 a trace file that does not read, with the server's message naming the line", async () => {
    writeFileSync(join(dir, "traces", "lte.down"), "1\n3\n2\n");
    writeFileSync(join(dir, "lab.yml"), LAB);
    const r = await lab(["deploy", join(dir, "lab.yml")]);
    expect(r.code).to.equal(1);
    expect(r.err.join("\n")).to.include("line 3: 2 ms comes before the 3 ms of the line above");
  });
});
