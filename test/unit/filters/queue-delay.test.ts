import { expect } from "chai";
import { FilterChain } from "../../../src/domain/filters/filter-chain.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { QUEUE_DELAY_WINDOW_MS, QueueDelayRecord } from "../../../src/domain/filters/queue-delay.js";
import { SeededRandom } from "../../../src/domain/filters/random.js";
import { PortCounters } from "../../../src/domain/switching/port-counters.js";

const frameOf = (bytes: number): Uint8Array => new Uint8Array(bytes);
const chain = (settings: FilterSettings): FilterChain => new FilterChain({ settings, suspend: false, random: new SeededRandom(7) });

describe("the queue delay of a direction: how long frames wait before their transmission starts (ADR 0097)", () => {
  describe("QueueDelayRecord", () => {
    it("sums and counts every wait, so that two readings give the mean between them", () => {
      const r = new QueueDelayRecord();
      for (const wait of [0, 10, 20]) r.record(wait, 5_000);
      const first = r.reading(5_000);
      for (const wait of [40, 60]) r.record(wait, 6_200);
      const second = r.reading(6_200);
      expect(first).to.deep.include({ sumMs: 30, frames: 3 });
      expect(second).to.deep.include({ sumMs: 130, frames: 5 });
      expect((second.sumMs - first.sumMs) / (second.frames - first.frames), "the mean between the readings").to.equal(50);
    });

    it("gives the largest wait of the current second and the one before, and forgets it after", () => {
      const r = new QueueDelayRecord();
      const t = 10 * QUEUE_DELAY_WINDOW_MS;
      r.record(80, t + 100);
      r.record(30, t + 900);
      expect(r.reading(t + 950).maxMs).to.equal(80);
      r.record(20, t + QUEUE_DELAY_WINDOW_MS + 10);
      expect(r.reading(t + QUEUE_DELAY_WINDOW_MS + 20).maxMs, "the second before still counts").to.equal(80);
      expect(r.reading(t + 2 * QUEUE_DELAY_WINDOW_MS + 20).maxMs, "two seconds on: only the last second's").to.equal(20);
      expect(r.reading(t + 3 * QUEUE_DELAY_WINDOW_MS + 20).maxMs, "nothing queued for over a second").to.equal(0);
      expect(r.reading(t + 3 * QUEUE_DELAY_WINDOW_MS + 20)).to.deep.include({ sumMs: 130, frames: 3 });
    });

    it("does not carry a maximum over seconds without frames", () => {
      const r = new QueueDelayRecord();
      r.record(90, 1_000);
      r.record(5, 4_000);
      expect(r.reading(4_001).maxMs).to.equal(5);
    });

    it("reads nothing before any frame waited", () => {
      expect(new QueueDelayRecord().reading(123_456)).to.deep.equal({ sumMs: 0, frames: 0, maxMs: 0 });
    });

    it("goes on from its state on another thread, and ignores a state that is not one", () => {
      const r = new QueueDelayRecord();
      r.record(70, 3_500);
      const moved = new QueueDelayRecord();
      moved.resume(structuredClone(r.state()));
      expect(moved.reading(3_600)).to.deep.equal({ sumMs: 70, frames: 1, maxMs: 70 });
      const fresh = new QueueDelayRecord();
      fresh.resume({ sumMs: -1, frames: 1, second: 3, maxMs: 1, previousMaxMs: 0 });
      fresh.resume({ sumMs: 1, frames: 0.5, second: 3, maxMs: 1, previousMaxMs: 0 });
      fresh.resume(undefined);
      expect(fresh.reading(3_600)).to.deep.equal({ sumMs: 0, frames: 0, maxMs: 0 });
    });
  });

  describe("the bandwidth stage reports each frame's wait", () => {
    it("gives a frame's wait before its transmission starts, not its transmission time", () => {
      // 1000-byte frames at 8,000 kbit/s take 1 ms each: the nth back-to-back frame waits n − 1 ms.
      const c = chain({ bandwidth: [8000, 5] });
      const waits = Array.from({ length: 4 }, () => c.process(frameOf(1000), "egress", 100).queueWaitMs);
      expect(waits).to.deep.equal([0, 1, 2, 3]);
      expect(c.process(frameOf(1000), "egress", 100).delayMs, "the hold still counts the transmission").to.equal(5);
    });

    it("reports no queue without bandwidth, and none for a frame the full queue dropped", () => {
      expect(chain({ delay: [40] }).process(frameOf(1000), "egress", 0).queueWaitMs).to.equal(-1);
      const c = chain({ bandwidth: [8000, 1] });
      c.process(frameOf(1000), "egress", 0);
      c.process(frameOf(1000), "egress", 0);
      const dropped = c.process(frameOf(1000), "egress", 0);
      expect(dropped).to.deep.include({ drop: "bandwidth", queueWaitMs: -1 });
    });

    it("reports the copy's wait behind the original when duplicate sends one", () => {
      const o = chain({ bandwidth: [8000, 50], duplicate: [100] }).process(frameOf(1000), "egress", 0);
      expect([o.copies, o.queueWaitMs, o.copyQueueWaitMs]).to.deep.equal([2, 0, 1]);
    });
  });

  describe("a port's counters", () => {
    it("keep each direction's record, carry it in their snapshot to another thread, and reset it", () => {
      const c = new PortCounters();
      c.ingressQueue.record(12, 2_000);
      c.egressQueue.record(40, 2_000);
      const moved = new PortCounters();
      moved.resume(structuredClone(c.snapshot()));
      expect(moved.queueDelay(2_100)).to.deep.equal({ ingress: { sumMs: 12, frames: 1, maxMs: 12 }, egress: { sumMs: 40, frames: 1, maxMs: 40 } });
      moved.reset();
      expect(moved.queueDelay(2_100).egress).to.deep.equal({ sumMs: 0, frames: 0, maxMs: 0 });
    });
  });
});
