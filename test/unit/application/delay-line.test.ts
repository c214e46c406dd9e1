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

describe("delay line, sub-millisecond delays (ADR 0101)", () => {
  it("holds a precise 0.5 ms frame by turns of the event loop, and hands it on at the first turn at or after its departure", () => {
    const time = new ManualTime(1000);
    const out: number[] = [];
    const line = new DelayLine(time, time, () => void out.push(time.now));
    line.push(frame(1), 0.5, true);
    // No timer: Node's would wait a whole ms.
    expect(time.timersWaiting).to.equal(0);
    let turns = 0;
    while (out.length === 0 && turns < 100) {
      time.now += 0.03; // one turn of an idle event loop, about 30 µs
      time.runOneDeferred();
      turns++;
    }
    expect(out).to.have.length(1);
    expect((out[0] as number) - 1000).to.be.within(0.5, 0.53 + 1e-9);
  });

  it("waits with a timer until a ms before a longer precise departure, then by turns: 10.25 ms is held 10.25 ms to a turn", () => {
    const time = new ManualTime(1000);
    const out: number[] = [];
    const line = new DelayLine(time, time, () => void out.push(time.now));
    line.push(frame(1), 10.25, true);
    expect(time.timersWaiting).to.equal(1);
    expect(time.deferredWaiting).to.equal(0);
    time.advanceTo(1000 + 9.25); // the timer for departure − 1 ms fires; from there, turns
    expect(out).to.have.length(0);
    expect(time.deferredWaiting).to.equal(1);
    for (let turns = 0; out.length === 0 && turns < 200; turns++) {
      time.now += 0.02;
      time.runOneDeferred();
    }
    expect((out[0] as number) - 1000).to.be.within(10.25, 10.27 + 1e-9);
  });

  it("keeps the timer's whole ms for a delay that is not precise: 0.5 ms is a 1 ms timer, as before", () => {
    const time = new ManualTime(1000);
    const out: number[] = [];
    const line = new DelayLine(time, time, () => void out.push(time.now));
    line.push(frame(1), 0.5);
    expect(time.deferredWaiting).to.equal(0);
    expect(time.timersWaiting).to.equal(1);
    time.advanceTo(1002);
    expect(out).to.deep.equal([1001]);
  });

  it("never hands a precise frame on early, and stops spinning under a clock that does not move (waits for a timer instead)", () => {
    const time = new ManualTime(1000);
    const out: number[] = [];
    const line = new DelayLine(time, time, () => void out.push(time.now));
    line.push(frame(1), 0.25, true);
    time.runOneDeferred(); // the clock has not moved: no second turn is asked for
    expect(time.deferredWaiting).to.equal(0);
    expect(time.timersWaiting).to.equal(1);
    expect(out).to.have.length(0);
    time.advanceTo(1002);
    expect(out).to.have.length(1);
    expect((out[0] as number) - 1000).to.be.at.least(0.25);
  });

  it("hands its precise mode over with its frames, and a closed spinning line delivers nothing", () => {
    const time = new ManualTime(1000);
    const line = new DelayLine(time, time, () => undefined);
    line.push(frame(1), 0.5, true);
    const held = line.handOver();
    expect(held.precise).to.equal(true);
    expect(time.runOneDeferred()).to.equal(true); // the old line's turn runs, and does nothing
    const out: number[] = [];
    const next = new DelayLine(time, time, () => void out.push(time.now));
    expect(next.takeUp(held)).to.deep.equal([]);
    expect(time.timersWaiting).to.equal(0); // it spins at once, as the line it replaces did
    time.now += 0.6;
    time.runOneDeferred();
    expect(out).to.deep.equal([1000.6]);
  });
});
