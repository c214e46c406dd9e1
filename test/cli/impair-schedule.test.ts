import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runImpairCommand } from "../../src/adapters/cli/impair-command.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

const PROJECT = "69696969-1111-4222-8333-444444444445";

async function impair(args: readonly string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runImpairCommand(args, {}, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err };
}

describe("netemu impair --schedule-in/--schedule-out (ADR 0102)", () => {
  let s: TestServer;
  let dir: string;
  const at = (): string[] => ["--server", s.url, "--project", "lab", "--node", "Switch1", "--port", "Ethernet2"];
  beforeEach(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "netemu-impair-schedule-"));
    await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT });
    await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1" });
  });
  afterEach(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sets a flap from a YAML file and prints the step it runs and when the next begins", async () => {
    const file = join(dir, "flap.yaml");
    writeFileSync(file, "period: 10\nwindows:\n  - at: 0\n    for: 2\n    filters: { frequency_drop: [-1] }\n");
    const r = await impair([...at(), "--schedule-out", file]);
    expect([r.code, r.err]).to.deep.equal([0, []]);
    expect(r.out[0]).to.match(/^lab\tSwitch1\tEthernet2\tin: -\tout: schedule step 1 \(frequency_drop=-1\), next in [12]\.\d s$/);
    expect((await s.request("GET", "/v2/netemu/impairments")).json[0].schedule_out.windows).to.deep.equal([{ at: 0, for: 2, filters: { frequency_drop: [-1] } }]);
  });

  it("takes the JSON itself, and lists a schedule waiting for its first frame", async () => {
    const r = await impair([...at(), "--schedule-in", '{"start": "first_frame", "steps": [{"at": 0, "filters": {"delay": [20]}}, {"at": 30}]}']);
    expect(r.code).to.equal(0);
    const listed = await impair(["list", "--server", s.url]);
    expect(listed.out).to.deep.equal(["lab\tSwitch1\tEthernet2\tin: schedule step 0 (delay=20), waiting for the first frame\tout: -"]);
  });

  it("exits 2 for a file it cannot read or that is not a mapping, sending nothing", async () => {
    const missing = await impair([...at(), "--schedule-out", join(dir, "none.yaml")]);
    expect([missing.code, missing.err[0]]).to.deep.equal([2, `netemu impair: --schedule-out ${join(dir, "none.yaml")}: cannot read the file (ENOENT); give a YAML or JSON file, or the JSON itself`]);
    const list = join(dir, "list.yaml");
    writeFileSync(list, "- 1\n- 2\n");
    const notMapping = await impair([...at(), "--schedule-in", list]);
    expect(notMapping.code).to.equal(2);
    expect(notMapping.err[0]).to.contain("a schedule is a mapping");
    const broken = await impair([...at(), "--schedule-in", "{nope"]);
    expect(broken.code).to.equal(2);
    expect(broken.err[0]).to.contain("not YAML or JSON");
    expect((await s.request("GET", "/v2/netemu/impairments")).json).to.deep.equal([]);
  });

  it("prints the server's refusal naming the field, and exits 1", async () => {
    const r = await impair([...at(), "--schedule-out", '{"steps": [{"at": 0}, {"at": 10}, {"at": 5}]}']);
    expect(r.code).to.equal(1);
    expect(r.err[0]).to.contain("schedule_out.steps[2].at: 5 is not after schedule_out.steps[1].at");
  });
});
