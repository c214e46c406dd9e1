import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { describeLabFileInvalid, parseLab } from "../../../../src/application/labs/parse-lab.js";
import { renderLab } from "../../../../src/application/labs/render-lab.js";
import { tracesNamedBy, withSavedTraces } from "../../../../src/application/labs/lab-traces.js";
import type { Lab } from "../../../../src/application/labs/lab.js";

const lines = (...l: string[]): string => `${l.join("\n")}\n`;
const lab = (...link: string[]): string =>
  lines("name: lab", "nodes:", "  sw1: {kind: ethernet_switch}", "  sw2: {kind: ethernet_switch}", "links:", "  - endpoints: [sw1:e0, sw2:e0]", ...link, "  - endpoints: [sw1:e1, sw2:e1]", "    b_to_a: {loss_trace: z.loss}");

function ok(text: string): Lab {
  const r = parseLab(text, "lab.yml");
  if (E.isLeft(r)) throw new Error(describeLabFileInvalid(r.left));
  return r.right;
}

describe("lab files: the traces a lab names, as lab save ships them (issue 29)", () => {
  it("finds each trace once, sorted, in link filters, direction filters, step schedules and a windows schedule's windows and base", () => {
    const l = ok(
      lab(
        "    filters: {delay_trace: wobble}",
        "    a_to_b_schedule: {steps: [{at: 0, filters: {capacity_trace: lte.down}}, {at: 5, filters: {delay_trace: wobble}}]}",
        "    b_to_a_schedule: {period: 10, base: {loss_trace: base.loss}, windows: [{at: 0, for: 2, filters: {capacity_trace: [flap.cap, 50]}}]}",
      ),
    );
    expect(tracesNamedBy(l)).to.deep.equal(["base.loss", "flap.cap", "lte.down", "wobble", "z.loss"]);
  });

  it("names no trace for a lab without any, and leaves such a lab as it is", () => {
    const l = ok(lines("name: lab", "nodes:", "  sw1: {kind: ethernet_switch}"));
    expect(tracesNamedBy(l)).to.deep.equal([]);
    expect(withSavedTraces(l, [])).to.equal(l);
  });

  it("writes a traces: section at traces/<name> before the links, which reads back as the same lab", () => {
    const l = ok(lab("    a_to_b: {capacity_trace: [lte.down, 300]}"));
    const text = renderLab(withSavedTraces(l, tracesNamedBy(l)));
    expect(text).to.include("traces:\n  lte.down: traces/lte.down\n  z.loss: traces/z.loss\nlinks:\n");
    expect(ok(text)).to.deep.equal({ ...l, traces: { "lte.down": "traces/lte.down", "z.loss": "traces/z.loss" } });
  });
});
