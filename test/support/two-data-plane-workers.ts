import { FilterPrograms } from "../../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../../src/adapters/inline-bpf-compiler.js";
import { WorkerDataPlane } from "../../src/adapters/data-plane-workers.js";
import { NotificationHub } from "../../src/application/notification-hub.js";
import { RecordingLogger, TEST_DATA_PLANE_OPTIONS } from "./in-memory-data-plane.js";

/** A data plane in 2 real worker threads on 127.0.0.1, as the placement and move tests use it (ADR 0069). */
export function twoDataPlaneWorkers(o: { logger?: RecordingLogger; loadIntervalMs: number }): WorkerDataPlane {
  return new WorkerDataPlane({
    workers: 2,
    dataPlane: TEST_DATA_PLANE_OPTIONS,
    transport: { bindHost: "127.0.0.1", receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20 },
    notifications: new NotificationHub(),
    logger: o.logger ?? new RecordingLogger(),
    programs: new FilterPrograms(new InlineBpfCompiler()),
    loadIntervalMs: o.loadIntervalMs,
  });
}
