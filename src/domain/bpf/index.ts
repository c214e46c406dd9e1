/**
 * pcap-filter (BPF) expressions, compiled in pure TypeScript to agree with libpcap 1.10 on Ethernet frames.
 *
 * Pipeline: lexer -> parser (AST) -> semantics (IR predicate, gencode's checks and offsets) -> decision DAG
 * (libpcap's optimisations, "rejects all packets") -> code generator (a JavaScript closure). Compiled
 * expressions are cached.
 */
import * as E from "fp-ts/lib/Either.js";
import type { Either } from "fp-ts/lib/Either.js";
import { generateMatcher, generateSource } from "./codegen.js";
import type { RawMatcher } from "./codegen.js";
import { buildDag, rejectsAll } from "./dag.js";
import { BpfError } from "./errors.js";
import { parse } from "./parser.js";
import { compilePredicate } from "./semantics.js";

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

const CACHE_LIMIT = 512;
const cache = new Map<string, Either<BpfCompileError, CaptureMatcher>>();

function compileUncached(expression: string): Either<BpfCompileError, CaptureMatcher> {
  try {
    const pred = compilePredicate(parse(expression));
    const dag = buildDag(pred);
    if (rejectsAll(dag)) return E.left(compileError("expression rejects all packets"));
    const raw: RawMatcher = generateMatcher(dag.root, dag.prelude);
    return E.right(raw);
  } catch (e) {
    if (e instanceof BpfError) return E.left(compileError(e.message, e.position));
    throw e;
  }
}

/** Compiles an expression to a matcher over (captured bytes, wire length); results are cached. */
export function compileCaptureMatcher(expression: string): Either<BpfCompileError, CaptureMatcher> {
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

/** Compiles one pcap-filter expression. The empty expression matches every frame. */
export function compileExpression(expression: string): Either<BpfCompileError, FrameMatcher> {
  return E.map((m: CaptureMatcher): FrameMatcher => (frame) => m(frame, frame.length))(compileCaptureMatcher(expression));
}

/** One expression per line, blank lines ignored; matches if ANY line matches. */
/** Which line of a multi-line bpf filter did not compile (1-based), and the compiler's message. */
export interface BpfLineError {
  readonly line: number;
  readonly message: string;
}

/** One matcher for several expressions, one per line (blank lines ignored): a frame matching any line matches. */
export function compileLines(lines: readonly string[]): Either<BpfLineError, FrameMatcher> {
  const matchers: CaptureMatcher[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const r = compileCaptureMatcher(line);
    if (E.isLeft(r)) return E.left({ line: i + 1, message: r.left.message });
    matchers.push(r.right);
  }
  if (matchers.length === 1) {
    const only = matchers[0] as CaptureMatcher;
    return E.right((frame) => only(frame, frame.length));
  }
  return E.right((frame) => {
    for (const m of matchers) if (m(frame, frame.length)) return true;
    return false;
  });
}

/** compileLines with its failure as one sentence: `Invalid BPF expression on line N: <message>`. */
export function compileExpressionLines(lines: readonly string[]): Either<string, FrameMatcher> {
  const compiled = compileLines(lines);
  return E.isLeft(compiled) ? E.left(`Invalid BPF expression on line ${compiled.left.line}: ${compiled.left.message}`) : compiled;
}

/** The generated JavaScript for an expression (diagnostics: `netemu bpf` and the docs show it). */
export function explainExpression(expression: string): Either<BpfCompileError, string> {
  try {
    const dag = buildDag(compilePredicate(parse(expression)));
    if (rejectsAll(dag)) return E.left(compileError("expression rejects all packets"));
    return E.right(generateSource(dag.root, dag.prelude));
  } catch (e) {
    if (e instanceof BpfError) return E.left(compileError(e.message, e.position));
    throw e;
  }
}
