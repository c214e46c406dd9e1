import * as E from "fp-ts/lib/Either.js";
import type { BpfMatcher } from "../../domain/filters/filter-chain.js";
import { type FilterSettings, type TextLinesKind, bpfLines, expressionText, matchLines, directionConflict } from "../../domain/filters/filter-settings.js";
import { instantiateProgram } from "../../domain/bpf/index.js";
import type { Nio } from "../../domain/switching/nio.js";
import type { BpfPrograms } from "../ports/bpf-compiler.js";
import { NO_TRACES, type TraceBook } from "../ports/trace-store.js";
import { resolveTraces } from "../traces/resolve-traces.js";
import type { ErrorOf } from "../errors.js";
import { type ChainSpec, directionSettings } from "./port-chains.js";

/** What each direction of a NIO must run, its bpf and match expressions compiled once per text. */
export class ChainCompiler {
  /** The matcher of each expression text in use (instantiated from its program once). */
  private readonly matchers = new Map<string, BpfMatcher>();

  constructor(
    private readonly programs: BpfPrograms,
    /** Where a trace kind's trace is looked up by name (ADR 0103). */
    private readonly traces: TraceBook = NO_TRACES,
  ) {}

  /** What each direction of a NIO must run, its expressions compiled (a refusal changes nothing). */
  async chainSpecs(nio: Nio): Promise<E.Either<ErrorOf<"InvalidFilterSettings">, { ingress: ChainSpec; egress: ChainSpec }>> {
    const wanted = directionSettings(nio);
    const ingress = await this.spec(wanted.ingress, wanted.suspend);
    if (E.isLeft(ingress)) return ingress;
    const egress = wanted.egress === wanted.ingress ? ingress : await this.spec(wanted.egress, wanted.suspend);
    if (E.isLeft(egress)) return egress;
    return E.right({ ingress: ingress.right, egress: egress.right });
  }

  private async spec(settings: FilterSettings, suspend: boolean): Promise<E.Either<ErrorOf<"InvalidFilterSettings">, ChainSpec>> {
    // What a direction runs may join kinds parsed apart (an overlay's over a link's `filters`): the trace link would be ignored beside bandwidth, a discipline beside the trace link.
    const clash = directionConflict(settings);
    if (clash !== undefined) return E.left({ _tag: "InvalidFilterSettings", problem: clash });
    const bpf = await this.matcherOf("bpf", bpfLines(settings));
    if (E.isLeft(bpf)) return bpf;
    const classify = await this.matcherOf("match", matchLines(settings));
    if (E.isLeft(classify)) return classify;
    const traces = resolveTraces(settings, this.traces);
    if (E.isLeft(traces)) return traces;
    return E.right({ settings, suspend, bpf: bpf.right, classify: classify.right, traces: traces.right });
  }

  /** The matcher of a bpf or match entry's lines (none without lines), from its program, compiled once per text. */
  private async matcherOf(kind: TextLinesKind, lines: readonly string[]): Promise<E.Either<ErrorOf<"InvalidFilterSettings">, BpfMatcher | undefined>> {
    if (lines.length === 0) return E.right(undefined);
    const key = expressionText(lines);
    const known = this.matchers.get(key);
    if (known !== undefined) return E.right(known);
    const program = await this.programs.program(lines);
    if (E.isLeft(program)) return E.left({ _tag: "InvalidFilterSettings", problem: { problem: "bpf_invalid", kind, ...program.left } });
    // Chains hold their matchers: forgetting the cache only costs instantiating a program again.
    if (this.matchers.size >= 1024) this.matchers.clear();
    const matcher = instantiateProgram(program.right);
    this.matchers.set(key, matcher);
    return E.right(matcher);
  }
}
