import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLabCommand } from "../../src/adapters/cli/lab/lab-command.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

const lab = (name: string) => `name: ${name}
nodes:
  sw1: {kind: ethernet_switch}
  sw2: {kind: ethernet_switch}
links:
  - endpoints: [sw1:e7, sw2:e7]
    filters: {delay: 50}
`;

/**
 * The quick tour adds a delay with `netemu impair` on a port of the deployed lab; `lab inspect` showed
 * the link's filters only, as if nothing had been added. It lists the ports' impairments after the
 * links, of this lab only (ADR 0089).
 */
describe("netemu lab inspect: the impairments netemu impair put on the lab's ports (ADR 0089)", function () {
  this.timeout(30_000);
  let s: TestServer;
  let dir: string;

  beforeEach(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-inspect-"));
    for (const name of ["tour", "other"]) {
      writeFileSync(join(dir, `${name}.yml`), lab(name));
      expect(await run(["deploy", join(dir, `${name}.yml`)])).to.deep.include({ code: 0, err: [] });
    }
  });
  afterEach(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(args: readonly string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runLabCommand([args[0] ?? "", "--server", s.url, ...args.slice(1)], {}, (l) => out.push(l), (l) => err.push(l));
    return { code, out, err };
  }

  it("lists a port's impairments, each direction, after the links; of this lab, not another's", async () => {
    const set = await s.netemu.useCases.setImpairment.execute({ project: "tour", node: "sw1", port: "Ethernet0", out: { delay: [200] }, in: { packet_loss: [5] } });
    expect(set._tag, JSON.stringify(set)).to.equal("Right");
    expect((await s.netemu.useCases.setImpairment.execute({ project: "other", node: "sw2", port: "Ethernet3", out: { delay: [7] } }))._tag).to.equal("Right");
    const r = await run(["inspect", "tour"]);
    expect([r.code, r.err]).to.deep.equal([0, []]);
    const at = r.out.findIndex((l) => l.startsWith("PORT (netemu impair)"));
    expect(at, r.out.join("\n")).to.be.greaterThan(0);
    expect(r.out.slice(at - 1)).to.deep.equal(["", "PORT (netemu impair)  IN             OUT", "sw1:Ethernet0         packet_loss=5  delay=200"]);
  });

  it("shows no such section when no port is impaired", async () => {
    const r = await run(["inspect", "tour"]);
    expect([r.code, r.err]).to.deep.equal([0, []]);
    expect(r.out.some((l) => l.includes("netemu impair")), r.out.join("\n")).to.equal(false);
    expect(r.out.at(-1)).to.match(/^sw1:e7\s+sw2:e7\s+delay=50/);
  });
});
