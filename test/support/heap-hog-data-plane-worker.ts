import { parentPort, resourceLimits } from "node:worker_threads";
import "../../src/adapters/threads/data-plane/data-plane-worker.js";

/**
 * netemu's own data-plane worker, which runs out of memory when it is asked to sync a node whose name
 * starts with "oom": it fills its heap until V8 ends the thread, as a worker whose delay lines held
 * too much dies (ERR_WORKER_OUT_OF_MEMORY, exit code 1). Deterministic: the node, not a flood, kills it.
 * It hogs only under a heap limit (the WorkerDataPlane's `resourceLimits`); without one it throws
 * instead, so a test that forgot the limit cannot eat the machine's memory.
 */
const hog: number[][] = [];
parentPort?.on("message", (m: { op: string; args: unknown[] }) => {
  const node = (m.args[0] as { fields?: { name?: unknown } } | undefined)?.fields;
  if (m.op !== "sync" || typeof node?.name !== "string" || !node.name.startsWith("oom")) return;
  if (!(resourceLimits.maxOldGenerationSizeMb !== undefined && resourceLimits.maxOldGenerationSizeMb > 0 && resourceLimits.maxOldGenerationSizeMb <= 256)) throw new Error("the heap hog needs a heap limit of at most 256 MiB");
  for (;;) hog.push(new Array<number>(1 << 16).fill(hog.length + 0.5));
});
