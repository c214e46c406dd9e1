import { Worker } from "node:worker_threads";

/**
 * Sends `frames` from 127.0.0.1:fromPort to 127.0.0.1:toPort, `gapMicros` apart, from a thread of
 * its own (a busy wait on the monotonic clock: a timer cannot pace tens of thousands a second), so the
 * thread receiving them, this one, is not the one sending. Answers when the last left, on
 * process.hrtime's clock (the same in every thread of the process).
 */
export function sendPaced(options: {
  readonly fromPort: number;
  readonly toPort: number;
  readonly frames: readonly Uint8Array[];
  /** The gap before each frame after the first: one for all, or each its own (a burst: 0). */
  readonly gapMicros: number | readonly number[];
}): Promise<{ readonly lastSentNs: bigint }> {
  const worker = new Worker(PACED_SENDER, { eval: true, workerData: options });
  return new Promise((resolve, reject) => {
    worker.once("message", (m: { lastSentNs: string }) => resolve({ lastSentNs: BigInt(m.lastSentNs) }));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the paced sender ended (${code}) before sending everything`)));
  });
}

const PACED_SENDER = `
const { workerData, parentPort } = require("node:worker_threads");
const dgram = require("node:dgram");
const socket = dgram.createSocket("udp4");
// A receiver closed mid-stream answers port unreachable: later sends fail, which is not the sender's concern.
socket.on("error", () => {});
socket.bind(workerData.fromPort, "127.0.0.1", () => socket.connect(workerData.toPort, "127.0.0.1", () => {
  const gaps = workerData.gapMicros;
  const gapBefore = (i) => BigInt(Math.round((typeof gaps === "number" ? gaps : gaps[i - 1] ?? 0) * 1000));
  let next = process.hrtime.bigint();
  let last = next;
  workerData.frames.forEach((frame, i) => {
    if (i > 0) next += gapBefore(i);
    while (process.hrtime.bigint() < next);
    socket.send(frame);
    last = process.hrtime.bigint();
  });
  // The sends above are done once the loop turns; then the port is given back.
  setTimeout(() => socket.close(() => parentPort.postMessage({ lastSentNs: String(last) })), 20);
}));
`;
