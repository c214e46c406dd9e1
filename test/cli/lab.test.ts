import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer } from "../support/http-harness.js";

const CLI = join(fileURLToPath(new URL("../../../", import.meta.url)), "dist", "cli.js");

interface Run {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

/** The built CLI as a user runs it, ended by the test if it outlives its bound. */
function netemu(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env["PATH"] ?? "", ...env } });
    const out: string[] = [];
    const err: string[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d.toString()));
    child.stderr.on("data", (d: Buffer) => err.push(d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, out: out.join("").split("\n").filter(Boolean), err: err.join("").split("\n").filter(Boolean) });
    });
  });
}

const LAB = `name: two-switches
nodes:
  sw1: {kind: ethernet_switch, ports: [{port: 0, vlan: 10}, {port: 7, type: dot1q}]}
  sw2: {kind: ethernet_switch, ports: [{port: 0, vlan: 10}, {port: 7, type: dot1q}]}
  hub1: {kind: ethernet_hub}
links:
  - endpoints: [sw1:e7, sw2:e7]
    a_to_b: {delay: 25}
    b_to_a: {delay: 25, packet_loss: 2}
  - endpoints: [hub1:e0, sw2:e0]
`;

describe("netemu lab as a user runs it: exit codes and messages (ADR 0084)", function () {
  // Each run starts a node process: seconds apiece on a machine shared by several test runs.
  this.timeout(180_000);
  let s: TestServer;
  let dir: string;
  let file: string;

  beforeEach(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-cli-"));
    file = join(dir, "lab.yml");
    writeFileSync(file, LAB);
  });
  afterEach(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("deploys, refuses a second deploy of a changed file with 1, and destroys, NETEMU_SERVER naming the server", async () => {
    const env = { NETEMU_SERVER: s.url };
    const deployed = await netemu(["lab", "deploy", file], env);
    expect([deployed.code, deployed.err]).to.deep.equal([0, []]);
    expect(deployed.out[0]).to.match(/^netemu lab: deployed lab two-switches: 3 nodes, 2 links/);
    expect(deployed.out).to.include("sw1:e7   sw2:e7  -        delay=25  packet_loss=2 delay=25", deployed.out.join("\n"));

    writeFileSync(file, LAB.replace("a_to_b: {delay: 25}", "a_to_b: {delay: 50}"));
    const refused = await netemu(["lab", "deploy", file], env);
    expect([refused.code, refused.out]).to.deep.equal([1, []]);
    expect(refused.err[0]).to.match(/^netemu lab: lab two-switches exists \(project [0-9a-f-]{36}\); nothing changed\. It differs from .* in 1 step: give --reconfigure to make them$/);

    const destroyed = await netemu(["lab", "destroy", file], env);
    expect([destroyed.code, destroyed.err]).to.deep.equal([0, []]);
    const gone = await netemu(["lab", "inspect", file], env);
    expect([gone.code, gone.err]).to.deep.equal([1, [`netemu lab: no lab two-switches on ${s.url}`]]);
  });

  it("answers 2 naming the file, line and field of a lab file that cannot be used", async () => {
    writeFileSync(file, LAB.replace("sw2:e7]", "sw3:e7]"));
    const r = await netemu(["lab", "deploy", file, "--server", s.url]);
    expect([r.code, r.out, r.err]).to.deep.equal([2, [], [`netemu lab: ${file}:7:25: links[0].endpoints[1]: no node "sw3" in the lab (its nodes: sw1, sw2, hub1)`]]);
  });

  it("answers 2 for arguments it does not take, and lists the lab commands in its help", async () => {
    expect(await netemu(["lab", "deploy"])).to.deep.equal({ code: 2, out: [], err: ["netemu lab: deploy takes one lab file (netemu lab --help)"] });
    expect((await netemu(["--help"])).out).to.include("  netemu lab deploy FILE [--reconfigure]        a lab from a YAML file (docs/labs.md; netemu lab --help)");
  });

  it("answers 2 when no netemu answers at the address", async () => {
    const r = await netemu(["lab", "inspect", "x", "--server", "http://127.0.0.1:9"]);
    expect(r.code).to.equal(2);
    expect(r.err[0]).to.match(/^netemu lab: no answer from http:\/\/127\.0\.0\.1:9/);
  });
});
