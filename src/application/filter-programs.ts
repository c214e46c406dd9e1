import * as E from "fp-ts/lib/Either.js";
import type { BpfProgram } from "../domain/bpf/index.js";
import { type BpfLineError, type FilterSettings, type InvalidFilterSettings, type TextLinesKind, bpfLines, expressionText, matchLines } from "../domain/filters/filter-settings.js";
import type { BpfCompiler, BpfPrograms } from "./ports/bpf-compiler.js";
import type { TraceBook } from "./ports/trace-store.js";
import { resolveTraces } from "./traces/resolve-traces.js";

type Compiled = E.Either<BpfLineError, BpfProgram>;

/** Distinct expression texts kept: a lab uses a handful; the oldest is compiled again if needed. */
const CACHE_LIMIT = 1024;

/**
 * The pcap-filter programs of the bpf and match filters, compiled once per distinct text (ADR 0054):
 * keyed by the canonical text of the lines, so a link create that checks its filters, the data plane
 * that runs them and a worker thread that receives them share one compile. Concurrent asks for the
 * same text wait for the same compile. Refusals are kept too: a wrong expression sent again is not
 * compiled again.
 */
export class FilterPrograms implements BpfPrograms {
  private readonly compiled = new Map<string, Promise<Compiled>>();
  /** Compiles started (cache misses): what the benchmarks and tests count. */
  compiles = 0;

  constructor(
    private readonly compiler: BpfCompiler,
    /** The uploaded traces the trace kinds name (ADR 0103): a name not there is refused at every door that checks. */
    private readonly traces?: TraceBook,
  ) {}

  program(lines: readonly string[]): Promise<Compiled> {
    const key = expressionText(lines);
    const hit = this.compiled.get(key);
    if (hit !== undefined) {
      // Most recently used last: the map's first key is the one to forget.
      this.compiled.delete(key);
      this.compiled.set(key, hit);
      return hit;
    }
    this.compiles++;
    const compiling = this.compiler.compile(lines);
    if (this.compiled.size >= CACHE_LIMIT) this.compiled.delete(this.compiled.keys().next().value as string);
    this.compiled.set(key, compiling);
    // A compiler that failed (not a refusal: a defect) is not remembered.
    compiling.catch(() => this.compiled.delete(key));
    return compiling;
  }

  /**
   * Whether the settings' bpf and match expressions compile: the refusal names the kind, the line
   * and the compiler's message (and the field, when it is not `filters`).
   */
  async check(settings: FilterSettings, field?: string): Promise<E.Either<InvalidFilterSettings, void>> {
    for (const [kind, lines] of [["bpf", bpfLines(settings)], ["match", matchLines(settings)]] as [TextLinesKind, string[]][]) {
      if (lines.length === 0) continue;
      const compiled = await this.program(lines);
      if (E.isLeft(compiled)) {
        const problem = { problem: "bpf_invalid" as const, kind, line: compiled.left.line, message: compiled.left.message };
        return E.left(field === undefined || field === "filters" ? { _tag: "InvalidFilterSettings", problem } : { _tag: "InvalidFilterSettings", problem, field });
      }
    }
    if (this.traces !== undefined) {
      const resolved = resolveTraces(settings, this.traces);
      if (E.isLeft(resolved)) return E.left(field === undefined || field === "filters" ? resolved.left : { ...resolved.left, field });
    }
    return E.right(undefined);
  }

  /** Stops the compiler's own thread, if it has one. */
  close(): Promise<void> {
    return this.compiler.close();
  }
}
