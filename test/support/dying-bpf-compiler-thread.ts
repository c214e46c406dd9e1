import { parentPort } from "node:worker_threads";

/** A compiler thread that dies at its first request: how a crash of the real one looks to the main thread. */
parentPort?.on("message", () => process.exit(3));
