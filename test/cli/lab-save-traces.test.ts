import { expect } from "chai";
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runLabCommand } from "../../src/adapters/cli/lab/lab-command.js";
import { RouteLabApi } from "../../src/adapters/cli/lab/lab-api.js";
import type { RouteServer } from "../../src/adapters/cli/route-client.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

/**
 * A lab whose links name three traces, one in each place a trace can be named: the link's filters (both
 * directions), a direction's filters and a schedule's step; and a fourth trace the server holds that no
 * link names.
 */
const LAB = `name: cellular
nodes:
  sw1: {kind: ethernet_switch}
  sw2: {kind: ethernet_switch}
  sw3: {kind: ethernet_switch}
traces:
  lte.down: traces/lte.down
  wobble: traces/wobble
  lossy: traces/lossy
  unused: traces/unused
links:
  - endpoints: [sw1:e7, sw2:e7]
    filters: {loss_trace: lossy}
    a_to_b: {capacity_trace: [lte.down, 300]}
    b_to_a_schedule: {steps: [{at: 0, filters: {delay_trace: wobble}}, {at: 5, filters: {delay: 10}}]}
  - endpoints: [sw2:e6, sw3:e6]
`;

const TRACES: Readonly<Record<string, string>> = {
  "lte.down": "1\n1\n2\n5\n",
  wobble: "0 40\n5000 120\n10000\n",
  lossy: "0 1\n2000 5\n",
  unused: "1\n2\n",
};

const CLI = join(fileURLToPath(new URL("../../../", import.meta.url)), "dist", "cli.js");

/** The built CLI with its standard output sent to `file`, as a shell's `> FILE` does: its exit code and stderr. */
function netemuInto(file: string, args: readonly string[]): Promise<{ readonly code: number; readonly err: string }> {
  const fd = openSync(file, "w");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env["PATH"] ?? "" }, stdio: ["ignore", fd, "pipe"] });
    const err: string[] = [];
    child.stderr?.on("data", (d: Buffer) => err.push(d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      closeSync(fd);
      resolve({ code: code ?? -1, err: err.join("") });
    });
  });
}

