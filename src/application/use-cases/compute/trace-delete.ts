import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { TraceStore } from "../../ports/trace-store.js";
import type { ImpairmentStore } from "../../ports/impairment-store.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";
import { traceUsers } from "../../traces/trace-users.js";

export const DELETE_TRACE_REFUSALS = ["TraceNotFound", "TraceInUse"] as const;

/** Forgets an uploaded trace (ADR 0103); refused while a filter, a schedule's step or an overlay names it. */
@injectable()
export class DeleteTrace {
  constructor(
    @inject(TOKENS.TraceStore) private readonly store: TraceStore,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.ImpairmentStore) private readonly impairments: ImpairmentStore,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async execute(name: string): Promise<E.Either<Refusal<typeof DELETE_TRACE_REFUSALS>, void>> {
    if (this.store.get(name) === undefined) return E.left({ _tag: "TraceNotFound", name });
    const users = await traceUsers(name, this.nodes, this.impairments);
    if (users.length > 0) return E.left({ _tag: "TraceInUse", name, users });
    await this.store.delete(name);
    this.logger.info("trace deleted", { name });
    return E.right(undefined);
  }
}
