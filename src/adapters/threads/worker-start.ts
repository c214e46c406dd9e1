import { type ResourceLimits, Worker } from "node:worker_threads";

/** Options that take the next argument as their value, and that a worker must not inherit. */
const HOST_ONLY_WITH_VALUE = new Set(["-e", "--eval", "-p", "--print", "--input-type"]);
const isHostOnly = (arg: string): boolean => HOST_ONLY_WITH_VALUE.has(arg) || /^--(input-type|eval|print)=/.test(arg);

/**
 * Starts a worker thread of `script`. It inherits the host's Node options (memory limits, loaders)
 * except those about how the host's own script was given (`-e`, `--input-type`), with which it
 * would refuse to load its module file. Node drops the options a worker cannot take (per-process V8
 * flags) only when it inherits them itself, so a list of our own that holds one is refused: then
 * the worker starts with none. `resourceLimits` bound its heap (a worker past them dies, not the process).
 */
export function startWorker(script: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const limits = resourceLimits === undefined ? {} : { resourceLimits };
  if (!process.execArgv.some(isHostOnly)) return new Worker(script, { workerData, ...limits });
  const kept: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const arg = process.execArgv[i] as string;
    if (HOST_ONLY_WITH_VALUE.has(arg)) i++;
    else if (!isHostOnly(arg)) kept.push(arg);
  }
  try {
    return new Worker(script, { workerData, execArgv: kept, ...limits });
  } catch (err) {
    if ((err as { code?: unknown }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw err;
    return new Worker(script, { workerData, execArgv: [], ...limits });
  }
}
