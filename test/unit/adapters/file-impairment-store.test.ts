import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileImpairmentStore, type FileImpairmentStoreOptions } from "../../../src/adapters/persistence/file-impairment-store.js";
import type { ImpairmentChange } from "../../../src/application/ports/impairment-store.js";
import type { Impairment } from "../../../src/domain/switching/impairment-overlay.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";
import { parseSchedule, scheduleEqual } from "../../../src/domain/filters/schedule.js";

const PROJECT = "71717171-2222-4333-8444-555555555555";

const impairment = (node: number, port: number, delay = 10): Impairment =>
  Object.freeze({ projectId: PROJECT, projectName: "labé—✓", nodeId: `node-${node}`, nodeName: `S${node}`, portNumber: port, portName: `Ethernet${port}`, in: {}, out: { delay: [delay] as const } });
const set = (i: Impairment): ImpairmentChange => ({ _tag: "Set", impairment: i });
const remove = (i: Impairment): ImpairmentChange => ({ _tag: "Remove", target: i });
const ports = (list: readonly Impairment[]): string[] => list.map((i) => `${i.nodeName}/${i.portName}:${String(i.out.delay)}`).sort();

describe("FileImpairmentStore: a snapshot and a journal of changes (ADR 0071)", () => {
  let dir: string;
  const stores: FileImpairmentStore[] = [];
  const open = (options: FileImpairmentStoreOptions = {}, logger = new RecordingLogger()): FileImpairmentStore => {
    const store = new FileImpairmentStore(dir, logger, options);
    stores.push(store);
    return store;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-impairment-store-"));
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a change only once it is on disk: a second store reading the files meanwhile has it", async () => {
    const store = open();
    expect(await store.apply([set(impairment(1, 1))])).to.deep.equal(E.right(undefined));
    expect(ports(await open().list())).to.deep.equal(["S1/Ethernet1:10"]);
  });

  it("keeps every one of 64 changes made at once, in memory and on disk", async () => {
    const store = open();
    const answers = await Promise.all(Array.from({ length: 64 }, (_, n) => store.apply([set(impairment(n % 8, Math.floor(n / 8)))])));
    expect(answers.every(E.isRight)).to.equal(true);
    expect(await store.list()).to.have.length(64);
    expect(await open().list()).to.have.length(64);
  });

  it("keeps a direction's schedule and the time it was set, and reads them back as the same value (ADR 0102)", async () => {
    const parsed = parseSchedule({ period: 10, windows: [{ at: 1, for: 2, filters: { delay: [200] } }], base: { delay: [20] } }, "schedule_out");
    if (E.isLeft(parsed)) throw new Error("parse");
    const scheduled: Impairment = Object.freeze({ ...impairment(1, 1), out: {}, scheduleOut: { schedule: parsed.right, setAtMs: 1_764_158_400_000 } });
    const store = open();
    expect(await store.apply([set(scheduled)])).to.deep.equal(E.right(undefined));
    const [back] = await open().list();
    expect(back?.scheduleOut?.setAtMs).to.equal(1_764_158_400_000);
    expect(scheduleEqual(back?.scheduleOut?.schedule, parsed.right)).to.equal(true);
  });

  it("answers a node's impairments alone", async () => {
    const store = open();
    await store.apply([set(impairment(1, 1)), set(impairment(1, 2)), set(impairment(2, 1))]);
    expect(ports(await store.ofNode("node-1"))).to.deep.equal(["S1/Ethernet1:10", "S1/Ethernet2:10"]);
    expect(await store.ofNode("node-9")).to.deep.equal([]);
  });

  it("reads impairments.json as netemu wrote it before the journal", async () => {
    const old = { project_id: PROJECT, project_name: "lab", node_id: "node-1", node_name: "S1", port_number: 2, port_name: "Ethernet2", filters_in: {}, filters_out: { delay: [50] } };
    writeFileSync(join(dir, "impairments.json"), JSON.stringify({ impairments: [old] }, null, 2) + "\n");
    const store = open();
    expect(ports(await store.list())).to.deep.equal(["S1/Ethernet2:50"]);
    await store.apply([set(impairment(1, 3))]);
    expect(ports(await open().list())).to.deep.equal(["S1/Ethernet2:50", "S1/Ethernet3:10"]);
  });

  it("appends each change to the journal and leaves the snapshot alone until the journal outgrows it", async () => {
    const store = open();
    await store.apply([set(impairment(1, 1))]);
    await store.apply([set(impairment(1, 1, 20)), remove(impairment(1, 1))]);
    expect(existsSync(join(dir, "impairments.json"))).to.equal(false);
    expect(readFileSync(join(dir, "impairments.journal"), "utf8").split("\n")).to.have.length(3);
    expect(await open().list()).to.deep.equal([]);
  });

  it("folds the journal into impairments.json, in its old format, once it outgrows the snapshot, and empties it", async () => {
    const store = open({ compactAfterBytes: 2048 });
    for (let port = 0; port < 40; port++) await store.apply([set(impairment(1, port))]);
    const snapshot = JSON.parse(readFileSync(join(dir, "impairments.json"), "utf8")) as { impairments: { port_name: string; filters_out: unknown }[] };
    expect(snapshot.impairments.length).to.be.greaterThan(0);
    expect(snapshot.impairments[0]).to.deep.include({ port_name: "Ethernet0", filters_out: { delay: [10] } });
    expect(statSync(join(dir, "impairments.journal")).size, "the journal holds only what came after").to.be.below(2048);
    expect(await open().list()).to.have.length(40);
  });

  it("reads a journal whose last line was cut short (a crash mid-write) up to the last whole change, and appends after it cleanly", async () => {
    const store = open();
    await store.apply([set(impairment(1, 1))]);
    await store.apply([set(impairment(1, 2))]);
    await store.close();
    const journal = join(dir, "impairments.journal");
    const whole = readFileSync(journal, "utf8");
    const lastLine = whole.split("\n").at(-2)!;
    // The second change as a crash leaves it: half its line, no newline; and the third never begun.
    writeFileSync(journal, whole.slice(0, whole.length - lastLine.length - 1) + lastLine.slice(0, lastLine.length / 2));
    const logger = new RecordingLogger();
    const reopened = open({}, logger);
    expect(ports(await reopened.list())).to.deep.equal(["S1/Ethernet1:10"]);
    expect(logger.lines.some((l) => l.level === "warn" && l.msg.includes("cut short"))).to.equal(true);
    await reopened.apply([set(impairment(1, 3))]);
    expect(readFileSync(journal, "utf8").split("\n").every((line) => line === "" || JSON.parse(line) !== undefined), "every line whole").to.equal(true);
    expect(ports(await open().list())).to.deep.equal(["S1/Ethernet1:10", "S1/Ethernet3:10"]);
  });

  it("stops at a whole line that does not parse, keeps a copy of the journal, and says at which line", async () => {
    const store = open();
    await store.apply([set(impairment(1, 1))]);
    await store.close();
    appendFileSync(join(dir, "impairments.journal"), "{garbage\n" + JSON.stringify({ changes: [{ set: {} }] }) + "\n");
    const logger = new RecordingLogger();
    expect(ports(await open({}, logger).list())).to.deep.equal(["S1/Ethernet1:10"]);
    const line = logger.lines.find((l) => l.level === "error" && l.msg.includes("journal damaged"));
    expect(line?.fields).to.deep.include({ line: 2, reason: "not JSON (line 1)" });
    expect(readdirSync(dir).filter((f) => f.startsWith("impairments.journal.damaged-"))).to.have.length(1);
  });

  it("moves a journal that is not a regular file aside and reads impairments.json alone", async () => {
    const store = open({ compactAfterBytes: 1 });
    await store.apply([set(impairment(1, 1))]);
    await store.close();
    rmSync(join(dir, "impairments.journal"));
    writeFileSync(join(dir, "target"), "root:x:0:0");
    const { symlinkSync } = await import("node:fs");
    symlinkSync(join(dir, "target"), join(dir, "impairments.journal"));
    const logger = new RecordingLogger();
    expect(ports(await open({}, logger).list())).to.deep.equal(["S1/Ethernet1:10"]);
    expect(logger.lines.find((l) => l.msg.includes("journal unreadable"))?.fields).to.deep.include({ reason: "a symbolic link: only a regular file is read (links are not followed)" });
    expect(JSON.stringify(logger.lines)).to.not.contain("root:x");
  });

  it("writes impairments.json afresh when the journal is removed while open, so the changes it held survive", async () => {
    const store = open();
    await store.apply([set(impairment(1, 1))]);
    rmSync(join(dir, "impairments.journal"));
    const logger = new RecordingLogger();
    await store.apply([set(impairment(1, 2))]);
    expect(ports(await open({}, logger).list())).to.deep.equal(["S1/Ethernet1:10", "S1/Ethernet2:10"]);
  });

  it("refuses a change that would take the files past the size netemu reads back, and keeps the others", async () => {
    const store = open({ maxFileBytes: 4096 });
    const many = Array.from({ length: 40 }, (_, port) => set(impairment(1, port)));
    const refused = await store.apply(many);
    expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: "ImpairmentsUnwritable", code: "EFBIG" });
    expect(await store.list()).to.deep.equal([]);
    expect(await store.apply([set(impairment(1, 1))])).to.deep.equal(E.right(undefined));
    expect(await open().list()).to.have.length(1);
  });
});
