import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { StoredTrace, TraceStore } from "../../ports/trace-store.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";

export const LIST_TRACES_REFUSALS = [] as const;
export const GET_TRACE_REFUSALS = ["TraceNotFound"] as const;

/** The uploaded traces, by name (ADR 0103). */
@injectable()
export class ListTraces {
  constructor(@inject(TOKENS.TraceStore) private readonly store: TraceStore) {}

  async execute(): Promise<E.Either<Refusal<typeof LIST_TRACES_REFUSALS>, readonly StoredTrace[]>> {
    return E.right(this.store.list());
  }
}

/** One uploaded trace, its text as it was uploaded. */
@injectable()
export class GetTrace {
  constructor(@inject(TOKENS.TraceStore) private readonly store: TraceStore) {}

  async execute(name: string): Promise<E.Either<Refusal<typeof GET_TRACE_REFUSALS>, StoredTrace>> {
    const stored = this.store.get(name);
    return stored === undefined ? E.left({ _tag: "TraceNotFound", name }) : E.right(stored);
  }
}
