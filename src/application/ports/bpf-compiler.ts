import type * as E from "fp-ts/lib/Either.js";
import type { BpfMatcher } from "../../domain/filters/filter-chain.js";
import type { BpfLineError } from "../../domain/filters/filter-settings.js";

/** Compiles a bpf filter's lines into one matcher (a frame matching any line); Left names the line that did not compile. */
export type BpfCompiler = (lines: readonly string[]) => E.Either<BpfLineError, BpfMatcher>;
