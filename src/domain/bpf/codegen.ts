/**
 * Code generator: decision DAG -> a JavaScript function `(bytes, wirelen) => boolean`.
 *
 * Each test becomes an `if`; a node reached from one place is inlined, a node shared by several becomes a
 * local function (BPF's forward jumps). A load past the captured bytes or a division by zero returns
 * false from the whole function, as BPF's `ret #0`. Bounds already checked on the way to a node are not
 * checked again. The source is compiled once with `new Function`; where that is not allowed (a strict
 * Content-Security-Policy), the matcher falls back to the DAG interpreter.
 *
 * Chains are emitted in loops: a test with a leaf or a shared node on one side is `if (cond) return ...;`
 * (or `if (!(cond)) return ...;`) followed by the other side, so `host a or host b or ...` is a flat list
 * of `if`s. Only a test with inlined code on both sides opens a block; past MAX_BLOCK_DEPTH blocks the inner
 * side becomes a function, which bounds both this generator's recursion and the nesting of the code handed
 * to `new Function`. A Geneve offset is computed once in a block and reused below it: every offset inside a
 * tunnel is written in terms of the offsets of the tunnel around it, so recomputing them doubled the code
 * with every tunnel.
 */
import type { Node } from "./dag.js";
import { interpret, nodesOf } from "./dag.js";
import type { Val } from "./ir.js";
import { valKey } from "./ir.js";
import { WorkBudget } from "./limits.js";
import { geneveOffset, walkChain } from "./runtime.js";

type RawMatcher = (bytes: Uint8Array, wirelen: number) => boolean;

/** Blocks nested in one generated function before the inner code moves to a function of its own. */
const MAX_BLOCK_DEPTH = 16;

/** Variables holding Geneve offsets already computed, by value key, in a block and the blocks around it. */
class Scope {
  private readonly vars = new Map<string, string>();

  constructor(private readonly outer?: Scope) {}

  lookup(key: string): string | undefined {
    return this.vars.get(key) ?? this.outer?.lookup(key);
  }

  set(key: string, name: string): void {
    this.vars.set(key, name);
  }
}

class Emitter {
  private tmp = 0;
  /** nodes emitted as functions: the shared ones, and the ones moved out of deep blocks */
  private readonly called = new Set<number>();
  readonly functions: string[] = [];

  private readonly index = new Map<number, Node>();

