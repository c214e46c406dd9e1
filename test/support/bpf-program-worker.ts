import { parentPort, workerData } from "node:worker_threads";
import type { BpfProgram } from "../../src/domain/bpf/index.js";
import { instantiateProgram } from "../../src/domain/bpf/index.js";

/** Runs a compiled program it received (structured-cloned into this thread) on frames, and answers which match. */
const { program, frames } = workerData as { program: BpfProgram; frames: Uint8Array[] };
const matcher = instantiateProgram(program);
parentPort?.postMessage(frames.map((f) => matcher(f)));
