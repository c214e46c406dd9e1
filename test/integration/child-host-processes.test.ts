import { expect } from "chai";
import { spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { ChildHostProcesses } from "../../src/adapters/system/child-host-processes.js";
import type { ProcessExit, ProcessSpec } from "../../src/application/ports/host-processes.js";
import { knownProcess } from "../../src/adapters/system/proc-processes.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { freeTcpPort } from "../support/free-tcp-port.js";
import { runningIn } from "../support/process-checks.js";
import { DEBIAN_VPCS } from "../support/vpcs-console.js";

/** Whether the pid runs (a zombie has ended: a daemon's is reaped by init whenever it gets to it). */
const alive = (pid: number): boolean => knownProcess(pid) !== undefined;

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function freeUdpPort(): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", r));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(r));
  return port;
}

/** The live processes running `exe` (Debian's VPCS by default) in `cwd`: none may be left after a refusal or a stop. */
function vpcsIn(cwd: string, exe = DEBIAN_VPCS): number[] {
  return runningIn(exe, cwd);
}

function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
}

describe("host processes: Debian's VPCS 0.5b2, which daemonizes, tracked by the UDP port it binds (ADR 0088)", function () {
  this.timeout(30_000);
  let root: string;
  let cwd: string;
  let stateDir: string;
  let processes: ChildHostProcesses;

  beforeEach(function () {
    if (!knownProcess(process.pid) || !readdirSync("/usr/bin").includes("vpcs")) this.skip();
    root = mkdtempSync(join(tmpdir(), "netemu-processes-"));
    cwd = join(root, "node");
    mkdirSync(cwd);
    stateDir = join(root, "state");
    processes = new ChildHostProcesses(new RecordingLogger(), stateDir);
  });

  afterEach(async () => {
    await processes?.stopAll();
    for (const pid of vpcsIn(cwd)) process.kill(pid, "SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  async function spec(overrides: Partial<{ console: number; udp: number }> = {}): Promise<ProcessSpec> {
    const consolePort = overrides.console ?? (await freeTcpPort());
    const udp = overrides.udp ?? (await freeUdpPort());
    return {
      key: "pc1",
      program: DEBIAN_VPCS,
      args: ["-p", String(consolePort), "-m", "0", "-i", "1", "-s", String(udp), "-c", String(await freeUdpPort()), "-t", "127.0.0.1"],
      cwd,
      logFile: join(cwd, "vpcs.log"),
      daemon: { udpPort: udp },
    };
  }

  it("finds the daemon its command left (pidOf) and the instance it forked, records both, and stop ends both and the record", async () => {
    const started = await processes.start(await spec());
    if (E.isLeft(started)) throw new Error(started.left);
    const daemon = started.right.pid;
    expect(processes.pidOf("pc1")).to.equal(daemon);
    const [instance] = childrenOf(daemon);
    expect(instance, "the daemon's instance").to.be.a("number");
    expect(vpcsIn(cwd).sort()).to.deep.equal([daemon, instance].sort());
    const record = JSON.parse(readFileSync(join(stateDir, `processes-${process.pid}.json`), "utf8"));
    expect(record.processes.map((p: { pid: number }) => p.pid).sort()).to.deep.equal([daemon, instance].sort());
    expect(record.processes[0]).to.include({ key: "pc1", exe: DEBIAN_VPCS });
    await processes.stop("pc1");
    expect(vpcsIn(cwd)).to.deep.equal([]);
    expect(processes.pidOf("pc1")).to.equal(undefined);
    expect(readdirSync(stateDir), "no record once nothing runs").to.deep.equal([]);
  });

  it("hears the death of its instance without an exit event (polled), its status unknown, and ends its daemon", async () => {
    const heard: ProcessExit[] = [];
    processes.onExit((exit) => heard.push(exit));
    const started = await processes.start(await spec());
    if (E.isLeft(started)) throw new Error(started.left);
    const [instance] = childrenOf(started.right.pid);
    process.kill(instance as number, "SIGKILL");
    await until("the death to be heard", () => heard.length === 1);
    expect(heard[0]).to.include({ key: "pc1", pid: started.right.pid, code: null, signal: null });
    await until("its daemon to be ended", () => vpcsIn(cwd).length === 0);
  });

  it("refuses a start whose UDP port is taken (0.5b2 would run on without its socket) and leaves none of its processes", async () => {
    const taken = createSocket("udp4");
    await new Promise<void>((r) => taken.bind(0, "0.0.0.0", r));
    try {
      const started = await processes.start(await spec({ udp: taken.address().port }));
      expect(E.isLeft(started) && started.left).to.match(new RegExp(`no process of it bound UDP port ${taken.address().port}`));
      expect(vpcsIn(cwd)).to.deep.equal([]);
      expect(processes.pidOf("pc1")).to.equal(undefined);
    } finally {
      taken.close();
    }
  });

  it("refuses a start whose console port is taken (0.5b2 exits 0, saying so in its log), with what it said", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "0.0.0.0", r));
    try {
      const started = await processes.start(await spec({ console: (server.address() as { port: number }).port }));
      expect(E.isLeft(started) && started.left).to.match(/Daemon bind port: Address already in use/);
      expect(vpcsIn(cwd)).to.deep.equal([]);
    } finally {
      server.close();
    }
  });

  it("refuses a program said to daemonize that stays in the foreground, and ends it", async () => {
    const script = join(root, "stays");
    writeFileSync(script, "#!/bin/sh\nexec sleep 60\n", { mode: 0o755 });
    const started = await processes.start({ key: "pc1", program: script, args: [], cwd, logFile: join(cwd, "log"), daemon: { udpPort: await freeUdpPort() } });
    expect(E.isLeft(started) && started.left).to.match(/expected to daemonize, but still ran after/);
    await until("the program to be ended", () => vpcsIn(cwd, realpathSync("/bin/sleep")).length === 0);
  });
});