  constructor(
    root: Node,
    private readonly budget: WorkBudget,
  ) {
    const parents = new Map<number, number>();
    for (const n of nodesOf(root)) {
      this.index.set(n.id, n);
      if (n.kind !== "test") continue;
      for (const c of [n.t, n.f]) parents.set(c.id, (parents.get(c.id) ?? 0) + 1);
    }
    budget.spend(this.index.size);
    for (const [id, count] of parents) if (count > 1 && this.index.get(id)?.kind === "test") this.called.add(id);
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.tmp++}`;
  }

  private emit(out: string[], line: string): void {
    // by size: a line holds a whole value, and a value of long arithmetic is long
    this.budget.spend(1 + (line.length >>> 4));
    out.push(line);
  }

  /** Emits the statements of values computed only for their loads. */
  prelude(vals: readonly Val[], out: string[], indent: string, scope: Scope): number {
    const known = { len: 0 };
    for (const v of vals) {
      const e = this.val(v, out, indent, known, scope);
      this.emit(out, `${indent}void ${e};`);
    }
    return known.len;
  }

  /** Emits statements computing `v` into `out`; returns the JS expression of its value. */
  private val(v: Val, out: string[], indent: string, known: { len: number }, scope: Scope): string {
    switch (v.t) {
      case "k": return `${v.v}`;
      case "len": return "w";
      case "acc0": return "0";
      case "iphl": {
        if (known.len < v.off + 1) {
          this.emit(out, `${indent}if (n < ${v.off + 1}) return false;`);
          known.len = v.off + 1;
        }
        const h = this.fresh("h");
        this.emit(out, `${indent}const ${h} = (p[${v.off}] & 15) << 2;`);
        return h;
      }
      case "ld": {
        if (v.index === undefined) {
          // A 2- or 4-byte field is read once per block and kept: a list of hosts compares the same
          // address with each, and before V8 optimises a big filter (seconds, ADR 0075) every read costs.
          const key = `ld${v.base}:${v.size}`;
          const kept = v.size === 1 ? undefined : scope.lookup(key);
          if (kept !== undefined) return kept;
          if (known.len < v.base + v.size) {
            this.emit(out, `${indent}if (n < ${v.base + v.size}) return false;`);
            known.len = v.base + v.size;
          }
          const at = (i: number): string => `p[${v.base + i}]`;
          if (v.size === 1) return this.bytes(v.size, at);
          const r = this.fresh("v");
          this.emit(out, `${indent}const ${r} = ${this.bytes(v.size, at)};`);
          scope.set(key, r);
          return r;
        }
        const idx = this.val(v.index, out, indent, known, scope);
        const o = this.fresh("o");
        this.emit(out, `${indent}const ${o} = ${idx} + ${v.base};`);
        this.emit(out, `${indent}if (${o} + ${v.size} > n) return false;`);
        return this.bytes(v.size, (i) => (i === 0 ? `p[${o}]` : `p[${o} + ${i}]`));
      }
      case "neg": return `((-${this.val(v.a, out, indent, known, scope)}) >>> 0)`;
      case "geneve": {
        const key = valKey(v);
        const computed = scope.lookup(key);
        if (computed !== undefined) return computed;
        // runtime.ts's geneveOffset, passed in as `g`
        const lt = this.val(v.lt, out, indent, known, scope);
        const nl = this.val(v.nl, out, indent, known, scope);
        const r = this.fresh("g");
        this.emit(out, `${indent}const ${r} = g("${v.which}", "${v.outer}", ${lt}, ${nl}, ${v.vni ?? "undefined"}, p);`);
        this.emit(out, `${indent}if (${r} === undefined) return false;`);
        scope.set(key, r);
        return r;
      }
      case "chain": {
        // the walk is the only loop; it is runtime.ts's walkChain, passed in as `c`
        const r = this.fresh("c");
        this.emit(out, `${indent}const ${r} = c(${v.v6}, ${v.nl}, ${v.target}, p);`);
        this.emit(out, `${indent}if (${r} === undefined) return false;`);
        return r;
      }
      case "bin": {
        const a = this.val(v.a, out, indent, known, scope);
        const b = this.val(v.b, out, indent, known, scope);
        switch (v.op) {
          case "add": return `((${a} + ${b}) >>> 0)`;
          case "sub": return `((${a} - ${b}) >>> 0)`;
          case "mul": return `(Math.imul(${a}, ${b}) >>> 0)`;
          case "div":
          case "mod": {
            const d = this.fresh("d");
            this.emit(out, `${indent}const ${d} = ${b};`);
            this.emit(out, `${indent}if (${d} === 0) return false;`);
            return v.op === "div" ? `((${a} / ${d}) >>> 0)` : `(${a} % ${d})`;
          }
          case "and": return `((${a} & ${b}) >>> 0)`;
          case "or": return `((${a} | ${b}) >>> 0)`;
          case "xor": return `((${a} ^ ${b}) >>> 0)`;
          case "lsh": {
            const s = this.fresh("s");
            this.emit(out, `${indent}const ${s} = ${b};`);
            return `(${s} < 32 ? (${a} << ${s}) >>> 0 : 0)`;
          }
          case "rsh": {
            const s = this.fresh("s");
            this.emit(out, `${indent}const ${s} = ${b};`);
            return `(${s} < 32 ? ${a} >>> ${s} : 0)`;
          }
        }
      }
    }
  }

  private bytes(size: 1 | 2 | 4, at: (i: number) => string): string {
    if (size === 1) return at(0);
    if (size === 2) return `((${at(0)} << 8) | ${at(1)})`;
    return `(((${at(0)} << 24) | (${at(1)} << 16) | (${at(2)} << 8) | ${at(3)}) >>> 0)`;
  }

  /** A leaf, or a node emitted as a function: one `return` statement ends the code there. */
  private ends(n: Node): boolean {
    return n.kind === "leaf" || this.called.has(n.id);
  }

  private finish(n: Node): string {
    if (n.kind === "leaf") return `return ${n.value};`;
    return `return f${n.id}(p, n, w);`;
  }

  /**
   * Code that finishes the filter from node `start`, knowing `knownLen` captured bytes exist. `own` is the
   * node a function is emitted for (inlined there, called everywhere else).
   */
  body(start: Node, knownLen: number, out: string[], indent: string, depth: number, scope: Scope, own?: Node): void {
    const known = { len: knownLen };
    let n = start;
    for (;;) {
      if (n.kind === "leaf" || (n !== own && this.called.has(n.id))) {
        this.emit(out, `${indent}${this.finish(n)}`);
        return;
      }
      const a = this.val(n.a, out, indent, known, scope);
      const b = this.val(n.b, out, indent, known, scope);
      let cond: string;
      switch (n.op) {
        case "eq": cond = `${a} === ${b}`; break;
        case "gt": cond = `${a} > ${b}`; break;
        case "ge": cond = `${a} >= ${b}`; break;
        case "set": cond = `(${a} & ${b}) !== 0`; break;
      }
      if (this.ends(n.t)) {
        this.emit(out, `${indent}if (${cond}) ${this.finish(n.t)}`);
        n = n.f;
      } else if (this.ends(n.f)) {
        this.emit(out, `${indent}if (!(${cond})) ${this.finish(n.f)}`);
        n = n.t;
      } else if (depth >= MAX_BLOCK_DEPTH) {
        this.called.add(n.t.id);
        this.emit(out, `${indent}if (${cond}) ${this.finish(n.t)}`);
        n = n.f;
      } else {
        this.emit(out, `${indent}if (${cond}) {`);
        this.body(n.t, known.len, out, `${indent}  `, depth + 1, new Scope(scope));
        this.emit(out, `${indent}}`);
        n = n.f;
      }
    }
  }

  /** Emits a function for every node called (the set grows as deep blocks move out; iteration sees that). */
  emitFunctions(): void {
    for (const id of this.called) {
      const node = this.index.get(id);
      if (node === undefined || node.kind !== "test") continue;
      const out: string[] = [];
      this.body(node, 0, out, "  ", 0, new Scope(), node);
      this.functions.push(`function f${id}(p, n, w) {`, ...out, "}");
    }
  }
}

/** JavaScript source of the matcher's body (a factory of the matcher, given runtime.ts's helpers as `c` and `g`),
 * spending `budget` (limits.ts) on every statement. */
export function generateSource(root: Node, prelude: readonly Val[] = [], budget: WorkBudget = new WorkBudget()): string {
  const e = new Emitter(root, budget);
  const main: string[] = [];
  const scope = new Scope();
  const knownLen = e.prelude(prelude, main, "  ", scope);
  e.body(root, knownLen, main, "  ", 0, scope, root);
  e.emitFunctions();
  return ['"use strict";', ...e.functions, "return function match(p, w) {", "  const n = p.length;", ...main, "};"].join("\n");
}

/** Runs a generated source: the matcher it makes, or undefined where `new Function` is not allowed. */
export function instantiateSource(source: string): RawMatcher | undefined {
  try {
    const factory = new Function("c", "g", source) as (chain: typeof walkChain, geneve: typeof geneveOffset) => RawMatcher;
    return factory(walkChain, geneveOffset);
  } catch {
    return undefined;
  }
}

/** Compiles the DAG to a fast matcher; falls back to the interpreter where `new Function` is not allowed. */
export function generateMatcher(root: Node, prelude: readonly Val[] = [], budget: WorkBudget = new WorkBudget()): RawMatcher {
  return instantiateSource(generateSource(root, prelude, budget)) ?? ((bytes, wirelen) => interpret(root, bytes, wirelen, prelude));
}
