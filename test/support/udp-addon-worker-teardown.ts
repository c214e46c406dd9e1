import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { loadUdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";

/**
 * Run as a process by test/hardening/udp-batch-addon.test.ts: a worker thread opens sockets with the
 * batched UDP addon, then goes away with them still open, in the way named on the command line
 * ("terminate": worker.terminate(); "exit": process.exit in the worker; "throw": an uncaught exception).
 * Only the main thread of this process loads nothing of the addon, so the worker's copy is unloaded
 * with it. Prints "survived" once the worker is gone and the process is still well; a crash shows as
 * the process's signal.
 */
type How = "terminate" | "exit" | "throw";

if (isMainThread) {
  const how = (process.argv[2] ?? "terminate") as How;
  const worker = new Worker(new URL(import.meta.url), { workerData: how });
  worker.on("message", (m) => {
    if (m === "open" && how === "terminate") void worker.terminate();
  });
  worker.on("error", () => undefined);
  worker.on("exit", () => {
    // Give the loop a few turns: a use-after-free in the worker's teardown would show by now.
    setTimeout(() => console.log("survived"), 100);
  });
} else {
  const addon = loadUdpBatchAddon();
  for (let i = 0; i < 3; i++) addon.open(4, "127.0.0.1", 0, "127.0.0.1", 9, 0, 0, () => undefined, () => undefined);
  parentPort?.postMessage("open");
  if (workerData === "exit") setTimeout(() => process.exit(3), 20);
  if (workerData === "throw") setTimeout(() => {
    throw new Error("the worker dies with its sockets open");
  }, 20);
}
