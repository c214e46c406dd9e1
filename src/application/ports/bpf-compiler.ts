import type * as E from "fp-ts/lib/Either.js";
import type { BpfProgram } from "../../domain/bpf/index.js";
import type { BpfLineError } from "../../domain/filters/filter-settings.js";

/**
 * Compiles the expression lines of a bpf or match filter into a program: plain data, so that it may
 * be compiled on one thread and run on another (ADR 0054). Left names the first line that does not
 * compile. An adapter may compile off the caller's event loop.
 */
export interface BpfCompiler {
  compile(lines: readonly string[]): Promise<E.Either<BpfLineError, BpfProgram>>;
  /** Stops whatever the compiler runs on its own (a thread); later compiles run inline. */
  close(): Promise<void>;
}

/** Where the data plane gets the program of a filter's lines: compiled once per distinct text. */
export interface BpfPrograms {
  program(lines: readonly string[]): Promise<E.Either<BpfLineError, BpfProgram>>;
}
