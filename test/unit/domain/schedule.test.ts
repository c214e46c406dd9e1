import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { type Schedule, activeStep, parseSchedule, renderSchedule, scheduleEqual } from "../../../src/domain/filters/schedule.js";
import { configurationMessage } from "../../../src/adapters/shared/configuration-messages.js";
import type { InvalidConfiguration } from "../../../src/domain/configuration/invalid-configuration.js";

function schedule(raw: unknown): Schedule {
  const parsed = parseSchedule(raw, "schedule_out");
  if (E.isLeft(parsed)) throw new Error(JSON.stringify(parsed.left));
  return parsed.right;
}

/** The refusal's field and its message, as a 400 words it. */
function refusal(raw: unknown): { field: string; message: string } {
  const parsed = parseSchedule(raw, "schedule_out");
  if (E.isRight(parsed)) throw new Error("accepted");
  const left = parsed.left;
  if (left._tag !== "InvalidConfiguration") return { field: left.field ?? "filters", message: JSON.stringify(left.problem) };
  return { field: left.field, message: configurationMessage(left as InvalidConfiguration) };
}

const STEPS = { steps: [{ at: 0, filters: { delay: [20] } }, { at: 30, filters: { packet_loss: [5] } }, { at: 45.5, filters: {} }] };
const FLAP = { period: 10, windows: [{ at: 0, for: 2, filters: { frequency_drop: [-1] } }] };

