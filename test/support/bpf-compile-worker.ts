import { parentPort, workerData } from "node:worker_threads";
import { compileCaptureMatcher } from "../../src/domain/bpf/index.js";

/**
 * Compiles the expressions it is given (workerData) and runs each accepted one on a few frames, in a thread
 * whose stack the test chose: each result is "matched N" or the refusal's message. A stack overflow
 * anywhere in the compiler ends the thread with an error instead.
 */
const frames = Array.from({ length: 64 }, (_, i) => Uint8Array.from({ length: (i * 23) % 200 }, (_, j) => (i * 31 + j * 17) & 0xff));
const results = (workerData as readonly string[]).map((expression) => {
  const r = compileCaptureMatcher(expression);
  if (r._tag === "Left") return r.left.message;
  return `matched ${frames.filter((f) => r.right(f, f.length)).length}`;
});
parentPort?.postMessage(results);
