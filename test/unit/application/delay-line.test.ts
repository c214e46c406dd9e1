import { expect } from "chai";
import { DelayLine } from "../../../src/application/dataplane/delay-line.js";
import { ManualTime } from "../../support/in-memory-data-plane.js";

function frame(n: number): Uint8Array {
  return Uint8Array.of(n);
}

describe("delay line", () => {
  it("hands each frame on once its delay is over, with one timer for the whole line", () => {
    const time = new ManualTime(1000);
    const out: [number, number][] = [];
    const line = new DelayLine(time, time, (f) => out.push([f[0]!, time.now]));
    for (let i = 0; i < 100; i++) {
      line.push(frame(i), 50);
      time.advanceTo(time.now + 0.2);
    }
    expect(time.timersWaiting).to.equal(1);
    time.advanceTo(time.now + 100);
    expect(out.map(([n]) => n)).to.deep.equal([...Array(100).keys()]);
    out.forEach(([, at], i) => expect(at - (1000 + i * 0.2)).to.be.within(50, 51 + 1e-9));
    expect(line.pending).to.equal(0);
  });

  it("never hands a frame on before its departure, even when its timer fires early", () => {
    const time = new ManualTime(1000, 0.7);
    const departures: number[] = [];
    const sent: number[] = [];
    const line = new DelayLine(time, time, (f) => void sent.push(time.now - departures[f[0]!]!));
    for (let i = 0; i < 50; i++) {
      departures.push(time.now + 100);
      line.push(frame(i), 100);
      time.advanceTo(time.now + 0.37);
    }
    time.advanceTo(time.now + 200);
    expect(sent).to.have.length(50);
    for (const late of sent) expect(late).to.be.within(0, 1.7);
  });

  it("keeps the order of frames when a later one draws a shorter delay (jitter)", () => {
    const time = new ManualTime(1000);
    const order: number[] = [];
    const line = new DelayLine(time, time, (f) => void order.push(f[0]!));
    line.push(frame(1), 30);
    time.advanceTo(time.now + 1);
    line.push(frame(2), 5);
    time.advanceTo(time.now + 1);
    line.push(frame(3), 20);
    time.advanceTo(time.now + 50);
    expect(order).to.deep.equal([1, 2, 3]);
  });

  it("drops what is still waiting when it is closed, and takes nothing after that", () => {
    const time = new ManualTime(1000);
    const out: number[] = [];
    const line = new DelayLine(time, time, (f) => void out.push(f[0]!));
    line.push(frame(1), 10);
    line.push(frame(2), 10);
    expect(line.close()).to.equal(2);
    expect(time.timersWaiting).to.equal(0);
    line.push(frame(3), 10);
    time.advanceTo(time.now + 100);
    expect(out).to.deep.equal([]);
    expect(line.pending).to.equal(0);
  });

  it("tells of a frame whose delivery threw and still hands on the frames behind it", () => {
    const time = new ManualTime(1000);
    const out: number[] = [];
    const faults: unknown[] = [];
    const line = new DelayLine(
      time,
      time,
      (f) => {
        if (f[0] === 2) throw new Error("socket gone");
        out.push(f[0]!);
      },
      (err) => faults.push(err),
    );
    for (const n of [1, 2, 3]) line.push(frame(n), 10);
    expect(() => time.advanceTo(time.now + 20)).to.not.throw();
    expect(out).to.deep.equal([1, 3]);
    expect(faults.map((e) => (e as Error).message)).to.deep.equal(["socket gone"]);
    expect(line.pending).to.equal(0);
  });
});
