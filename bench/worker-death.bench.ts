import "reflect-metadata";
import * as E from "fp-ts/lib/Either.js";
import { WorkerDataPlane } from "../src/adapters/threads/data-plane/worker-data-plane.js";
import { NotificationHub } from "../src/application/notification-hub.js";
import { FilterPrograms } from "../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { createEthernetSwitch } from "../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../src/domain/switching/port.js";
import { type ComputeNode, attachNio } from "../src/domain/switching/compute-node.js";
import { RecordingLogger, TEST_DATA_PLANE_OPTIONS } from "../test/support/in-memory-data-plane.js";
import { freeUdpPort } from "../test/support/udp-peer.js";

/**
 * How long a worker's nodes stay dark after it dies (ADR 0073): a worker holding N switches (2 UDP NIOs
 * each) is run out of memory (64 MiB heap, the test's heap-hog worker) 4 times; each line gives the time
 * from the sync that kills it to the death, and from the death to every node given back.
 * `npm run pretest && node build/bench/worker-death.bench.js 1 50 200`
 */
const PROJECT = "77777777-3333-4444-8555-888888888888";
const sw = (i: number, name: string): ComputeNode =>
  createEthernetSwitch({ nodeId: `dddddddd-0000-4000-8000-${String(i).padStart(12, "0")}`, projectId: PROJECT, name, console: null, consoleType: "none", portsMapping: defaultPortsMapping() });

async function darkAfterDeath(nodes: number): Promise<{ toDeathMs: number; darkMs: number }[]> {
  const dp = new WorkerDataPlane({
    workers: 1,
    dataPlane: TEST_DATA_PLANE_OPTIONS,
    transport: { bindHost: "127.0.0.1", receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20 },
    notifications: new NotificationHub(),
    logger: new RecordingLogger(),
    programs: new FilterPrograms(new InlineBpfCompiler()),
    workerScript: new URL("../test/support/heap-hog-data-plane-worker.js", import.meta.url),
    resourceLimits: { maxOldGenerationSizeMb: 64 },
    loadIntervalMs: 0,
  });
  for (let i = 0; i < nodes; i++) {
    let node = sw(i, `SW${i}`);
    for (const port of [0, 1]) {
      const attached = attachNio(node, port, { type: "nio_udp", lport: await freeUdpPort(), rhost: "127.0.0.1", rport: 9, filters: {}, suspend: false });
      if (E.isLeft(attached)) throw new Error(attached.left._tag);
      node = attached.right;
    }
    if (E.isLeft(await dp.sync(node))) throw new Error("a switch could not be synced");
  }
  const runs: { toDeathMs: number; darkMs: number }[] = [];
  // 4 deaths: under the 5 that give a worker up.
  for (let run = 0; run < 4; run++) {
    const t0 = performance.now();
    await dp.sync(sw(999_999, "oom")).catch(() => undefined);
    const died = performance.now();
    while (dp.darkWorkers().length > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    runs.push({ toDeathMs: Math.round(died - t0), darkMs: Math.round(performance.now() - died) });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await dp.close();
  return runs;
}

for (const nodes of process.argv.slice(2).map(Number)) console.log(JSON.stringify({ nodes, runs: await darkAfterDeath(nodes) }));
