import type { Trace } from "../../domain/traces/trace.js";

/** Where the data plane finds the trace a filter names (ADR 0103): the store on the main thread, what a sync brought in a worker. */
export interface TraceBook {
  traceNamed(name: string): Trace | undefined;
}

/** A trace as the store keeps it: its name, its text as uploaded, and the value it parsed to. */
export interface StoredTrace {
  readonly name: string;
  readonly text: string;
  readonly trace: Trace;
}

/**
 * The uploaded traces, by name (ADR 0103): kept where they survive a restart (a file adapter under
 * netemu's config dir) or in memory for an embedder. Reads are synchronous: the data plane resolves a
 * filter's trace while it reconciles.
 */
export interface TraceStore extends TraceBook {
  list(): readonly StoredTrace[];
  get(name: string): StoredTrace | undefined;
  /** Keeps (or replaces) a trace; resolves once it is durable. */
  put(stored: StoredTrace): Promise<void>;
  delete(name: string): Promise<void>;
}

/** A book with no traces: a data plane built without a store (a test's). */
export const NO_TRACES: TraceBook = { traceNamed: () => undefined };
