import { expect } from "chai";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runImpairCommand } from "../../src/adapters/cli/impair-command.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const CLI = join(fileURLToPath(new URL("../../../", import.meta.url)), "dist", "cli.js");
const PROJECT = "69696969-1111-4222-8333-444444444444";

interface Run {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

async function impair(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runImpairCommand(args, env, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err };
}

/** A GNS3 controller as `netemu impair` meets it: every netemu path is its JSON 404, its Server header aiohttp's. */
async function gns3Controller(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(404, { "Content-Type": "application/json", Server: "Python/3.10 aiohttp/3.8.1" });
    res.end('{"message": "404: Not Found", "status": 404}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The built CLI as a user runs it, ended by the test if it outlives its bound. */
function cli(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env["PATH"] ?? "" } });
    const out: string[] = [];
    const err: string[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d.toString()));
    child.stderr.on("data", (d: Buffer) => err.push(d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, out: out.join("").split("\n").filter(Boolean), err: err.join("").split("\n").filter(Boolean) });
    });
  });
}

describe("netemu impair: impairments on a GNS3 port of a running netemu, from the command line (ADR 0067)", function () {
  this.timeout(20_000);
  let s: TestServer;
  const at = () => ["--server", s.url, "--project", "lab", "--node", "Switch1", "--port", "Ethernet2"];

  beforeEach(async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT });
    await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1" });
  });
  afterEach(() => s.close());

  it("sets a one-way delay and a bandwidth limit on a port by its GUI names, and prints what now holds", async () => {
    const r = await impair([...at(), "--out", "delay=50", "--out", "bandwidth=1000,20", "--in", "bpf=icmp and host 10.0.0.1"]);
    expect(r.err).to.deep.equal([]);
    expect(r.code).to.equal(0);
    expect(r.out).to.deep.equal(['lab\tSwitch1\tEthernet2\tin: bpf="icmp and host 10.0.0.1"\tout: bandwidth=1000,20 delay=50']);
    expect((await s.request("GET", "/v2/netemu/impairments")).json[0].filters_out).to.deep.equal({ delay: [50], bandwidth: [1000, 20] });
  });

  it("replays an uploaded trace on a direction: capacity_trace=NAME,QUEUE, a name of digits staying a name (ADR 0103)", async () => {
    expect((await s.raw("PUT", "/v2/netemu/traces/2024", "1\n2\n")).status).to.equal(201);
    const r = await impair([...at(), "--out", "capacity_trace=2024,500"]);
    expect(r.err).to.deep.equal([]);
    expect(r.code).to.equal(0);
    expect((await s.request("GET", "/v2/netemu/impairments")).json[0].filters_out).to.deep.equal({ capacity_trace: ["2024", 500] });
    const refused = await impair([...at(), "--in", "delay_trace=nowhere"]);
    expect(refused.code).to.equal(1);
    expect(refused.err.join("\n")).to.include('no trace named "nowhere" was uploaded');
  });

  it("takes netem's granularity: chances to 0.01 %, times to the µs, rates with tc's units, and prints them in the catalogue's units (ADR 0101)", async () => {
    const r = await impair([...at(), "--out", "delay=500us,0.25", "--in", "packet_loss=0.5%", "--out", "bandwidth=10mbit,2.5ms", "--in", "duplicate=0.01"]);
    expect(r.err).to.deep.equal([]);
    expect(r.code).to.equal(0);
    expect(r.out).to.deep.equal(["lab\tSwitch1\tEthernet2\tin: duplicate=0.01 packet_loss=0.5\tout: bandwidth=10000,2.5 delay=0.5,0.25"]);
    const held = (await s.request("GET", "/v2/netemu/impairments")).json[0];
    expect([held.filters_in, held.filters_out]).to.deep.equal([{ packet_loss: [0.5], duplicate: [0.01] }, { bandwidth: [10_000, 2.5], delay: [0.5, 0.25] }]);
  });

  for (const [what, option, message] of [
    ["a loss finer than 0.01 %", "packet_loss=0.001%", 'filters_in: Filter packet_loss: Chance is finer than netemu takes (0.01 %), got "0.001%"'],
    ["a rate unit tc does not have", "bandwidth=10xbit", 'filters_in: Filter bandwidth: Rate "10xbit" has a unit netemu does not read (xbit)'],
    ["a negative delay", "delay=-5ms", 'filters_in: Filter delay: Latency must be between 0 and 32767 ms, got "-5ms" (-5 ms)'],
    ["NaN", "delay=NaN", 'filters_in: Filter delay: Latency "NaN" is not a time'],
    ["a delay with too many decimals", "delay=0.0001", "filters_in: Filter delay: Latency is finer than netemu takes (0.001 ms, 1 µs), got 0.0001"],
  ] as const) {
    it(`refuses ${what} (${option}) with the server's message naming it, exit 1, and changes nothing`, async () => {
      await impair([...at(), "--in", "corrupt=3"]);
      const r = await impair([...at(), "--in", option]);
      expect(r.code).to.equal(1);
      expect(r.err.join("\n")).to.match(/^netemu impair: http:\/\/127\.0\.0\.1:\d+ answered 400: /);
      expect(r.err.join("\n")).to.include(message);
      expect((await s.request("GET", "/v2/netemu/impairments")).json[0].filters_in).to.deep.equal({ corrupt: [3] });
    });
  }

  it("lists and clears them, by project, node or port", async () => {
    await impair([...at(), "--out", "delay=50"]);
    await impair(["--server", s.url, "--project", "lab", "--node", "Switch1", "--port", "0", "--in", "packet_loss=5"]);
    const listed = await impair(["list", "--server", s.url, "--project", "lab"]);
    expect([listed.code, listed.out]).to.deep.equal([0, ["lab\tSwitch1\tEthernet0\tin: packet_loss=5\tout: -", "lab\tSwitch1\tEthernet2\tin: -\tout: delay=50"]]);
    const json = await impair(["list", "--server", s.url, "--port", "Ethernet2", "--json"]);
    expect(JSON.parse(json.out.join("\n"))).to.have.length(1);
    const cleared = await impair(["clear", "--server", s.url, "--node", "Switch1", "--port", "Ethernet2"]);
    expect([cleared.code, cleared.out[0]]).to.deep.equal([0, "cleared 1 impairment"]);
    expect((await impair(["list", "--server", s.url])).out).to.deep.equal(["lab\tSwitch1\tEthernet0\tin: packet_loss=5\tout: -"]);
  });

  it("prints names and text values with control characters escaped, so a name cannot act on the terminal or break the columns", async () => {
    const hostile = "Sw\u001b]0;owned\u0007\u009b2J\tA\\x\u202e";
    await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: hostile });
    const set = await impair(["--server", s.url, "--project", "lab", "--node", hostile, "--port", "Ethernet1", "--in", "bpf=ether proto \\ip"]);
    expect([set.code, set.err]).to.deep.equal([0, []]);
    const printed = "lab\tSw\\x1b]0;owned\\x07\\x9b2J\\tA\\\\x\\u202e\tEthernet1\tin: bpf=\"ether proto \\\\ip\"\tout: -";
    expect(set.out).to.deep.equal([printed]);
    const listed = await impair(["list", "--server", s.url, "--node", hostile]);
    expect(listed.out).to.deep.equal([printed]);
    for (const l of [...set.out, ...listed.out]) expect(l.split("\t"), l).to.have.length(5);
    const json = await impair(["list", "--server", s.url, "--node", hostile, "--json"]);
    const text = json.out.join("\n");
    expect(text).not.to.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(text)[0].node_name, "the JSON still reads back as the name").to.equal(hostile);
    const refused = await impair(["--server", s.url, "--project", "lab", "--node", "no\u0007such", "--port", "1", "--out", "delay=5"]);
    expect([refused.code, refused.err[0]]).to.deep.equal([1, `netemu impair: ${s.url} answered 404: Node "no\\x07such" not found in project "lab"`]);
  });

  it("removes one direction with --clear-out and keeps the other", async () => {
    await impair([...at(), "--out", "delay=50", "--in", "duplicate=3"]);
    const r = await impair([...at(), "--clear-out"]);
    expect(r.out).to.deep.equal(["lab\tSwitch1\tEthernet2\tin: duplicate=3\tout: -"]);
  });

  it("prints the server's refusal and exits 1: a port not found, filters out of range", async () => {
    const missing = await impair(["--server", s.url, "--project", "lab", "--node", "Switch1", "--port", "Ethernet9", "--out", "delay=5"]);
    expect([missing.code, missing.err]).to.deep.equal([1, [`netemu impair: ${s.url} answered 404: Port "Ethernet9" not found on node "Switch1"`]]);
    const range = await impair([...at(), "--out", "packet_loss=200"]);
    expect(range.code).to.equal(1);
    expect(range.err[0]).to.match(/answered 400: filters_out/);
    expect((await s.request("GET", "/v2/netemu/impairments")).json).to.deep.equal([]);
  });

  it("exits 2 with a usage message on bad arguments, sending nothing", async () => {
    for (const args of [
      ["--server", s.url, "--node", "Switch1", "--port", "Ethernet2", "--out", "delay=5"],
      [...at()],
      [...at(), "--out", "delay"],
      [...at(), "--out", "delay=5", "--clear-out"],
      [...at(), "--speed", "9"],
      ["--server", "ftp://x", "--project", "lab", "--node", "Switch1", "--port", "1", "--out", "delay=5"],
    ]) {
      const r = await impair(args);
      expect(r.code, args.join(" ")).to.equal(2);
      expect(r.err[0], args.join(" ")).to.match(/^netemu impair: /);
    }
    expect((await s.request("GET", "/v2/netemu/impairments")).json).to.deep.equal([]);
  });

  it("exits 2 saying so when nothing answers at the address", async () => {
    const url = s.url;
    await s.close();
    const r = await impair(["list", "--server", url]);
    expect(r.code).to.equal(2);
    expect(r.err[0]).to.contain(`no answer from ${url}`);
    s = await startTestServer();
  });

  it("sends the credentials of a netemu run with --auth (password from NETEMU_PASSWORD), and says when they are refused", async () => {
    await s.close();
    s = await startTestServer({ settings: { auth: { enabled: true, user: "admin", password: "s3cret" } } });
    const ok = await impair(["list", "--server", s.url, "--user", "admin"], { NETEMU_PASSWORD: "s3cret" });
    expect([ok.code, ok.err]).to.deep.equal([0, []]);
    const refused = await impair(["list", "--server", s.url, "--user", "admin", "--password", "wrong"]);
    expect(refused.code).to.equal(1);
    expect(refused.err[0]).to.contain("answered 401");
  });

  it("pointed at a GNS3 controller, says that this is not netemu and how to point it at netemu, and exits 2", async () => {
    const gns3 = await gns3Controller();
    try {
      for (const args of [["list"], ["clear"], ["--project", "lab", "--node", "Switch1", "--port", "1", "--out", "delay=5"]]) {
        const r = await impair([...args, "--server", gns3.url]);
        const method = args[0] === "list" ? "GET" : args[0] === "clear" ? "DELETE" : "PUT";
        expect([r.code, r.err], args.join(" ")).to.deep.equal([
          2,
          [`netemu impair: ${gns3.url} answered 404 for ${method} /v2/netemu/impairments: this is not a netemu server (a GNS3 controller? it says Server: Python/3.10 aiohttp/3.8.1); give netemu's address with --server URL or NETEMU_SERVER`],
        ]);
      }
    } finally {
      await gns3.close();
    }
  });

  it("prints what clear removed as removed, not as impairments that still hold", async () => {
    await impair([...at(), "--out", "delay=50"]);
    const cleared = await impair(["clear", "--server", s.url, "--project", "lab"]);
    expect([cleared.code, cleared.out]).to.deep.equal([0, ["cleared 1 impairment", "removed\tlab\tSwitch1\tEthernet2\tin: -\tout: delay=50"]]);
    expect((await impair(["list", "--server", s.url])).out).to.deep.equal([]);
  });

  it("looks for netemu where `netemu serve` listens unless told, says so in its help, and says where it looked when nothing answers", async () => {
    const help = await impair(["--help"]);
    expect(help.out.join("\n")).to.contain("default http://127.0.0.1:3080, where `netemu serve` listens unless given --port");
    expect(help.out.join("\n")).to.contain("a GNS3 controller on this machine listens there too");
    const url = s.url;
    await s.close();
    const r = await impair(["list"], { NETEMU_SERVER: url });
    expect(r.code).to.equal(2);
    expect(r.err[0]).to.match(new RegExp(`^netemu impair: no answer from ${url}: .*; is netemu running there\\? give its address with --server URL or NETEMU_SERVER$`));
    s = await startTestServer();
  });

  it("is reached as `netemu impair` from the built command, with its help", async () => {
    const help = await cli(["impair", "--help"]);
    expect(help.code).to.equal(0);
    expect(help.out[0]).to.match(/^usage: netemu impair/);
    const listed = await cli(["impair", "list", "--server", s.url]);
    expect([listed.code, listed.out, listed.err]).to.deep.equal([0, [], []]);
    expect((await cli(["--help"])).out.join("\n")).to.contain("netemu impair");
  });
});
