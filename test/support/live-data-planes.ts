import { chooseHostDevices } from "../../src/adapters/transport/host-devices.js";
import { WorkerDataPlane } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { InlineBpfCompiler } from "../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { PcapFileSink } from "../../src/adapters/capture/pcap-file-sink.js";
import { NodeTimers, SeededRandomFactory } from "../../src/adapters/system/node-timers.js";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import { chooseUdpTransport } from "../../src/adapters/transport/batched-udp-transport.js";
import { withInProcessLinks } from "../../src/adapters/transport/datagram-path.js";
import type { UdpTransport } from "../../src/application/ports/udp-transport.js";
import type { DgramOptions } from "../../src/adapters/transport/dgram-udp-transport.js";
import { SwitchDataPlane, type DataPlaneOptions } from "../../src/application/dataplane/switch-data-plane.js";
import { FilterPrograms } from "../../src/application/filter-programs.js";
import { NotificationHub } from "../../src/application/notification-hub.js";
import type { Logger } from "../../src/application/ports/system.js";
import { RecordingLogger, TEST_DATA_PLANE_OPTIONS } from "./in-memory-data-plane.js";

/*
 * Data planes over real sockets on 127.0.0.1, built the one way the tests and benches moving real frames
 * build them; no chai here, so benches can use it too.
 */

/** NIO sockets on 127.0.0.1 with 1 MiB buffers. */
export const TEST_TRANSPORT: DgramOptions = { bindHost: "127.0.0.1", receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20 };

type WorkerDataPlaneOptions = ConstructorParameters<typeof WorkerDataPlane>[0];

/**
 * A data plane in `workers` real worker threads with the tests' options; the rest of `options` replace
 * any of them (a worker script, heap limits, the load interval, placement ...).
 */
export function testWorkerDataPlane(options: Pick<WorkerDataPlaneOptions, "workers"> & Partial<WorkerDataPlaneOptions>): WorkerDataPlane {
  return new WorkerDataPlane({
    dataPlane: TEST_DATA_PLANE_OPTIONS,
    transport: TEST_TRANSPORT,
    notifications: new NotificationHub(),
    logger: new RecordingLogger(),
    programs: new FilterPrograms(new InlineBpfCompiler()),
    ...options,
  });
}

/**
 * The data plane on this thread, on the datagram path the process chose (NETEMU_UDP_PATH) with
 * in-process links unless NETEMU_IN_PROCESS_LINKS=off, as a worker would run it: the main-thread twin
 * of `testWorkerDataPlane`. `sockets` wraps the chosen path's transport (a test counting its sends).
 */
export function testSwitchDataPlane(
  options: { transport?: DgramOptions; dataPlane?: DataPlaneOptions; logger?: Logger; sockets?: (chosen: UdpTransport) => UdpTransport } = {},
): SwitchDataPlane {
  const transport = options.transport ?? TEST_TRANSPORT;
  const chosen = chooseUdpTransport(transport);
  return new SwitchDataPlane(
    withInProcessLinks({ transport: options.sockets?.(chosen.transport) ?? chosen.transport, path: chosen.path }, transport),
    new PcapFileSink(),
    new SystemClock(),
    new NodeTimers(),
    new SeededRandomFactory(),
    new FilterPrograms(new InlineBpfCompiler()),
    options.logger ?? new RecordingLogger(),
    options.dataPlane ?? TEST_DATA_PLANE_OPTIONS,
    new NotificationHub(),
    chooseHostDevices(),
  );
}
