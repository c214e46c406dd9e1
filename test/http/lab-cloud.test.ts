import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLabCommand } from "../../src/adapters/cli/lab/lab-command.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { freeUdpPort } from "../support/udp-peer.js";

/** `netemu lab` with a cloud: the lab format had it, the controller now runs it (ADR 0082). */
describe("netemu lab with a cloud: deploy makes its UDP tunnels, inspect shows them, save writes them back", function () {
  this.timeout(30_000);
  let s: TestServer;
  let dir: string;

  beforeEach(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-cloud-"));
  });
  afterEach(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lab = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runLabCommand([args[0] ?? "", "--server", s.url, ...args.slice(1)], {}, (l) => out.push(l), (l) => err.push(l));
    return { code, out, err };
  };

  it("deploys a cloud linked to a switch, and save writes the same tunnel back", async () => {
    const lport = await freeUdpPort();
    const file = join(dir, "edge.yml");
    writeFileSync(file, ["name: edge", "nodes:", "  sw1: {kind: ethernet_switch, ports: 2}", `  wan: {kind: cloud, ports: [{name: qemu, lport: ${lport}, rhost: 127.0.0.1, rport: 40999}]}`, "links:", "  - endpoints: [wan:qemu, sw1:e0]", ""].join("\n"));
    const deployed = await lab("deploy", file);
    expect(deployed.err, deployed.err.join("\n")).to.deep.equal([]);
    expect(deployed.code).to.equal(0);
    const inspected = await lab("inspect", "edge");
    expect(inspected.code).to.equal(0);
    // Its tunnels where a PC shows its addresses, and its link by the port's name.
    expect(inspected.out).to.include(`wan   cloud            started  -        qemu udp ${lport} <-> 127.0.0.1:40999`);
    expect(inspected.out.some((l) => /^wan:qemu\s+sw1:e0/.test(l))).to.equal(true);
    const saved = await lab("save", "edge");
    expect(saved.code, saved.err.join("\n")).to.equal(0);
    const text = saved.out.join("\n");
    expect(text).to.include(`lport: ${lport}`);
    expect(text).to.include("rport: 40999");
  });
});
