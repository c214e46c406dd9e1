import { expect } from "chai";
import { frameRates, idleAsBefore } from "../../../src/adapters/threads/data-plane/protocol.js";

describe("a data-plane worker's report of its nodes' frame rates", () => {
  it("gives each node the frames it took in and sent out per second since the previous reading", () => {
    const rates = frameRates(new Map([["a", 100], ["b", 0]]), new Map([["a", 600], ["b", 0]]), 0.5);
    expect(rates).to.deep.equal([
      { nodeId: "a", framesPerSecond: 1000 },
      { nodeId: "b", framesPerSecond: 0 },
    ]);
  });

  it("counts a node that appeared since the previous reading from zero, and leaves out one that went", () => {
    expect(frameRates(new Map([["gone", 50]]), new Map([["new", 30]]), 1)).to.deep.equal([{ nodeId: "new", framesPerSecond: 30 }]);
  });

  it("never reports a negative rate when a node's counters started again (its ports were re-attached)", () => {
    expect(frameRates(new Map([["a", 900]]), new Map([["a", 40]]), 2)).to.deep.equal([{ nodeId: "a", framesPerSecond: 20 }]);
  });

  it("reports nothing over an interval that is not a positive time", () => {
    expect(frameRates(new Map(), new Map([["a", 10]]), 0)).to.deep.equal([]);
    expect(frameRates(new Map(), new Map([["a", 10]]), Number.NaN)).to.deep.equal([]);
  });
});

describe("a data-plane worker's load report left unsent (ADR 0113)", () => {
  const idle = (...ids: string[]) => ids.map((nodeId) => ({ nodeId, framesPerSecond: 0 }));

  it("is one where every node is idle, as the same nodes were in the report sent before it", () => {
    expect(idleAsBefore(idle("a", "b"), idle("a", "b"))).to.equal(true);
    expect(idleAsBefore([], [])).to.equal(true);
  });

  it("is never the first report", () => {
    expect(idleAsBefore(undefined, idle("a"))).to.equal(false);
  });

  it("is not one where a node forwards frames, or the first idle one after frames moved", () => {
    expect(idleAsBefore(idle("a"), [{ nodeId: "a", framesPerSecond: 3 }])).to.equal(false);
    expect(idleAsBefore([{ nodeId: "a", framesPerSecond: 3 }], idle("a"))).to.equal(false);
  });

  it("is not one where a node came or went since the report before", () => {
    expect(idleAsBefore(idle("a"), idle("a", "b"))).to.equal(false);
    expect(idleAsBefore(idle("a", "b"), idle("a"))).to.equal(false);
    expect(idleAsBefore(idle("a"), idle("b"))).to.equal(false);
  });
});
