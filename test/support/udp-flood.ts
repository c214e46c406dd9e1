/**
 * A frame source in a process of its own, so that the test's loop stays free to time its bystander:
 * `node udp-flood.js <target port> <rate frames/s> [frame bytes]` binds a sender and a sink on
 * 127.0.0.1, prints `{"sender":port,"sink":port}`, then sends to the target at the rate (in bursts
 * every millisecond; with the batched addon, one sendmmsg a burst, where it loads) until its stdin
 * closes, and prints `{"sent":n}`. The sink drains what comes back. The frame is IPv4/UDP
 * 10.0.0.1:100 -> 10.0.0.2:200, broadcast from 02:00:00:00:f1:01.
 */
import { createSocket } from "node:dgram";
import { loadUdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";

const target = Number(process.argv[2]);
const rate = Number(process.argv[3]);
const size = Number(process.argv[4] ?? 128);

const frame = Buffer.alloc(size);
Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0xf1, 0x01, 0x08, 0x00]).copy(frame, 0);
Buffer.from([0x45, 0, 0, size - 14, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 0, 100, 0, 200, 0, size - 34, 0, 0]).copy(frame, 14);

const sink = createSocket({ type: "udp4", recvBufferSize: 4 << 20 });
sink.on("message", () => undefined);
await new Promise<void>((r) => sink.bind(0, "127.0.0.1", () => r()));
const sender = createSocket({ type: "udp4", sendBufferSize: 4 << 20 });
await new Promise<void>((r) => sender.bind(0, "127.0.0.1", () => r()));
const senderPort = sender.address().port;

let send: (frames: Buffer[]) => void;
let closeSender: () => void;
try {
  // The same port, sent through the addon's connected socket: the dgram one only held the number.
  const addon = loadUdpBatchAddon();
  await new Promise<void>((r) => sender.close(() => r()));
  const handle = addon.open(4, "127.0.0.1", senderPort, "127.0.0.1", target, 0, 4 << 20, () => undefined, () => undefined);
  send = (frames) => void addon.send(handle, frames);
  closeSender = () => addon.close(handle);
} catch {
  send = (frames) => {
    for (const f of frames) sender.send(f, target, "127.0.0.1");
  };
  closeSender = () => sender.close();
}
process.stdout.write(`${JSON.stringify({ sender: senderPort, sink: sink.address().port })}\n`);

let running = true;
process.stdin.on("close", () => (running = false));
process.stdin.on("end", () => (running = false));
process.stdin.resume();
let sent = 0;
const started = performance.now();
const tick = (): void => {
  if (!running) {
    closeSender();
    sink.close();
    process.stdout.write(`${JSON.stringify({ sent })}\n`);
    return;
  }
  // Whatever the rate owes by now, at most 512 a tick (a late tick does not become a burst of its own).
  const owed = Math.min(512, Math.floor(((performance.now() - started) / 1000) * rate) - sent);
  for (let left = owed; left > 0; left -= 64) send(new Array<Buffer>(Math.min(64, left)).fill(frame));
  if (owed > 0) sent += owed;
  setTimeout(tick, 1);
};
tick();
