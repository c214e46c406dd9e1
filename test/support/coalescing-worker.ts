import { parentPort, workerData } from "node:worker_threads";
import { loadUdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { sendPaced } from "./paced-udp-sender.js";

/*
 * A worker thread with a coalescing socket of its own (udp-coalescing.test.ts): sets 700 µs, receives a
 * stream until its socket is parked, says what its thread's coalescing looks like, and keeps receiving
 * until it is terminated (its socket still open and parked).
 */
const { recv, send } = workerData as { recv: number; send: number };
const addon = loadUdpBatchAddon();
addon.setCoalescing(700);
let frames = 0;
// Held for the worker's life (a handle collected closes its socket); terminate() closes it.
export const socket = addon.open(4, "127.0.0.1", recv, "127.0.0.1", send, 1 << 20, 1 << 20, (_pool, _offset, _lengths, count) => void (frames += count), () => undefined);
void sendPaced({ fromPort: send, toPort: recv, frames: Array.from({ length: 100_000 }, () => new Uint8Array(64)), gapMicros: 100 }).catch(() => undefined);
const said = setInterval(() => {
  const now = addon.coalescing();
  if (now.parked === 0) return;
  clearInterval(said);
  parentPort?.postMessage({ microseconds: now.microseconds, parked: now.parked, frames });
}, 5);
