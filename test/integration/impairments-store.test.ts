import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { constants, closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type Reply, type TestServer } from "../support/http-harness.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";

const PROJECT = "71717171-1111-4222-8333-444444444444";
const PATH = "/v2/netemu/impairments";
const SECRET = "root:x:0:0:the-link-target-must-never-be-quoted";

/** A request that must be answered promptly: a hang fails the test instead of holding it. */
async function promptly(what: string, reply: Promise<Reply>, ms = 5000): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([reply, late]);
  } finally {
    clearTimeout(timer);
  }
}

const portsMapping = (count: number) => Array.from({ length: count }, (_, n) => ({ name: `Ethernet${n}`, port_number: n, type: "access", vlan: 1, ethertype: "" }));

/**
 * The impairments store as the project files are (ADR 0071): one writer, each change answered once it
 * is on disk, a change costing its own line, and a file that is not a regular one never stopping the lab.
 */
describe("the impairments store: nothing acknowledged is lost, and an odd file never stops the lab", function () {
  this.timeout(30_000);
  let dir: string;
  let s: TestServer | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-impairments-store-"));
  });
  afterEach(async () => {
    // A reader left waiting on a FIFO (what netemu did before ADR 0071) is let go, so that the test ends.
    const file = join(dir, "impairments.json");
    if (existsSync(file) && lstatSync(file).isFIFO()) closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
    await s?.close();
    s = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (logger?: RecordingLogger): Promise<TestServer> => startTestServer({ settings: { configDir: dir }, ...(logger === undefined ? {} : { overrides: { logger } }) });
  const restart = async (): Promise<TestServer> => {
    await s?.close();
    s = await start();
    return s;
  };
  /** A compute project "lab" with switches S1, S2, ...: their node ids. */
  const lab = async (server: TestServer, switches: number, ports = 8): Promise<string[]> => {
    await server.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT });
    const ids: string[] = [];
    for (let n = 1; n <= switches; n++) {
      const r = await server.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: `S${n}`, ports_mapping: portsMapping(ports) });
      expect(r.status, r.text).to.equal(201);
      ids.push(r.json.node_id as string);
    }
    return ids;
  };
  const names = (r: Reply): string[] => (r.json as { node_name: string; port_name: string }[]).map((i) => `${i.node_name}/${i.port_name}`).sort();

  it("keeps every impairment 8 clients set at once on their own switches: all answered 200, all listed, all there after a restart", async () => {
    s = await start();
    await lab(s, 8);
    const server = s;
    const expected: string[] = [];
    const clients = Array.from({ length: 8 }, async (_, c) => {
      for (let port = 0; port < 8; port++) {
        const r = await server.request("PUT", PATH, { project: "lab", node: `S${c + 1}`, port: `Ethernet${port}`, filters_out: { delay: [10 + port] } });
        expect(r.status, r.text).to.equal(200);
        expected.push(`S${c + 1}/Ethernet${port}`);
      }
    });
    await Promise.all(clients);
    expect(names(await s.request("GET", PATH)), "listed").to.deep.equal(expected.sort());
    await restart();
    expect(names(await s.request("GET", PATH)), "listed after a restart").to.deep.equal(expected);
    const cleared = await s.request("DELETE", PATH);
    expect(cleared.json, "every one found by DELETE").to.have.length(64);
  });

  it("forgets every impairment 8 clients clear at once, also after a restart", async () => {
    s = await start();
    await lab(s, 8);
    for (let c = 1; c <= 8; c++) for (let port = 0; port < 8; port++) await s.request("PUT", PATH, { project: "lab", node: `S${c}`, port: `Ethernet${port}`, filters_in: { packet_loss: [5] } });
    const server = s;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, c) => server.request("DELETE", `${PATH}?node=S${c + 1}`)));
    expect(answers.map((r) => [r.status, (r.json as unknown[]).length])).to.deep.equal(Array(8).fill([200, 8]));
    expect((await s.request("GET", PATH)).json).to.deep.equal([]);
    await restart();
    expect((await s.request("GET", PATH)).json, "none come back after a restart").to.deep.equal([]);
  });

  it("sets 10,000 impairments through the API in well under a minute, and has them all after a restart", async function () {
    this.timeout(120_000);
    s = await start();
    // 100 switches of 100 ports: each set resolves its node among 100 and syncs a node of 100 ports.
    await lab(s, 100, 100);
    const server = s;
    const began = Date.now();
    const deadline = began + 60_000;
    let set = 0;
    // 8 clients, each taking the next port, switch after switch: the store sees changes at once on
    // many switches (changes on one switch wait for each other, as every change of a node does).
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let n = next++; n < 10_000 && Date.now() < deadline; n = next++) {
          const r = await server.request("PUT", PATH, { project: "lab", node: `S${(n % 100) + 1}`, port: `Ethernet${Math.floor(n / 100)}`, filters_out: { delay: [n % 1000] }, filters_in: { packet_loss: [1] } });
          expect(r.status, r.text).to.equal(200);
          set++;
        }
      }),
    );
    const took = Date.now() - began;
    expect(set, `set within 60 s (${took} ms)`).to.equal(10_000);
    expect(took).to.be.below(60_000);
    expect((await s.request("GET", PATH)).json).to.have.length(10_000);
    await restart();
    const listed = (await s.request("GET", PATH)).json as { node_name: string; port_name: string; filters_out: { delay: number[] } }[];
    expect(listed).to.have.length(10_000);
    const sample = listed.find((i) => i.node_name === "S42" && i.port_name === "Ethernet7");
    expect(sample?.filters_out).to.deep.equal({ delay: [741 % 1000] });
  });

  /** NIO add and node start on the compute, a link of the controller, and an impairment set: each must answer promptly. */
  const labStillWorks = async (server: TestServer): Promise<void> => {
    await promptly("compute project", server.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT }));
    const sw = await promptly("compute switch", server.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "S1" }));
    expect(sw.status, sw.text).to.equal(201);
    const lport = (await promptly("udp port", server.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`))).json.udp_port as number;
    const nio = await promptly("NIO add", server.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.json.node_id}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 }));
    expect(nio.status, nio.text).to.equal(201);
    const projectId = (await promptly("controller project", server.request("POST", "/v2/projects", { name: "controlled" }))).json.project_id as string;
    const node = async (name: string) => (await promptly("controller node", server.request("POST", `/v2/projects/${projectId}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local" }))).json.node_id as string;
    const [a, b] = [await node("A"), await node("B")];
    const link = await promptly("link create", server.request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 0 }, { node_id: b, adapter_number: 0, port_number: 0 }] }));
    expect(link.status, link.text).to.equal(201);
    const started = await promptly("node start", server.request("POST", `/v2/projects/${projectId}/nodes/start`, {}));
    expect(started.status, started.text).to.equal(204);
    const put = await promptly("impairment PUT", server.request("PUT", PATH, { project: "lab", node: "S1", port: "Ethernet1", filters_out: { delay: [5] } }));
    expect(put.status, put.text).to.equal(200);
    expect((await promptly("impairments list", server.request("GET", PATH))).json).to.have.length(1);
  };

  const movedAside = (logger: RecordingLogger, says: string): void => {
    const line = logger.lines.find((l) => l.level === "error" && l.msg.includes("moved aside"));
    expect(line, "an error line saying the file was moved aside").to.not.equal(undefined);
    expect(line?.fields).to.include({ file: join(dir, "impairments.json") });
    expect(String(line?.fields?.["reason"])).to.contain(says);
    expect(String(line?.fields?.["movedTo"])).to.match(/impairments\.json\.unreadable-\d+$/);
    expect(readdirSync(dir).filter((f) => f.startsWith("impairments.json.unreadable-"))).to.have.length(1);
  };

  it("keeps the lab working when impairments.json is a FIFO: moved aside, never opened", async () => {
    execFileSync("mkfifo", [join(dir, "impairments.json")]);
    const logger = new RecordingLogger();
    s = await start(logger);
    await labStillWorks(s);
    movedAside(logger, "a FIFO");
  });

  it("keeps the lab working when impairments.json is a directory: moved aside", async () => {
    mkdirSync(join(dir, "impairments.json"));
    const logger = new RecordingLogger();
    s = await start(logger);
    await labStillWorks(s);
    movedAside(logger, "a directory");
  });

  it("keeps the lab working when impairments.json is 200 MiB: moved aside unread, memory not blown", async () => {
    const file = join(dir, "impairments.json");
    writeFileSync(file, "");
    truncateSync(file, 200 * 1024 * 1024);
    const logger = new RecordingLogger();
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    try {
      s = await start(logger);
      await labStillWorks(s);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    // Reading it whole costs 200 MiB of buffer alone (610 MiB in the issue); a server and a lab cost far less than 100.
    expect((peak - before) / 1024 / 1024, "MiB of RSS the start and the lab took").to.be.below(100);
    movedAside(logger, `${200 * 1024 * 1024} bytes, more than`);
  });

  it("keeps the lab working when impairments.json is a symbolic link: the link moved aside, never followed, its target never quoted", async () => {
    const target = join(dir, "elsewhere");
    writeFileSync(target, SECRET);
    symlinkSync(target, join(dir, "impairments.json"));
    const logger = new RecordingLogger();
    s = await start(logger);
    await labStillWorks(s);
    movedAside(logger, "a symbolic link");
    expect(JSON.stringify(logger.lines), "the log quotes nothing of the target").to.not.contain("root:x");
    expect(readFileSync(target, "utf8"), "the target is left as it was").to.equal(SECRET);
    const aside = readdirSync(dir).find((f) => f.startsWith("impairments.json.unreadable-"))!;
    expect(lstatSync(join(dir, aside)).isSymbolicLink(), "the link itself was moved").to.equal(true);
  });

  it("refuses an impairment change it cannot make durable with a 500 naming the cause, the rest of the lab working, and takes changes again once it can", async () => {
    s = await start();
    const [switchId] = await lab(s, 1);
    expect((await s.request("GET", PATH)).json, "the store has read its files").to.deep.equal([]);
    // Where the journal is appended, a directory now: the append fails as a full or broken disk's would.
    mkdirSync(join(dir, "impairments.journal"));
    const put = await promptly("impairment PUT", s.request("PUT", PATH, { project: "lab", node: "S1", port: "Ethernet1", filters_out: { delay: [5] } }));
    expect(put.status).to.equal(500);
    expect(put.json.message).to.match(/^Could not record the impairment change in .*impairments\.journal: EISDIR \(it is a directory\); nothing was changed$/);
    expect((await s.request("GET", PATH)).json, "nothing listed").to.deep.equal([]);
    const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
    const nio = await promptly("NIO add", s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${switchId}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 }));
    expect(nio.status, nio.text).to.equal(201);
    rmSync(join(dir, "impairments.journal"), { recursive: true });
    const again = await s.request("PUT", PATH, { project: "lab", node: "S1", port: "Ethernet1", filters_out: { delay: [5] } });
    expect(again.status, again.text).to.equal(200);
    await restart();
    expect(names(await s.request("GET", PATH))).to.deep.equal(["S1/Ethernet1"]);
  });
});
