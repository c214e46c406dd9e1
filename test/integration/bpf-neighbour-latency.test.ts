import { expect } from "chai";
import type { DataPlane } from "../../src/application/ports/data-plane.js";
import { BpfNeighbours, type NeighbourWindow } from "../support/bpf-neighbour.js";
import { biggestBpfFilter } from "../support/biggest-bpf-filter.js";
import { testSwitchDataPlane, testWorkerDataPlane } from "../support/live-data-planes.js";

/** More than one thread forwards through the biggest filter, even once V8 has optimised it (~50,000 frames/s). */
const FLOOD_RATE = 100_000;
/**
 * The stated bound: the bystander's p99 beside the biggest filter stays under twice its p99 beside the
 * same flood without the filter, plus 50 ms, and every one of its frames arrives. The budget bounds
 * the wait at about 2 ms per busy port plus one frame's work (ADR 0075); the rest is room for a loaded
 * 2-core machine, where the same window without the filter already shows p99s of 10 to 100 ms. Before
 * the budget this test measured p50 1.5 to 2 s, p99 2.6 to 3.5 s, and 40 % of the bystander's frames
 * later than 1 s (docs/benchmarks.md).
 */
const bound = (withoutP99Ms: number): number => 2 * withoutP99Ms + 50;

const planes: { name: string; make: () => { dp: Pick<DataPlane, "sync" | "counters">; close: () => Promise<void> } }[] = [
  {
    name: "in a worker thread they share",
    make: () => {
      const dp = testWorkerDataPlane({ workers: 1 });
      return { dp, close: () => dp.close() };
    },
  },
  {
    name: "on the main thread",
    make: () => {
      const dp = testSwitchDataPlane();
      return { dp, close: () => dp.close() };
    },
  },
];

describe("one filter cannot starve its neighbours: a bystander switch beside a switch flooded through the biggest bpf filter allowed (issue 25)", function () {
  this.timeout(90_000);

  for (const plane of planes) {
    it(`keeps its latency and loses nothing, ${plane.name} (${process.env["NETEMU_UDP_PATH"] === "dgram" ? "node:dgram" : "batched datagrams"})`, async () => {
      const { dp, close } = plane.make();
      let rig: BpfNeighbours | undefined;
      try {
        rig = await BpfNeighbours.start(dp, FLOOD_RATE);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const without: NeighbourWindow = await rig.measure(2000);
        await rig.filter(biggestBpfFilter());
        // The program's first frames run before V8 optimises it: measured too, after a short settle.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const beside: NeighbourWindow = await rig.measure(3000);
        const said = JSON.stringify({ without, beside });
        expect(without.bystander.received, said).to.equal(without.bystander.sent);
        expect(beside.bystander.received, `every bystander frame arrived within 1 s: ${said}`).to.equal(beside.bystander.sent);
        expect(beside.bystander.p99Ms, `p99 beside the biggest filter within 2 × p99 without it + 50 ms: ${said}`).to.be.at.most(bound(without.bystander.p99Ms));
        // Not a vacuous pass: the flood reached the filtered port meanwhile.
        expect(beside.flooded.inPerSecond, `the flood reached the filtered port: ${said}`).to.be.greaterThan(100);
      } finally {
        await rig?.close();
        await close();
      }
    });
  }
});
