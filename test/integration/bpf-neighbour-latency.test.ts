import { expect } from "chai";
import { WorkerDataPlane } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { InlineBpfCompiler } from "../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { PcapFileSink } from "../../src/adapters/capture/pcap-file-sink.js";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import { NodeTimers, SeededRandomFactory } from "../../src/adapters/system/node-timers.js";
import { chooseUdpTransport } from "../../src/adapters/transport/batched-udp-transport.js";
import { SwitchDataPlane } from "../../src/application/dataplane/switch-data-plane.js";
import { FilterPrograms } from "../../src/application/filter-programs.js";
import { NotificationHub } from "../../src/application/notification-hub.js";
import type { DataPlane } from "../../src/application/ports/data-plane.js";
import { BpfNeighbours, type NeighbourWindow } from "../support/bpf-neighbour.js";
import { biggestBpfFilter } from "../support/biggest-bpf-filter.js";
import { RecordingLogger, TEST_DATA_PLANE_OPTIONS } from "../support/in-memory-data-plane.js";

const TRANSPORT = { bindHost: "127.0.0.1", receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20 };
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
      const dp = new WorkerDataPlane({ workers: 1, dataPlane: TEST_DATA_PLANE_OPTIONS, transport: TRANSPORT, notifications: new NotificationHub(), logger: new RecordingLogger(), programs: new FilterPrograms(new InlineBpfCompiler()) });
      return { dp, close: () => dp.close() };
    },
  },
  {
    name: "on the main thread",
    make: () => {
      const dp = new SwitchDataPlane(chooseUdpTransport(TRANSPORT).transport, new PcapFileSink(), new SystemClock(), new NodeTimers(), new SeededRandomFactory(), new FilterPrograms(new InlineBpfCompiler()), new RecordingLogger(), TEST_DATA_PLANE_OPTIONS, new NotificationHub());
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
