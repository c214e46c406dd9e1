import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { TRACE_LIMITS, isTraceName, parseTrace } from "../../../domain/traces/trace.js";
import type { StoredTrace, TraceStore } from "../../ports/trace-store.js";
import type { ImpairmentStore } from "../../ports/impairment-store.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";
import { traceUsers } from "../../traces/trace-users.js";

export const UPLOAD_TRACE_REFUSALS = ["InvalidTraceName", "InvalidTrace", "PayloadTooLarge", "TraceInUse"] as const;
type UploadTraceError = Refusal<typeof UPLOAD_TRACE_REFUSALS>;

/**
 * Keeps an uploaded trace under its name (ADR 0103), read whole (bounded) and parsed before anything
 * is written. A trace a filter names is not replaced (409): the links replaying it would keep the old
 * one until their next change, so the store and the data plane would disagree.
 */
@injectable()
export class UploadTrace {
  constructor(
    @inject(TOKENS.TraceStore) private readonly store: TraceStore,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.ImpairmentStore) private readonly impairments: ImpairmentStore,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async execute(input: { readonly name: string; readonly content: AsyncIterable<Uint8Array>; readonly declaredBytes: number | undefined }): Promise<E.Either<UploadTraceError, StoredTrace>> {
    if (!isTraceName(input.name)) return E.left({ _tag: "InvalidTraceName", name: input.name });
    const limit = TRACE_LIMITS.textChars;
    if (input.declaredBytes !== undefined && input.declaredBytes > limit) return E.left({ _tag: "PayloadTooLarge", what: "upload", limit });
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    for await (const chunk of input.content) {
      bytes += chunk.byteLength;
      if (bytes > limit) return E.left({ _tag: "PayloadTooLarge", what: "upload", limit });
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    const read = parseTrace(text);
    if (!read.ok) return E.left({ _tag: "InvalidTrace", name: input.name, problem: read.problem });
    if (this.store.get(input.name) !== undefined) {
      const users = await traceUsers(input.name, this.nodes, this.impairments);
      if (users.length > 0) return E.left({ _tag: "TraceInUse", name: input.name, users });
    }
    const stored: StoredTrace = { name: input.name, text, trace: read.trace };
    await this.store.put(stored);
    this.logger.info("trace uploaded", { name: input.name, kind: read.trace.kind, bytes });
    return E.right(stored);
  }
}
