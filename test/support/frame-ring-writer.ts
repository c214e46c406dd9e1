import { workerData } from "node:worker_threads";
import { FrameRing } from "../../src/adapters/transport/frame-ring.js";
import { loadUdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";

/*
 * Another thread writing into a frame ring (frame-ring.test.ts): `count` frames numbered from 0 (each
 * filled with its number's low byte), of 60 to 1,514 bytes by turns, retrying a full ring from the next turn of its loop, then it closes its side.
 */
const { buffer, count, doorbells } = workerData as { buffer: SharedArrayBuffer; count: number; doorbells?: boolean };
// With `doorbells`, a reader waiting on its thread's doorbell is woken by ringing it (ADR 0112).
const addon = doorbells === true ? loadUdpBatchAddon() : undefined;
const ring = FrameRing.of(buffer, addon === undefined ? undefined : (id) => void addon.ring(id)) as FrameRing;
let next = 0;
const writeSome = (): void => {
  while (next < count) {
    const frame = Buffer.alloc(60 + ((next * 97) % 1455), next & 0xff);
    frame.writeUInt32BE(next, 0);
    if (ring.write(frame) !== "written") {
      // Full: the dropped frame is counted by the ring; take it back off the count and write it again later.
      ring.takeOverflow();
      setImmediate(writeSome);
      return;
    }
    next++;
  }
  ring.closeWriter();
};
writeSome();
