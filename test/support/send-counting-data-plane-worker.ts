import { Socket } from "node:dgram";
import { fileURLToPath } from "node:url";
import { isPairingBarrier } from "./pairing-barrier.js";
import { publishSendCounts } from "./send-counts-file.js";

/*
 * netemu's own data-plane worker, counting the frames each of its sockets gives the kernel, by local
 * port (a pairing's barrier is not one): node:dgram's into `<NETEMU_TEST_SENDS_FILE>.<thread id>.dgram` (JSON, every 20 ms), the
 * batched path's through counting-udp-batch-addon.ts. How a test sees, from outside the worker,
 * whether a link's frames crossed the kernel.
 */
const sent: Record<number, number> = {};
const send = Socket.prototype.send;
Socket.prototype.send = function (this: Socket, ...args: unknown[]): void {
  try {
    const lport = this.address().port;
    if (!isPairingBarrier(args[0] as Uint8Array)) sent[lport] = (sent[lport] ?? 0) + 1;
  } catch {
    // Not bound: not one of the data plane's sockets.
  }
  return (send as (...a: unknown[]) => void).apply(this, args);
} as typeof Socket.prototype.send;

publishSendCounts(sent, "dgram");
// This thread's environment is its own copy: the addon the worker's transport loads is the counting one.
process.env["NETEMU_UDP_ADDON"] = fileURLToPath(new URL("./counting-udp-batch-addon.js", import.meta.url));

await import("../../src/adapters/threads/data-plane/data-plane-worker.js");
