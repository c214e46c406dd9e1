/**
 * pcap-filter (BPF) expressions, compiled in pure TypeScript to agree with libpcap 1.10 on Ethernet frames.
 *
 * Pipeline: lexer -> parser (AST) -> semantics (IR predicate, gencode's checks and offsets) -> decision DAG
 * (libpcap's optimisations, "rejects all packets") -> code generator (a JavaScript closure). Compiled
 * expressions are cached. Every stage is bounded (limits.ts): a refusal is a BpfCompileError naming the limit.
 */
import * as E from "fp-ts/lib/Either.js";
import type { Either } from "fp-ts/lib/Either.js";
import { generateSource, instantiateSource } from "./codegen.js";
import { buildDag, interpret, rejectsAll } from "./dag.js";
import { BpfError } from "./errors.js";
import { WorkBudget } from "./limits.js";
import { parse } from "./parser.js";
import { compilePredicate } from "./semantics.js";

export { MAX_COMPILE_WORK, MAX_EXPRESSION_LENGTH, MAX_GENEVE, MAX_NESTING } from "./limits.js";

/** true = the expression matches the frame (the bpf link filter then drops it); caplen = len = frame.length */
export type FrameMatcher = (frame: Uint8Array) => boolean;

/** Matches captured bytes whose frame was `wireLength` bytes long on the wire (`len`, `less`, `greater`). */
export type CaptureMatcher = (bytes: Uint8Array, wireLength: number) => boolean;

export interface BpfCompileError {
  readonly _tag: "BpfCompileError";
  readonly message: string;
  readonly position?: number;
}

const compileError = (message: string, position?: number): BpfCompileError =>
  position === undefined ? { _tag: "BpfCompileError", message } : { _tag: "BpfCompileError", message, position };

/** An expression compiled: the generated source (a factory of the matcher) and the matcher made from it. */
interface Compiled {
  readonly source: string;
  readonly matcher: CaptureMatcher;
}

const CACHE_LIMIT = 512;
const cache = new Map<string, Either<BpfCompileError, Compiled>>();

function compileUncached(expression: string): Either<BpfCompileError, Compiled> {
  try {
    // one budget for the optimiser and the code generator: together they are the unbounded part
    const budget = new WorkBudget();
    const dag = buildDag(compilePredicate(parse(expression)), budget);
    if (rejectsAll(dag)) return E.left(compileError("expression rejects all packets"));
    const source = generateSource(dag.root, dag.prelude, budget);
    const matcher = instantiateSource(source) ?? ((bytes, wirelen) => interpret(dag.root, bytes, wirelen, dag.prelude));
    return E.right({ source, matcher });
  } catch (e) {
    if (e instanceof BpfError) return E.left(compileError(e.message, e.position));
    throw e;
  }
}

function compiled(expression: string): Either<BpfCompileError, Compiled> {
  const hit = cache.get(expression);
  if (hit !== undefined) return hit;
  const result = compileUncached(expression);
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(expression, result);
  return result;
}

/** Compiles an expression to a matcher over (captured bytes, wire length); results are cached. */
export function compileCaptureMatcher(expression: string): Either<BpfCompileError, CaptureMatcher> {
  return E.map((c: Compiled) => c.matcher)(compiled(expression));
}

/** Compiles one pcap-filter expression. The empty expression matches every frame. */
export function compileExpression(expression: string): Either<BpfCompileError, FrameMatcher> {
  return E.map((m: CaptureMatcher): FrameMatcher => (frame) => m(frame, frame.length))(compileCaptureMatcher(expression));
}

/** Which line of a multi-line bpf filter did not compile (1-based), and the compiler's message. */
export interface BpfLineError {
  readonly line: number;
  readonly message: string;
}

/**
 * Several expressions compiled, as plain data that survives `structuredClone` and `postMessage`: a thread
 * that receives it runs it with `instantiateProgram` without compiling again. Only programs made by
 * `compileProgram` may be instantiated: their sources are run as code.
 */
export interface BpfProgram {
  /** the expression of each non-blank line, as given */
  readonly lines: readonly string[];
  /** the generated JavaScript of each of those lines, in the same order */
  readonly sources: readonly string[];
}

/** Compiles one expression per line (blank lines ignored); the Left names the first line that does not
 * compile (1-based, blank lines counted). Each line is compiled once (cached), so the cost is linear in lines. */
export function compileProgram(lines: readonly string[]): Either<BpfLineError, BpfProgram> {
  const kept: string[] = [];
  const sources: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const r = compiled(line);
    if (E.isLeft(r)) return E.left({ line: i + 1, message: r.left.message });
    kept.push(line);
    sources.push(r.right.source);
  }
  return E.right({ lines: kept, sources });
}

function anyLine(matchers: readonly CaptureMatcher[]): FrameMatcher {
  if (matchers.length === 1) {
    const only = matchers[0] as CaptureMatcher;
    return (frame) => only(frame, frame.length);
  }
  return (frame) => {
    for (const m of matchers) if (m(frame, frame.length)) return true;
    return false;
  };
}

/**
 * The matcher of a compiled program: a frame matching any line matches. Cheap: each source goes through
 * `new Function` once. Where `new Function` is not allowed (a strict Content-Security-Policy), the lines are
 * compiled again, in this thread, for the DAG interpreter.
 */
export function instantiateProgram(program: BpfProgram): FrameMatcher {
  const made: CaptureMatcher[] = [];
  for (const source of program.sources) {
    const m = instantiateSource(source);
    if (m === undefined) return anyLine(program.lines.map(compiledMatcher));
    made.push(m);
  }
  return anyLine(made);
}

/** The matcher of a line of a program (compiled again, or found in the cache). */
function compiledMatcher(line: string): CaptureMatcher {
  const r = compiled(line);
  // a program is only made by compileProgram, from lines that compiled
  if (E.isLeft(r)) throw new Error(`bpf program line does not compile: ${r.left.message}`);
  return r.right.matcher;
}

/** One matcher for several expressions, one per line (blank lines ignored): a frame matching any line matches.
 * The same as instantiating the compiled program, without generating functions again in this thread. */
export function compileLines(lines: readonly string[]): Either<BpfLineError, FrameMatcher> {
  return E.map((p: BpfProgram) => anyLine(p.lines.map(compiledMatcher)))(compileProgram(lines));
}

/** compileLines with its failure as one sentence: `Invalid BPF expression on line N: <message>`. */
export function compileExpressionLines(lines: readonly string[]): Either<string, FrameMatcher> {
  const compiledLines = compileLines(lines);
  return E.isLeft(compiledLines) ? E.left(`Invalid BPF expression on line ${compiledLines.left.line}: ${compiledLines.left.message}`) : compiledLines;
}

/** The generated JavaScript for an expression (diagnostics: `netemu bpf` and the docs show it). */
export function explainExpression(expression: string): Either<BpfCompileError, string> {
  return E.map((c: Compiled) => c.source)(compiled(expression));
}
