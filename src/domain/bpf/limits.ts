/**
 * The bounds on what the pcap-filter compiler accepts, so that no expression a user sends (bpf link filters
 * come over HTTP) can exhaust the stack or hold the event loop: each is checked before the work it bounds,
 * and a refusal is a `BpfCompileError` whose message names the limit. The values come from measurements on a
 * 2-vCPU VM (docs/bpf.md, "Limits"; `npm run bench:bpf-compile`): every realistic expression passes far
 * below them, and the costliest accepted expression compiles in about 100 ms.
 */
import { BpfError } from "./errors.js";

/**
 * Characters in one expression. 16 KiB holds about 900 `host a.b.c.d` terms or-ed together (the longest
 * realistic lines are lists of hosts, nets and ports: hundreds of terms); the lexer, parser and semantic
 * compiler are linear, so length alone costs a few milliseconds at most.
 */
export const MAX_EXPRESSION_LENGTH = 16_384;

/**
 * Levels of nesting: parentheses, brackets, `not`, unary minus and arithmetic operators (`a + b + c` is two
 * levels deep). Every recursive stage of the compiler recurses at most once per level (and/or chains are
 * walked in loops), so 64 keeps every stack a few hundred frames deep; hand-written filters nest fewer than
 * ten levels. libpcap's own parser stops at 10 000 (bison's stack).
 */
export const MAX_NESTING = 64;

/**
 * `geneve` primitives in one expression. Each looks inside the tunnel the one before it found, and the offsets
 * inside a tunnel are computed from the offsets of the tunnel around it, so values nest three levels per
 * tunnel. Real captures nest one tunnel, rarely two.
 */
export const MAX_GENEVE = 16;

/**
 * Steps of work after parsing: predicate nodes built, specialisations threaded (each with the facts it
 * carries), nodes walked by the pull-ups, and generated code (16 characters a step). Deterministic: counted,
 * never timed. Measured (`npm run bench:bpf-compile`): 500 000 steps take 50 to 100 ms whatever the
 * expression, while 880 hosts (16 KiB), 650 ports, 400 port ranges or 200 `(host and port)` pairs or-ed
 * together stay below it, and one-line filters need a few hundred steps.
 */
export const MAX_COMPILE_WORK = 500_000;

export const nestingMessage = `expression nests deeper than ${MAX_NESTING} levels (parentheses, brackets, not, unary minus, arithmetic operators)`;
export const geneveMessage = `expression has more than ${MAX_GENEVE} geneve primitives (each looks inside the tunnel of the one before)`;

/** Refuses an expression longer than MAX_EXPRESSION_LENGTH, before anything reads it. */
export function checkLength(expression: string): void {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new BpfError(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`, MAX_EXPRESSION_LENGTH);
  }
}

/** Counts compile steps and refuses the expression once more than `limit` (MAX_COMPILE_WORK) are spent. */
export class WorkBudget {
  private spent = 0;

  constructor(private readonly limit: number = MAX_COMPILE_WORK) {}

  spend(steps: number): void {
    this.spent += steps;
    if (this.spent > this.limit) {
      throw new BpfError(`expression is too complex to compile (more than ${this.limit} steps of optimisation and code generation)`);
    }
  }

  /** Steps spent so far (the benchmark and the tests measure expressions with it). */
  get used(): number {
    return this.spent;
  }
}
