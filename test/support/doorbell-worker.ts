import { parentPort } from "node:worker_threads";
import { loadUdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";

/*
 * A thread with a doorbell of its own (doorbells.test.ts): says its id, then tells each time its
 * doorbell is heard; on { ring, times } rings that id that many times and says what each ring
 * answered; on { busyMs } keeps its loop busy that long (rings meanwhile wait for it).
 */
const addon = loadUdpBatchAddon();
const port = parentPort!;
let heard = 0;
const id = addon.doorbell(() => port.postMessage({ heard: ++heard }));
port.on("message", (m: { ring?: number; times?: number; busyMs?: number }) => {
  if (m.busyMs !== undefined) {
    const until = Date.now() + m.busyMs;
    while (Date.now() < until);
    port.postMessage({ busy: "done" });
  }
  if (m.ring !== undefined) port.postMessage({ rung: Array.from({ length: m.times ?? 1 }, () => addon.ring(m.ring as number)) });
});
port.postMessage({ id });