/** Everything under a folder, as relative paths: what a refused save must leave as it was. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("netemu lab save ships the traces a lab names (issue 29)", function () {
  // Two servers and a deploy on each: seconds on a machine shared by several test runs.
  this.timeout(60_000);
  let a: TestServer;
  let dir: string;
  let source: string;
  let out: string;

  const run = async (server: TestServer, args: readonly string[], makeApi?: (s: RouteServer) => RouteLabApi) => {
    const o: string[] = [];
    const e: string[] = [];
    const code = await runLabCommand([args[0] ?? "", "--server", server.url, ...args.slice(1)], {}, (l) => o.push(l), (l) => e.push(l), makeApi);
    return { code, out: o, err: e };
  };

  /** Each link's filters, per-end filters and schedules, by its ends' names: what a deploy made. */
  const linkSettings = async (server: TestServer) => {
    const [project] = (await server.request("GET", "/v2/projects")).json as { project_id: string }[];
    const nodes = (await server.request("GET", `/v2/projects/${project?.project_id}/nodes`)).json as { node_id: string; name: string }[];
    const name = (id: string) => nodes.find((n) => n.node_id === id)?.name;
    const links = (await server.request("GET", `/v2/projects/${project?.project_id}/links`)).json as { filters: unknown; nodes: { node_id: string; port_number: number; filters?: unknown; schedule?: unknown }[] }[];
    return links
      .map((l) => ({ filters: l.filters, ends: l.nodes.map((n) => ({ at: `${name(n.node_id)}:${n.port_number}`, filters: n.filters, schedule: n.schedule })) }))
      .sort((x, y) => String(x.ends[0]?.at).localeCompare(String(y.ends[0]?.at)));
  };

  beforeEach(async () => {
    a = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-save-"));
    source = join(dir, "source");
    out = join(dir, "saved");
    mkdirSync(join(source, "traces"), { recursive: true });
    mkdirSync(out);
    for (const [name, text] of Object.entries(TRACES)) writeFileSync(join(source, "traces", name), text);
    writeFileSync(join(source, "lab.yml"), LAB);
    const deployed = await run(a, ["deploy", join(source, "lab.yml")]);
    expect([deployed.code, deployed.err]).to.deep.equal([0, []]);
  });
  afterEach(async () => {
    await a.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes the lab file and each trace its links name beside it, and deploy of it on a fresh netemu makes the same lab with the same traces", async () => {
    const saved = await run(a, ["save", "cellular", "--output", join(out, "lab.yml")]);
    expect([saved.code, saved.err]).to.deep.equal([0, []]);
    expect(saved.out).to.deep.equal([`netemu lab: saved lab cellular to ${join(out, "lab.yml")} with 3 traces beside it (traces/lossy, traces/lte.down, traces/wobble)`]);
    expect(filesUnder(out)).to.deep.equal(["lab.yml", "traces", "traces/lossy", "traces/lte.down", "traces/wobble"]);
    for (const name of ["lossy", "lte.down", "wobble"]) expect(readFileSync(join(out, "traces", name), "utf8")).to.equal(TRACES[name]);
    expect(readFileSync(join(out, "lab.yml"), "utf8")).to.include("traces:\n  lossy: traces/lossy\n  lte.down: traces/lte.down\n  wobble: traces/wobble\nlinks:\n");

    const b = await startTestServer();
    try {
      expect((await b.request("GET", "/v2/netemu/traces")).json).to.deep.equal([]);
      const deployed = await run(b, ["deploy", join(out, "lab.yml")]);
      expect([deployed.code, deployed.err]).to.deep.equal([0, []]);
      const made = await linkSettings(a);
      // Not vacuous: the lab made on the first server names each trace where the file put it.
      expect(made[0]).to.deep.include({ filters: { loss_trace: ["lossy"] } });
      expect(made[0]?.ends.map((e) => [e.filters, e.schedule])).to.deep.equal([
        [{ capacity_trace: ["lte.down", 300] }, undefined],
        [undefined, { start: "set", steps: [{ at: 0, filters: { delay_trace: ["wobble"] } }, { at: 5, filters: { delay: [10] } }] }],
      ]);
      expect(await linkSettings(b)).to.deep.equal(made);
      for (const name of ["lossy", "lte.down", "wobble"]) {
        expect((await b.request("GET", `/v2/netemu/traces/${name}`)).text).to.equal(TRACES[name]);
      }
      expect((await b.request("GET", "/v2/netemu/traces/unused")).status).to.equal(404);
    } finally {
      await b.close();
    }
  });

  it("keeps > FILE working: prints the lab without a traces: section, and says on stderr which traces it names and that --output ships them, with 0", async () => {
    const r = await run(a, ["save", "cellular"]);
    expect(r.code).to.equal(0);
    expect(r.out.join("\n")).to.include("capacity_trace: [ lte.down, 300 ]").and.not.include("traces:");
    expect(r.err).to.deep.equal([
      "netemu lab: lab cellular names the traces lossy, lte.down, wobble, not written here: --output FILE writes them to traces/ beside FILE with a traces: section, so that deploy on another netemu makes the same lab",
    ]);
  });

  it("keeps the built CLI's > FILE a lab file that deploys where the traces are held, the note on stderr only", async () => {
    const r = await netemuInto(join(out, "lab.yml"), ["lab", "save", "cellular", "--server", a.url]);
    expect(r.code).to.equal(0);
    expect(r.err).to.match(/^netemu lab: lab cellular names the traces lossy, lte\.down, wobble, not written here: --output FILE/);
    const text = readFileSync(join(out, "lab.yml"), "utf8");
    expect(text).to.match(/^# netemu lab file/).and.not.include("netemu lab: ").and.not.include("traces:");
    // The server holds the traces: a deploy of the printed file into the lab it came from changes nothing.
    const again = await run(a, ["deploy", join(out, "lab.yml")]);
    expect([again.code, again.err]).to.deep.equal([0, []]);
    expect(again.out.join("\n")).to.include("nothing to change");
  });

  it("refuses with 2 an output whose folder does not exist, before asking the server, and writes nothing", async () => {
    const r = await run(a, ["save", "cellular", "--output", join(out, "missing", "lab.yml")]);
    expect([r.code, r.out]).to.deep.equal([2, []]);
    expect(r.err).to.deep.equal([`netemu lab: --output: the folder ${join(out, "missing")} does not exist; nothing written`]);
    expect(filesUnder(out)).to.deep.equal([]);
  });

  it("refuses with 2 an output that is a folder, and writes nothing", async () => {
    mkdirSync(join(out, "lab.yml"));
    const r = await run(a, ["save", "cellular", "-o", join(out, "lab.yml")]);
    expect([r.code, r.out]).to.deep.equal([2, []]);
    expect(r.err).to.deep.equal([`netemu lab: --output: cannot write ${join(out, "lab.yml")}: it is a folder; nothing written`]);
    expect(filesUnder(out)).to.deep.equal(["lab.yml"]);
  });

  it("refuses with 2 an output whose traces folder cannot be made (a file of that name is there), and writes no trace and no lab file", async () => {
    writeFileSync(join(out, "traces"), "a file, not a folder");
    const r = await run(a, ["save", "cellular", "--output", join(out, "lab.yml")]);
    expect([r.code, r.out]).to.deep.equal([2, []]);
    expect(r.err[0]).to.match(new RegExp(`^netemu lab: --output: cannot write ${join(out, "traces").replace(/[.]/g, "\\.")}: .*; nothing written$`));
    expect(filesUnder(out)).to.deep.equal(["traces"]);
    expect(readFileSync(join(out, "traces"), "utf8")).to.equal("a file, not a folder");
  });

  it("refuses with 1 a lab naming a trace the server no longer holds, naming it, and writes nothing", async () => {
    // A server that lost one trace: its real route asked for that trace under a name it never held (a
    // trace a link names cannot be deleted, so a real server answers so only after losing its store).
    class LostWobble extends RouteLabApi {
      override traceText(name: string) {
        return super.traceText(name === "wobble" ? "wobble-lost" : name);
      }
    }
    const r = await run(a, ["save", "cellular", "--output", join(out, "lab.yml")], (s) => new LostWobble(s));
    expect([r.code, r.out]).to.deep.equal([1, []]);
    expect(r.err).to.deep.equal([
      `netemu lab: lab cellular names the trace wobble, which ${a.url} no longer holds: nothing written (upload it again with PUT /v2/netemu/traces/wobble, or change the links that name it)`,
    ]);
    expect(filesUnder(out)).to.deep.equal([]);
  });

  it("refuses with 2 a trace that cannot be put in place (a folder of its name), and writes no trace and no lab file", async () => {
    mkdirSync(join(out, "traces", "lte.down"), { recursive: true });
    const r = await run(a, ["save", "cellular", "--output", join(out, "lab.yml")]);
    expect([r.code, r.out]).to.deep.equal([2, []]);
    expect(r.err).to.deep.equal([`netemu lab: --output: cannot write ${join(out, "traces", "lte.down")}: it is a folder; nothing written`]);
    expect(filesUnder(out)).to.deep.equal(["traces", "traces/lte.down"]);
  });

  it("refuses with 2 an output whose folder is a file, and writes nothing", async () => {
    writeFileSync(join(out, "plain"), "a file");
    const r = await run(a, ["save", "cellular", "--output", join(out, "plain", "lab.yml")]);
    expect([r.code, r.out]).to.deep.equal([2, []]);
    expect(r.err).to.deep.equal([`netemu lab: --output: cannot write ${join(out, "plain")}: not a folder; nothing written`]);
    expect(filesUnder(out)).to.deep.equal(["plain"]);
  });

  it("refuses with 2 when the server stops answering while the traces are read, and writes nothing", async () => {
    // The project is read from the server; its traces from an address where nothing answers (port 1).
    class GoneAway extends RouteLabApi {
      override traceText(name: string) {
        return new RouteLabApi({ url: "http://127.0.0.1:1", timeoutMs: 5_000 }).traceText(name);
      }
    }
    const r = await run(a, ["save", "cellular", "--output", join(out, "lab.yml")], (s) => new GoneAway(s));
    expect([r.code, r.out]).to.deep.equal([2, []]);
    expect(r.err[0]).to.match(/^netemu lab: .*127\.0\.0\.1:1.*; nothing written$/);
    expect(filesUnder(out)).to.deep.equal([]);
  });

  it("writes a lab that names no trace without a traces: section or folder", async () => {
    writeFileSync(join(source, "plain.yml"), "name: plain\nnodes:\n  sw1: {kind: ethernet_switch}\n");
    expect((await run(a, ["deploy", join(source, "plain.yml")])).code).to.equal(0);
    const r = await run(a, ["save", "plain", "--output", join(out, "plain.yml")]);
    expect([r.code, r.err, r.out]).to.deep.equal([0, [], [`netemu lab: saved lab plain to ${join(out, "plain.yml")}`]]);
    expect(filesUnder(out)).to.deep.equal(["plain.yml"]);
    expect(readFileSync(join(out, "plain.yml"), "utf8")).to.not.include("traces");
  });
});
