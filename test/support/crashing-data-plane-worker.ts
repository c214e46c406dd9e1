import { parentPort } from "node:worker_threads";
import "../../src/adapters/threads/data-plane/data-plane-worker.js";

/**
 * netemu's own data-plane worker, which dies of an uncaught exception when it is asked to sync a
 * node whose name starts with "crash": how a bug in the worker looks to the main thread.
 */
parentPort?.on("message", (m: { op: string; args: unknown[] }) => {
  // A sync carries a node change (data-plane-protocol.ts): the node's name is among its fields.
  const node = (m.args[0] as { fields?: { name?: unknown } } | undefined)?.fields;
  if (m.op === "sync" && typeof node?.name === "string" && node.name.startsWith("crash")) throw new Error(`told to crash by ${node.name}`);
});
