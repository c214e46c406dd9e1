import { type Trace, sameTrace } from "../../domain/traces/trace.js";
import type { TraceBook } from "../ports/trace-store.js";

/**
 * The traces a data-plane worker was sent with its syncs (ADR 0103), by name. A trace sent again as the
 * same value keeps the object the live chains hold, so a chain rebuilt for another filter's change still
 * sees the same trace and goes on from its position (ADR 0055); a different value of the same name
 * replaces it.
 */
export class TraceShelf implements TraceBook {
  private readonly byName = new Map<string, Trace>();

  receive(traces: readonly { readonly name: string; readonly trace: Trace }[] | undefined): void {
    for (const { name, trace } of traces ?? []) {
      const held = this.byName.get(name);
      if (held === undefined || !sameTrace(held, trace)) this.byName.set(name, trace);
    }
  }

  traceNamed(name: string): Trace | undefined {
    return this.byName.get(name);
  }
}
