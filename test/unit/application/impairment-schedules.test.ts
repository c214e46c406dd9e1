import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNetemu, type Netemu } from "../../../src/adapters/composition-root.js";
import type { PortCounters } from "../../../src/application/ports/data-plane.js";
import { InMemoryImpairmentStore } from "../../../src/adapters/persistence/in-memory-impairment-store.js";
import { ScheduleClockwork } from "../../../src/application/schedules/schedule-clockwork.js";
import { FakeDataPlane } from "../../support/fake-data-plane.js";
import { FakeClock } from "../../support/fake-clock.js";
import { NO_QUEUE_DELAY } from "../../../src/domain/filters/queue-delay.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";

/** A data plane whose port counters the test sets (a frame seen by the port). */
class CountingDataPlane extends FakeDataPlane {
  framesIn = 0;
  override async counters(): Promise<ReadonlyMap<number, PortCounters>> {
    return new Map([[1, { framesIn: this.framesIn, bytesIn: 0, framesOut: 0, bytesOut: 0, drops: {}, queueDelay: { ingress: NO_QUEUE_DELAY, egress: NO_QUEUE_DELAY } }]]);
  }
}

const PROJECT = "6b6b6b6b-3333-4444-8555-777777777778";
const at = { project: "lab", node: "Switch1", port: "Ethernet1" };
const DOWN = { frequency_drop: [-1] };
const FLAP = { period: 10, windows: [{ at: 0, for: 2, filters: DOWN }] };
const STEPS = { steps: [{ at: 0, filters: { delay: [20] } }, { at: 30, filters: { packet_loss: [5] } }] };

