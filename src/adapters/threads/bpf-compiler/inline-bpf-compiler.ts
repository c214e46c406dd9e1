import type * as E from "fp-ts/lib/Either.js";
import type { BpfCompiler } from "../../../application/ports/bpf-compiler.js";
import { type BpfProgram, compileProgram } from "../../../domain/bpf/index.js";
import type { BpfLineError } from "../../../domain/filters/filter-settings.js";

/**
 * netemu's own pcap-filter compiler on the calling thread: what a data-plane worker uses when a
 * program did not come with its node, and what an embedder gets unless it asks for a thread.
 */
export class InlineBpfCompiler implements BpfCompiler {
  async compile(lines: readonly string[]): Promise<E.Either<BpfLineError, BpfProgram>> {
    return compileProgram(lines);
  }
  async close(): Promise<void> {}
}