describe("host processes left by a netemu killed with -9 are ended at the next start, by their record (ADR 0088)", function () {
  this.timeout(30_000);
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "netemu-leftovers-"));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A process outside any netemu (a decoy: a sleep), and what a record would say of it. */
  function sleeper(): { pid: number; started: string; exe: string; end: () => void } {
    const child = spawn("sleep", ["60"], { stdio: "ignore" });
    const known = knownProcess(child.pid as number);
    if (known === undefined) throw new Error("the sleep did not start");
    return { ...known, end: () => child.kill("SIGKILL") };
  }

  it("ends only the recorded processes that are still the same (pid, start time, program); a reused pid is left alone", async () => {
    const recorded = sleeper();
    const reused = sleeper();
    try {
      mkdirSync(root, { recursive: true });
      // A netemu that is gone: a pid above pid_max's largest value, which no process can have.
      writeFileSync(
        join(root, "processes-999999999.json"),
        JSON.stringify({
          pid: 999999999,
          started: "1",
          processes: [
            { key: "a", pid: recorded.pid, started: recorded.started, exe: recorded.exe },
            // The same pid, another start time: the kernel gave the pid to another process since.
            { key: "b", pid: reused.pid, started: String(Number(reused.started) - 1), exe: reused.exe },
          ],
        }),
      );
      const ended = await new ChildHostProcesses(new RecordingLogger(), root).endLeftovers();
      expect(ended).to.deep.equal([recorded.pid]);
      await until("the recorded one to be gone", () => !alive(recorded.pid));
      expect(alive(reused.pid), "the pid given to another process").to.equal(true);
      expect(readdirSync(root), "the record is gone").to.deep.equal([]);
    } finally {
      recorded.end();
      reused.end();
    }
  });

  it("leaves the record of a netemu that still runs alone (its processes are its own)", async () => {
    const other = sleeper();
    const theirs = sleeper();
    try {
      const record = { pid: other.pid, started: other.started, processes: [{ key: "a", pid: theirs.pid, started: theirs.started, exe: theirs.exe }] };
      writeFileSync(join(root, `processes-${other.pid}.json`), JSON.stringify(record));
      expect(await new ChildHostProcesses(new RecordingLogger(), root).endLeftovers()).to.deep.equal([]);
      expect(alive(theirs.pid)).to.equal(true);
      expect(readdirSync(root)).to.deep.equal([`processes-${other.pid}.json`]);
    } finally {
      other.end();
      theirs.end();
    }
  });
});

/** GNS3's VPCS 0.8.3 (stays in the foreground), as the e2e tests run it. */
const PEER_VPCS = "/opt/gns3-peer/bin/vpcs";

describe("host processes: a VPCS 0.8.3 start answers once it listens on its console and holds its UDP port (issue 27)", function () {
  this.timeout(30_000);
  let root: string;
  let processes: ChildHostProcesses;

  beforeEach(function () {
    try {
      readFileSync(PEER_VPCS);
    } catch {
      this.skip();
    }
    root = mkdtempSync(join(tmpdir(), "netemu-ready-"));
    processes = new ChildHostProcesses(new RecordingLogger());
  });

  afterEach(async () => {
    await processes?.stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  async function vpcsSpec(consolePort: number, udp: number): Promise<ProcessSpec> {
    return {
      key: "pc1",
      program: PEER_VPCS,
      args: ["-p", String(consolePort), "-m", "0", "-i", "1", "-F", "-R", "-s", String(udp), "-c", String(await freeUdpPort()), "-t", "127.0.0.1"],
      cwd: join(root, "pc1"),
      logFile: join(root, "pc1", "vpcs.log"),
      listens: { tcpPort: consolePort, udpPort: udp },
    };
  }

  /** Whether a TCP port takes a connection now. */
  const accepts = (port: number): Promise<boolean> =>
    new Promise((resolve) => {
      const socket = createConnection(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });

  it("answers the start with the console already listening and the UDP port already bound by it", async () => {
    const consolePort = await freeTcpPort();
    const udp = await freeUdpPort();
    const started = await processes.start(await vpcsSpec(consolePort, udp));
    if (E.isLeft(started)) throw new Error(started.left);
    expect(await accepts(consolePort)).to.equal(true);
    const taken = createSocket("udp4");
    const bound = await new Promise<boolean>((resolve) => {
      taken.once("error", () => resolve(false));
      taken.bind(udp, "127.0.0.1", () => resolve(true));
    });
    taken.close();
    expect(bound, "the UDP port is VPCS's already").to.equal(false);
  });

  it("refuses a start whose console port is taken, with what VPCS said, and leaves nothing running", async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, "0.0.0.0", r));
    const consolePort = (holder.address() as { port: number }).port;
    try {
      const started = await processes.start(await vpcsSpec(consolePort, await freeUdpPort()));
      expect(E.isLeft(started) && started.left).to.match(/ended at once.*Daemon bind port: Address already in use/s);
      expect(processes.pidOf("pc1")).to.equal(undefined);
    } finally {
      holder.close();
    }
  });
});
