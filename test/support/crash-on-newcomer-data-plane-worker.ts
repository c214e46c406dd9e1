import { parentPort } from "node:worker_threads";
import "../../src/adapters/threads/data-plane/data-plane-worker.js";

/**
 * netemu's own data-plane worker, which dies when it is asked to sync a node named "crash-if-new…" that
 * it has never been sent before: a worker that fails while a node moves onto it, while the worker the
 * node comes from (which knew it) takes it back.
 */
const seen = new Set<string>();
parentPort?.on("message", (m: { op: string; args: unknown[] }) => {
  if (m.op !== "sync" && m.op !== "takeOver") return;
  const fields = (m.args[0] as { fields?: { nodeId?: unknown; name?: unknown } } | undefined)?.fields;
  if (typeof fields?.nodeId !== "string") return;
  const known = seen.has(fields.nodeId);
  seen.add(fields.nodeId);
  if (!known && typeof fields.name === "string" && fields.name.startsWith("crash-if-new")) throw new Error(`told to crash by ${fields.name}`);
});
