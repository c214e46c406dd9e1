import { expect } from "chai";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_FILE_NAME, type ProcessProbe, ProjectsPathLock, ProjectsPathLocked, ProjectsPathUnusable } from "../../../src/adapters/persistence/projects-path-lock.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";

/** A host of our own making: which pids live is a set the test writes. */
function probe(pid: number, alive: Set<number>, host = "lab-host", onCheck: () => void = () => undefined): ProcessProbe {
  return {
    hostname: host,
    pid,
    isAlive: (p) => {
      onCheck();
      return alive.has(p);
    },
  };
}

const WHERE = { address: "127.0.0.1", port: 3080 };

describe("The projects-path lock", () => {
  let dir: string;
  let logger: RecordingLogger;
  const lockFile = (): string => join(dir, LOCK_FILE_NAME);
  const holderInFile = (): Record<string, unknown> => JSON.parse(readFileSync(lockFile(), "utf8")) as Record<string, unknown>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-lock-unit-"));
    logger = new RecordingLogger();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the holder's pid, host and address into <projects_path>/.netemu.lock, creating the directory", () => {
    const path = join(dir, "not-yet");
    const lock = ProjectsPathLock.acquire(path, WHERE, logger, probe(100, new Set([100])));
    expect(JSON.parse(readFileSync(join(path, LOCK_FILE_NAME), "utf8"))).to.deep.include({ pid: 100, host: "lab-host", address: "127.0.0.1", port: 3080 });
    lock.release();
  });

  it("refuses a second holder while the first one's pid lives, naming that pid and address", () => {
    const alive = new Set([100, 200]);
    const first = ProjectsPathLock.acquire(dir, WHERE, logger, probe(100, alive));
    let refusal: unknown;
    try {
      ProjectsPathLock.acquire(dir, { address: "127.0.0.1", port: 3081 }, logger, probe(200, alive));
    } catch (err) {
      refusal = err;
    }
    expect(refusal).to.be.instanceOf(ProjectsPathLocked);
    expect((refusal as ProjectsPathLocked).holder).to.deep.include({ pid: 100, port: 3080 });
    expect((refusal as Error).message).to.include("netemu pid 100 on lab-host serving http://127.0.0.1:3080");
    expect(holderInFile()).to.deep.include({ pid: 100 });
    first.release();
  });

  it("takes over a lock whose pid is dead on this host, with a warn line", () => {
    ProjectsPathLock.acquire(dir, WHERE, logger, probe(100, new Set([100])));
    const next = ProjectsPathLock.acquire(dir, WHERE, logger, probe(200, new Set([200])));
    expect(holderInFile()).to.deep.include({ pid: 200 });
    expect(logger.lines.map((l) => [l.level, l.msg, l.fields?.["deadPid"]])).to.deep.equal([["warn", "took over the lock of a netemu that is gone", 100]]);
    expect(readdirSync(dir)).to.deep.equal([LOCK_FILE_NAME]);
    next.release();
  });

  it("does not take over a lock held on another host, whose pids it cannot see", () => {
    ProjectsPathLock.acquire(dir, WHERE, logger, probe(100, new Set([100]), "other-host"));
    expect(() => ProjectsPathLock.acquire(dir, WHERE, logger, probe(200, new Set([200])))).to.throw(ProjectsPathLocked, "on other-host");
  });

  it("refuses a lock file it cannot read as a holder, telling the operator to remove it if no netemu serves", () => {
    writeFileSync(lockFile(), "not json");
    expect(() => ProjectsPathLock.acquire(dir, WHERE, logger, probe(200, new Set([200])))).to.throw(ProjectsPathLocked, "cannot be read (remove it if no netemu serves that path)");
    expect(readFileSync(lockFile(), "utf8")).to.equal("not json");
  });

  it("answers a lock path that is a directory as an unusable projects path, with the OS's code, not a crash", () => {
    mkdirSync(lockFile());
    expect(() => ProjectsPathLock.acquire(dir, WHERE, logger, probe(200, new Set([200])))).to.throw(ProjectsPathUnusable, `cannot lock the projects path ${dir}: EISDIR`);
  });

  it("leaves a racing start's fresh lock in place when both found the same stale one", () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: 100, host: "lab-host", address: "127.0.0.1", port: 3080, startedAt: "then" }));
    const alive = new Set([200, 300]);
    // While this start checks the dead pid, the racer removes the stale lock and creates its own.
    let raced = false;
    const racing = probe(300, alive, "lab-host", () => {
      if (raced) return;
      raced = true;
      rmSync(lockFile());
      writeFileSync(lockFile(), JSON.stringify({ pid: 200, host: "lab-host", address: "127.0.0.1", port: 3082, startedAt: "now" }));
    });
    expect(() => ProjectsPathLock.acquire(dir, WHERE, logger, racing)).to.throw(ProjectsPathLocked, "pid 200");
    expect(holderInFile()).to.deep.include({ pid: 200, port: 3082 });
    expect(readdirSync(dir)).to.deep.equal([LOCK_FILE_NAME]);
  });

  it("records the port actually served once listening", () => {
    const lock = ProjectsPathLock.acquire(dir, { address: "127.0.0.1", port: 0 }, logger, probe(100, new Set([100])));
    lock.listening("127.0.0.1", 43210);
    expect(holderInFile()).to.deep.include({ port: 43210 });
    expect(readdirSync(dir)).to.deep.equal([LOCK_FILE_NAME]);
    lock.release();
  });

  it("removes its own lock on release, once, and never a lock that is no longer its own", () => {
    const lock = ProjectsPathLock.acquire(dir, WHERE, logger, probe(100, new Set([100])));
    lock.release();
    expect(existsSync(lockFile())).to.equal(false);
    const other = ProjectsPathLock.acquire(dir, WHERE, logger, probe(200, new Set([200])));
    lock.release();
    expect(holderInFile()).to.deep.include({ pid: 200 });
    other.release();
  });
});
