import { expect } from "chai";
import { listening } from "../support/process-checks.js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runLabCommand } from "../../src/adapters/cli/lab/lab-command.js";
import type { ServerSettings } from "../../src/application/ports/server-settings.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { gns3PeerPrefix } from "../support/gns3-peer.js";

const VPCS_LAB = join(fileURLToPath(new URL("../../../", import.meta.url)), "labs", "vpcs.yml");
const VPCS = join(gns3PeerPrefix(), "bin", "vpcs");

interface Run {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}


/**
 * labs/vpcs.yml as a user deploys it: two VPCS PCs (VPCS 0.8.3, run by netemu) through a switch, the
 * PCs' addresses from the lab, a ping typed into pc1's console through `netemu lab exec`, and the lab's
 * 50 ms delay (both ways, on pc2's link) in the round trips.
 */
describe("netemu lab: labs/vpcs.yml deployed, pinged through exec, saved, destroyed (ADR 0084)", function () {
  this.timeout(120_000);
  let s: TestServer | undefined;
  let configDir: string;

  const lab = async (args: readonly string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runLabCommand([args[0] ?? "", "--server", (s as TestServer).url, ...args.slice(1)], {}, (l) => out.push(l), (l) => err.push(l));
    return { code, out, err };
  };

  before(async function () {
    if (!existsSync(VPCS)) {
      console.log(`      skipped: no VPCS 0.8.3 at ${VPCS} (bash ../shared/gns3-peer/install.sh /opt/gns3-peer)`);
      this.skip();
    }
    configDir = mkdtempSync(join(tmpdir(), "netemu-lab-vpcs-"));
    // vpcsPath: the VPCS binary netemu runs for its vpcs nodes (issue 27's host nodes).
    s = await startTestServer({ settings: { configDir, ...({ vpcsPath: VPCS } as unknown as Partial<ServerSettings>) } });
    const capabilities = (await s.request("GET", "/v2/compute/capabilities")).json as { node_types: string[] };
    if (!capabilities.node_types.includes("vpcs")) {
      console.log("      skipped: this netemu's controller does not run VPCS nodes (issue 27's VPCS work is not merged here)");
      this.skip();
    }
  });

  after(async () => {
    await s?.close();
    if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
  });

  it("deploys the PCs with their addresses, pings across the switch with the lab's delay, sees the lab deployed already, saves it, and destroys the PCs with their consoles", async () => {
    const deployed = await lab(["deploy", VPCS_LAB]);
    expect([deployed.code, deployed.err]).to.deep.equal([0, []]);
    const pc1 = deployed.out.find((l) => l.startsWith("pc1 "));
    expect(pc1, deployed.out.join("\n")).to.match(/^pc1\s+vpcs\s+started\s+telnet 127\.0\.0\.1:\d+\s+10\.0\.0\.1\/24 via 10\.0\.0\.254$/);
    const consoles = deployed.out.flatMap((l) => /telnet 127\.0\.0\.1:(\d+)/.exec(l)?.[1] ?? []).map(Number);
    expect(consoles).to.have.length(2);

    const ping = await lab(["exec", "pc1", "--timeout", "60", "--", "ping", "10.0.0.2", "-c", "3"]);
    expect([ping.code, ping.err]).to.deep.equal([0, []]);
    const rtts = ping.out.flatMap((l) => /bytes from 10\.0\.0\.2 icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/.exec(l)?.[1] ?? []).map(Number);
    expect(rtts.length, ping.out.join("\n")).to.be.at.least(2);
    // 50 ms each way on pc2's link: at least 100 ms a round trip (a delay is never early, ADR 0031).
    for (const rtt of rtts) expect(rtt).to.be.at.least(100);

    // GNS3's controller answers a VPCS node without its startup script: the running PCs are asked instead.
    const again = await lab(["deploy", VPCS_LAB]);
    expect([again.code, again.err]).to.deep.equal([0, []]);
    expect(again.out[0]).to.match(/^netemu lab: lab vpcs is deployed already .*nothing to change$/);
    const saved = await lab(["save", "vpcs"]);
    expect(saved.out.join("\n")).to.match(/pc2:\n    kind: vpcs\n    address: 10\.0\.0\.2\/24\n    gateway: 10\.0\.0\.254\n/);

    const destroyed = await lab(["destroy", "vpcs"]);
    expect([destroyed.code, destroyed.err]).to.deep.equal([0, []]);
    for (const port of consoles) expect(await listening(port), `console ${port}`).to.equal(false);
  });
});