describe("a schedule of a link end's impairments", () => {
  describe("steps played once", () => {
    it("runs the step whose time has come and says when the next begins", () => {
      const s = schedule(STEPS);
      expect(activeStep(s, 0)).to.deep.equal({ step: 0, filters: { delay: [20] }, nextInMs: 30_000 });
      expect(activeStep(s, 29_999)).to.include({ step: 0, nextInMs: 1 });
      expect(activeStep(s, 30_000)).to.include({ step: 1, nextInMs: 15_500 });
      expect(activeStep(s, 45_500)).to.deep.equal({ step: 2, filters: {}, nextInMs: undefined });
    });

    it("stays at its last step for ever", () => {
      expect(activeStep(schedule(STEPS), 10 * 86_400_000)).to.include({ step: 2, nextInMs: undefined });
    });

    it("runs its first step before its start (a time before 0 is the start)", () => {
      expect(activeStep(schedule(STEPS), -5_000)).to.include({ step: 0, nextInMs: 30_000 });
    });
  });

  describe("steps looping every period", () => {
    it("begins again at step 0 when the period ends", () => {
      const s = schedule({ ...STEPS, period: 60 });
      expect(activeStep(s, 59_000)).to.include({ step: 2, nextInMs: 1_000 });
      expect(activeStep(s, 60_000)).to.include({ step: 0, nextInMs: 30_000 });
      expect(activeStep(s, 3 * 60_000 + 31_000)).to.include({ step: 1, nextInMs: 14_500 });
    });
  });

  describe("windows in a period (flaps)", () => {
    it("is down for 2 s every 10 s: the window from 0 to 2 s, the base from 2 s to 10 s, again and again", () => {
      const s = schedule(FLAP);
      expect(s.steps.map((x) => x.atMs)).to.deep.equal([0, 0, 2_000]);
      expect(activeStep(s, 0)).to.deep.equal({ step: 1, filters: { frequency_drop: [-1] }, nextInMs: 2_000 });
      expect(activeStep(s, 2_000)).to.deep.equal({ step: 2, filters: {}, nextInMs: 8_000 });
      expect(activeStep(s, 10_000)).to.include({ step: 1, nextInMs: 2_000 });
      expect(activeStep(s, 71_500)).to.include({ step: 1, nextInMs: 500 });
    });

    it("adds 200 ms of delay for 5 s every 60 s over a base of 20 ms", () => {
      const s = schedule({ period: 60, base: { delay: [20] }, windows: [{ at: 50, for: 5, filters: { delay: [200] } }] });
      expect(activeStep(s, 10_000)).to.deep.equal({ step: 0, filters: { delay: [20] }, nextInMs: 40_000 });
      expect(activeStep(s, 52_000)).to.deep.equal({ step: 1, filters: { delay: [200] }, nextInMs: 3_000 });
      expect(activeStep(s, 55_000)).to.deep.equal({ step: 2, filters: { delay: [20] }, nextInMs: 5_000 });
    });

    it("takes windows back to back, and one ending with the period", () => {
      const s = schedule({ period: 4, windows: [{ at: 1, for: 1, filters: { delay: [1] } }, { at: 2, for: 2, filters: { delay: [2] } }] });
      expect(s.steps.map((x) => [x.atMs, x.filters.delay?.[0]])).to.deep.equal([[0, undefined], [1_000, 1], [2_000, 2]]);
      expect(activeStep(s, 3_999)).to.include({ step: 2, nextInMs: 1 });
    });

    it("played once, leaves the base running after the period", () => {
      const s = schedule({ ...FLAP, once: true });
      expect(activeStep(s, 1_000)).to.include({ step: 1, nextInMs: 1_000 });
      expect(activeStep(s, 5_000)).to.include({ step: 2, nextInMs: 5_000 });
      expect(activeStep(s, 10_000)).to.deep.equal({ step: 0, filters: {}, nextInMs: undefined });
    });
  });

  it("starts at the time it is set unless it waits for the first frame", () => {
    expect(schedule(STEPS).start).to.equal("set");
    expect(schedule({ ...STEPS, start: "first_frame" }).start).to.equal("first_frame");
  });

  it("renders as it was given, and parses back to the same value", () => {
    for (const raw of [STEPS, { ...STEPS, period: 60, start: "first_frame" }, FLAP, { ...FLAP, once: true, base: { delay: [5] } }]) {
      const s = schedule(raw);
      expect(scheduleEqual(schedule(renderSchedule(s)), s)).to.equal(true);
    }
    expect(renderSchedule(schedule(FLAP))).to.deep.equal({ start: "set", period: 10, windows: [{ at: 0, for: 2, filters: { frequency_drop: [-1] } }], base: {} });
  });

  it("tells two schedules apart by value", () => {
    expect(scheduleEqual(schedule(STEPS), schedule(STEPS))).to.equal(true);
    expect(scheduleEqual(schedule(STEPS), schedule({ ...STEPS, period: 60 }))).to.equal(false);
    expect(scheduleEqual(schedule(FLAP), schedule({ ...FLAP, windows: [{ at: 0, for: 3, filters: { frequency_drop: [-1] } }] }))).to.equal(false);
    expect(scheduleEqual(undefined, schedule(FLAP))).to.equal(false);
  });

  describe("refuses, naming the field and what is wrong", () => {
    const cases: [string, unknown, string, RegExp][] = [
      ["a schedule that is not an object", [1], "schedule_out", /not of type 'object'/],
      ["an unknown field", { ...STEPS, every: 3 }, "schedule_out.every", /not a field here/],
      ["neither steps nor windows", { period: 3 }, "schedule_out.steps", /is required/],
      ["steps and windows together", { ...STEPS, ...FLAP }, "schedule_out.windows", /cannot be given together with schedule_out.steps/],
      ["no steps", { steps: [] }, "schedule_out.steps", /is empty/],
      ["a step that is not an object", { steps: [3] }, "schedule_out.steps[0]", /not of type 'object'/],
      ["a step without a time", { steps: [{ filters: {} }] }, "schedule_out.steps[0].at", /is required/],
      ["a first step after 0", { steps: [{ at: 1 }] }, "schedule_out.steps[0].at", /first step must be at 0/],
      ["a negative time", { steps: [{ at: 0 }, { at: -1 }] }, "schedule_out.steps[1].at", /less than the minimum of 0/],
      ["a time that is not a number", { steps: [{ at: "0" }] }, "schedule_out.steps[0].at", /not of type 'number'/],
      ["a time that is not finite", { steps: [{ at: 0 }, { at: Number.POSITIVE_INFINITY }] }, "schedule_out.steps[1].at", /not of type 'number'/],
      ["a time beyond the bound", { steps: [{ at: 0 }, { at: 2e9 }] }, "schedule_out.steps[1].at", /greater than the maximum/],
      ["steps out of order", { steps: [{ at: 0 }, { at: 20 }, { at: 10 }] }, "schedule_out.steps[2].at", /not after schedule_out.steps\[1\].at/],
      ["two steps at the same time", { steps: [{ at: 0 }, { at: 0 }] }, "schedule_out.steps[1].at", /ascending/],
      ["an unknown field in a step", { steps: [{ at: 0, delay: [3] }] }, "schedule_out.steps[0].delay", /not a field here/],
      ["a step beyond a looping period", { steps: [{ at: 0 }, { at: 60 }], period: 60 }, "schedule_out.steps[1].at", /inside the period of 60 seconds/],
      ["a period of 0", { ...STEPS, period: 0 }, "schedule_out.period", /more than 0 seconds/],
      ["a negative period", { ...FLAP, period: -10 }, "schedule_out.period", /more than 0 seconds/],
      ["once with steps", { ...STEPS, once: true }, "schedule_out.once", /only taken with schedule_out.windows/],
      ["base with steps", { ...STEPS, base: {} }, "schedule_out.base", /only taken with schedule_out.windows/],
      ["windows without a period", { windows: FLAP.windows }, "schedule_out.period", /is required/],
      ["a window without a length", { period: 10, windows: [{ at: 1 }] }, "schedule_out.windows[0].for", /is required/],
      ["a window of no length", { period: 10, windows: [{ at: 1, for: 0 }] }, "schedule_out.windows[0].for", /more than 0 seconds/],
      ["a window ending past the period", { period: 10, windows: [{ at: 9, for: 2 }] }, "schedule_out.windows[0]", /inside the period of 10 seconds/],
      ["overlapping windows", { period: 10, windows: [{ at: 1, for: 3 }, { at: 2, for: 1 }] }, "schedule_out.windows[1].at", /begins before schedule_out.windows\[0\] ends/],
      ["a start that is neither", { ...STEPS, start: "deploy" }, "schedule_out.start", /not one of \['set', 'first_frame'\]/],
      ["once that is not a boolean", { ...FLAP, once: "yes" }, "schedule_out.once", /not of type 'boolean'/],
    ];
    for (const [what, raw, field, message] of cases) {
      it(`${what} (${field})`, () => {
        const r = refusal(raw);
        expect(r.field).to.equal(field);
        expect(r.message).to.match(message);
      });
    }

    it("a step's filters the catalogue refuses, at the step's field", () => {
      const parsed = parseSchedule({ steps: [{ at: 0, filters: { delay: [-3] } }] }, "schedule_in");
      expect(E.isLeft(parsed) && parsed.left).to.deep.include({ _tag: "InvalidFilterSettings", field: "schedule_in.steps[0].filters" });
    });

    it("a window's or the base's filters the catalogue refuses, at their field", () => {
      const w = parseSchedule({ period: 5, windows: [{ for: 1, filters: { nope: [1] } }] }, "s");
      expect(E.isLeft(w) && w.left).to.deep.include({ _tag: "InvalidFilterSettings", field: "s.windows[0].filters" });
      const b = parseSchedule({ period: 5, base: 3, windows: [{ for: 1 }] }, "s");
      expect(E.isLeft(b) && b.left).to.deep.include({ _tag: "InvalidFilterSettings", field: "s.base" });
    });
  });
});