describe("schedules on a GNS3 port's impairments, against a fake clock (ADR 0102)", () => {
  let netemu: Netemu;
  let dataPlane: CountingDataPlane;
  let store: InMemoryImpairmentStore;
  let clock: FakeClock;
  let dir: string;
  let nodeId: string;

  const build = async (impairmentStore = new InMemoryImpairmentStore(), withNio = true): Promise<void> => {
    await netemu?.shutdown();
    store = impairmentStore;
    dataPlane = new CountingDataPlane();
    netemu = createNetemu({ overrides: { dataPlane, logger: new RecordingLogger(), impairmentStore, clock, timers: clock }, settings: { configDir: dir } });
    const uc = netemu.useCases;
    await uc.createComputeProject.execute({ name: "lab", projectId: PROJECT });
    const sw = await uc.createSwitch.execute({ projectId: PROJECT, name: "Switch1", nodeId: "7b6b6b6b-3333-4444-8555-777777777778" });
    if (E.isLeft(sw)) throw new Error(sw.left._tag);
    nodeId = sw.right.nodeId;
    if (withNio) await addNio();
  };
  const addNio = async (): Promise<void> => {
    const nio = await netemu.useCases.addNio.execute({ port: { projectId: PROJECT, nodeId, adapterNumber: 0, portNumber: 1 }, nio: { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001 } });
    if (E.isLeft(nio)) throw new Error(nio.left._tag);
  };
  const live = () => dataPlane.attached.get(`${nodeId}/1`);
  const set = (input: Record<string, unknown>) => netemu.useCases.setImpairment.execute({ ...at, ...input });
  const listed = async () => {
    const l = await netemu.useCases.listImpairments.execute();
    if (E.isLeft(l)) throw new Error("refused");
    return l.right;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "netemu-schedule-unit-"));
    clock = new FakeClock();
    await build();
  });
  afterEach(async () => {
    await netemu.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("flaps a port down for 2 s every 10 s: the data plane is told each window's start and end, through the same sync", async () => {
    expect((await set({ scheduleOut: FLAP }))._tag).to.equal("Right");
    expect(live()).to.deep.include({ filtersOut: DOWN });
    await clock.advance(1_999);
    expect(live()).to.deep.include({ filtersOut: DOWN });
    await clock.advance(1);
    expect(live()).to.not.have.property("filtersOut");
    await clock.advance(7_999);
    expect(live()).to.not.have.property("filtersOut");
    await clock.advance(1);
    expect(live()).to.deep.include({ filtersOut: DOWN });
    await clock.advance(2_000);
    expect(live()).to.not.have.property("filtersOut");
  });

  it("answers the schedule as set, the active step and when the next begins", async () => {
    const answer = await set({ scheduleIn: STEPS });
    expect(E.isRight(answer) && answer.right.stateIn).to.deep.include({ step: 0, filters: { delay: [20] }, startedAtMs: clock.nowMs(), nextAtMs: clock.nowMs() + 30_000, nextInMs: 30_000 });
    await clock.advance(31_000);
    const [one] = await listed();
    expect(one?.stateIn).to.deep.include({ step: 1, filters: { packet_loss: [5] }, nextAtMs: undefined, nextInMs: undefined });
    expect(one?.scheduleIn?.schedule.steps).to.have.length(2);
    expect(live()).to.deep.include({ filtersIn: { packet_loss: [5] } });
  });

  it("stops its alarm once a schedule played once has reached its last step", async () => {
    await set({ scheduleIn: STEPS });
    expect(clock.waiting).to.equal(1);
    await clock.advance(30_000);
    expect(clock.waiting).to.equal(0);
  });

  it("keeps each direction to itself: a schedule out leaves the fixed filters in, and fixed filters out end the schedule", async () => {
    await set({ in: { delay: [5] }, scheduleOut: FLAP });
    expect(live()).to.deep.include({ filtersIn: { delay: [5] }, filtersOut: DOWN });
    await set({ out: { delay: [7] } });
    const [one] = await listed();
    expect(one?.scheduleOut).to.equal(undefined);
    expect(clock.waiting).to.equal(0);
    expect(live()).to.deep.include({ filtersIn: { delay: [5] }, filtersOut: { delay: [7] } });
  });

  it("clears a schedule with its port's impairments, and rings no more", async () => {
    await set({ scheduleOut: FLAP });
    expect((await netemu.useCases.clearImpairments.execute({ project: "lab" }))._tag).to.equal("Right");
    await clock.advance(20_000);
    expect(live()).to.not.have.property("filtersOut");
  });

  it("forgets a deleted node's alarms", async () => {
    await set({ scheduleOut: FLAP });
    expect((await netemu.useCases.deleteComputeNode.execute({ projectId: PROJECT, nodeId }))._tag).to.equal("Right");
    expect(clock.waiting).to.equal(0);
    expect(netemu.container.resolve(ScheduleClockwork).liveSteps()).to.deep.equal([]);
  });

  it("waits at step 0 for the port's first frame when it starts at the first frame, then counts from it", async () => {
    await set({ scheduleOut: { ...STEPS, start: "first_frame" } });
    await clock.advance(60_000);
    let [one] = await listed();
    expect(one?.stateOut).to.deep.include({ step: 0, startedAtMs: undefined, nextAtMs: undefined });
    expect(live()).to.deep.include({ filtersOut: { delay: [20] } });
    dataPlane.framesIn = 1;
    await clock.advance(50);
    const started = clock.nowMs();
    [one] = await listed();
    expect(one?.stateOut).to.deep.include({ step: 0, startedAtMs: started, nextAtMs: started + 30_000 });
    await clock.advance(30_000);
    expect(live()).to.deep.include({ filtersOut: { packet_loss: [5] } });
  });

  it("shows each live scheduled direction's step for the metrics", async () => {
    await set({ scheduleOut: FLAP, scheduleIn: STEPS });
    await clock.advance(3_000);
    const steps = netemu.container.resolve(ScheduleClockwork).liveSteps();
    expect(steps.map((s) => [s.nodeName, s.portName, s.direction, s.step])).to.have.deep.members([["Switch1", "Ethernet1", "in", 0], ["Switch1", "Ethernet1", "out", 2]]);
  });

  it("after a restart, a schedule started when set goes on where time has brought it (time continues)", async () => {
    await set({ scheduleIn: { ...STEPS, period: 60 } });
    await clock.advance(45_000);
    await build(store, false);
    await clock.advance(20_000); // 65 s after it was set: 5 s into its second period
    await addNio();
    expect(live()).to.deep.include({ filtersIn: { delay: [20] } });
    const [one] = await listed();
    expect(one?.stateIn).to.deep.include({ step: 0, nextInMs: 25_000 });
    await clock.advance(25_000);
    expect(live()).to.deep.include({ filtersIn: { packet_loss: [5] } });
  });

  describe("refuses, changing nothing", () => {
    it("a direction given both fixed filters and a schedule", async () => {
      const r = await set({ out: { delay: [1] }, scheduleOut: FLAP });
      expect(E.isLeft(r) && r.left).to.deep.include({ _tag: "InvalidConfiguration", field: "schedule_out", rule: { rule: "exclusive_with", other: "filters_out" } });
      expect(await listed()).to.deep.equal([]);
    });

    it("a schedule that breaks a rule, naming its field", async () => {
      await set({ in: { delay: [3] } });
      const r = await set({ scheduleIn: { steps: [{ at: 0 }, { at: 10 }, { at: 5 }] } });
      expect(E.isLeft(r) && r.left).to.deep.include({ _tag: "InvalidConfiguration", field: "schedule_in.steps[2].at" });
      expect(live()).to.deep.include({ filtersIn: { delay: [3] } });
      expect((await listed())[0]?.scheduleIn).to.equal(undefined);
    });

    it("a step whose expression does not compile", async () => {
      const r = await set({ scheduleOut: { steps: [{ at: 0 }, { at: 1, filters: { bpf: ["not a ((filter"] } }] } });
      expect(E.isLeft(r) && r.left).to.deep.include({ _tag: "InvalidFilterSettings", field: "schedule_out.steps[1].filters" });
      expect(await listed()).to.deep.equal([]);
      expect(clock.waiting).to.equal(0);
    });
  });
});
