import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { describeLabFileInvalid, parseLab } from "../../../../src/application/labs/parse-lab.js";
import { renderLab } from "../../../../src/application/labs/render-lab.js";
import { planDeploy } from "../../../../src/application/labs/plan-deploy.js";
import type { Lab } from "../../../../src/application/labs/lab.js";
import { activeStep } from "../../../../src/domain/filters/schedule.js";

const lines = (...l: string[]): string => `${l.join("\n")}\n`;
const lab = (...link: string[]): string => lines("name: lab", "nodes:", "  sw1: {kind: ethernet_switch}", "  sw2: {kind: ethernet_switch}", "links:", "  - endpoints: [sw1:e0, sw2:e0]", ...link);

function ok(text: string): Lab {
  const r = parseLab(text, "lab.yml");
  if (E.isLeft(r)) throw new Error(describeLabFileInvalid(r.left));
  return r.right;
}
function refusal(text: string): string {
  const r = parseLab(text, "lab.yml");
  if (E.isRight(r)) throw new Error("the lab was taken");
  return describeLabFileInvalid(r.left);
}

describe("lab files: schedules on a link's directions (ADR 0102)", () => {
  it("reads a flap on a_to_b, with a filter's bare value as lab files allow", () => {
    const l = ok(lab("    a_to_b_schedule:", "      period: 10", "      windows:", "        - {at: 0, for: 2, filters: {frequency_drop: -1}}"));
    const s = l.links[0]?.aToBSchedule;
    expect(s === undefined ? undefined : activeStep(s, 1_000)).to.deep.include({ filters: { frequency_drop: [-1] }, nextInMs: 1_000 });
    expect(l.links[0]?.bToASchedule).to.equal(undefined);
  });

  it("reads steps on b_to_a that start at the first frame", () => {
    const l = ok(lab("    b_to_a_schedule: {start: first_frame, steps: [{at: 0, filters: {delay: 20}}, {at: 30, filters: {delay: 200}}]}"));
    expect(l.links[0]?.bToASchedule?.start).to.equal("first_frame");
    expect(l.links[0]?.bToASchedule?.steps.map((x) => x.atMs)).to.deep.equal([0, 30_000]);
  });

  it("writes a schedule back as it was given (lab save), and reads it again as the same lab", () => {
    const l = ok(lab("    a_to_b_schedule:", "      period: 10", "      windows:", "        - {at: 0, for: 2, filters: {frequency_drop: -1}}"));
    const again = ok(renderLab(l));
    expect(planDeploy(again, { projectId: "p", lab: l, linkIds: ["l0"], notStarted: [] }, { reconfigure: true })).to.deep.equal(E.right([]));
  });

  it("plans to update a link whose schedule changed, and leaves one that did not alone", () => {
    const before = ok(lab("    a_to_b_schedule: {period: 10, windows: [{at: 0, for: 2}]}"));
    const after = ok(lab("    a_to_b_schedule: {period: 10, windows: [{at: 0, for: 3}]}"));
    const plan = planDeploy(after, { projectId: "p", lab: before, linkIds: ["l0"], notStarted: [] }, { reconfigure: true });
    expect(E.isRight(plan) && plan.right.map((s) => s.op)).to.include("updateLink");
  });

  describe("refuses, at the line and field of what is wrong", () => {
    const cases: [string, string[], RegExp][] = [
      ["steps out of order", ["    a_to_b_schedule: {steps: [{at: 0}, {at: 10}, {at: 5}]}"], /lab\.yml:7:\d+: links\[0\]\.a_to_b_schedule\.steps\[2\]\.at: 5 is not after steps\[1\]\.at/],
      ["a first step after 0", ["    a_to_b_schedule: {steps: [{at: 3}]}"], /steps\[0\]\.at: the first step must be at 0 seconds/],
      ["a window past the period", ["    b_to_a_schedule: {period: 10, windows: [{at: 9, for: 2}]}"], /links\[0\]\.b_to_a_schedule\.windows\[0\]: does not fit inside the period of 10 seconds/],
      ["overlapping windows", ["    b_to_a_schedule: {period: 10, windows: [{at: 1, for: 3}, {at: 2, for: 1}]}"], /windows\[1\]\.at: begins before windows\[0\] ends/],
      ["windows without a period", ["    a_to_b_schedule: {windows: [{for: 1}]}"], /a_to_b_schedule\.period: is required/],
      ["a negative time", ["    a_to_b_schedule: {steps: [{at: -1}]}"], /steps\[0\]\.at: -1 is below the minimum of 0/],
      ["a direction with fixed filters and a schedule", ["    a_to_b: {delay: 5}", "    a_to_b_schedule: {steps: [{at: 0}]}"], /give a_to_b or a_to_b_schedule, not both/],
      ["a step's filter out of range", ["    a_to_b_schedule: {steps: [{at: 0, filters: {packet_loss: 101}}]}"], /a_to_b_schedule\.steps\[0\]\.filters\.packet_loss/],
      ["an unknown field", ["    a_to_b_schedule: {steps: [{at: 0}], every: 3}"], /a_to_b_schedule/],
    ];
    for (const [what, link, message] of cases) {
      it(what, () => {
        expect(refusal(lab(...link))).to.match(message);
      });
    }
  });
});
