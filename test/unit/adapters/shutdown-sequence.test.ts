import { expect } from "chai";
import { shutdownSequence, type StoppingParts } from "../../../src/adapters/system/shutdown-sequence.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";

/** Every part of a core that stops, each writing what it did into one journal, in order. */
function recordingParts(journal: string[], logger = new RecordingLogger()): StoppingParts {
  const closing = (name: string) => ({ close: async () => void journal.push(name) });
  return {
    logger,
    beginStopping: () => void journal.push("use cases told the shutdown began"),
    stopServing: async (meanwhile) => {
      journal.push("http stops taking requests");
      await meanwhile();
      journal.push("http connections cut");
    },
    uploads: closing("uploads"),
    notificationSockets: closing("notification websockets"),
    stopCore: async () => void journal.push("core"),
    filterPrograms: closing("compiler thread"),
    impairments: closing("impairments file"),
    projectFiles: { flush: async () => void journal.push("project files written") },
    projectsPath: "/srv/projects",
    projectsLock: { release: () => void journal.push("projects path lock released") },
  };
}

describe("netemu's shutdown sequence (ADR 0078)", () => {
  it("tells the use cases first, stops the parts in their order while the requests in flight finish, and releases the projects path last", async () => {
    const journal: string[] = [];
    const logger = new RecordingLogger();
    const { shutdown } = shutdownSequence(recordingParts(journal, logger));
    await shutdown();
    expect(journal).to.deep.equal([
      // First: a start all under way takes no further node (ADR 0090).
      "use cases told the shutdown began",
      "http stops taking requests",
      "uploads",
      "notification websockets",
      "core",
      "compiler thread",
      "impairments file",
      "project files written",
      "projects path lock released",
      "http connections cut",
    ]);
    expect(logger.lines.map((l) => l.msg)).to.deep.equal(["shutting down", "shutdown: notification websockets closed", "shutdown: project files written", "stopped"]);
    expect(logger.lines[2]?.fields).to.deep.equal({ projectsPath: "/srv/projects" });
  });

  it("runs once however often it is asked, and says it stopped only at its end", async () => {
    const journal: string[] = [];
    const { shutdown, stopped } = shutdownSequence(recordingParts(journal));
    let said = false;
    void stopped.then(() => (said = true));
    const first = shutdown();
    expect(shutdown()).to.equal(first);
    expect(said).to.equal(false);
    await first;
    await stopped;
    expect(said).to.equal(true);
    expect(journal.filter((step) => step === "core")).to.have.length(1);
  });

  it("skips the parts a core does not have: no use cases to tell, no uploads, impairments file, project files or lock of its own", async () => {
    const journal: string[] = [];
    const logger = new RecordingLogger();
    const parts = { ...recordingParts(journal, logger), beginStopping: undefined, uploads: undefined, impairments: undefined, projectFiles: undefined, projectsLock: undefined };
    await shutdownSequence(parts).shutdown();
    expect(journal).to.deep.equal(["http stops taking requests", "notification websockets", "core", "compiler thread", "http connections cut"]);
    expect(logger.lines.map((l) => l.msg)).to.not.include("shutdown: project files written");
  });

  it("starts when POST /v2/shutdown asks only on the next turn, after the answer went out", async () => {
    const journal: string[] = [];
    const { lifecycle, stopped } = shutdownSequence(recordingParts(journal));
    lifecycle.requestShutdown();
    expect(journal).to.deep.equal([]);
    await stopped;
    expect(journal).to.include("core");
  });

  it("fails with the step that failed, does not say it stopped, and gives every later call that same failure", async () => {
    const journal: string[] = [];
    const logger = new RecordingLogger();
    const parts = { ...recordingParts(journal, logger), stopCore: async () => Promise.reject(new Error("a socket would not close")) };
    const { shutdown } = shutdownSequence(parts);
    const failures = await Promise.allSettled([shutdown(), shutdown()]);
    expect(failures.map((f) => (f.status === "rejected" ? (f.reason as Error).message : "fulfilled"))).to.deep.equal(["a socket would not close", "a socket would not close"]);
    expect(journal).to.not.include("projects path lock released");
    expect(logger.lines.map((l) => l.msg)).to.not.include("stopped");
  });
});
