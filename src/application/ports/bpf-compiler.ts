import type * as E from "fp-ts/lib/Either.js";
import type { BpfMatcher } from "../../domain/filters/filter-chain.js";

/** Compiles a bpf filter's lines into one matcher (a frame matching any line); Left is the 400 message. */
export type BpfCompiler = (lines: readonly string[]) => E.Either<string, BpfMatcher>;
