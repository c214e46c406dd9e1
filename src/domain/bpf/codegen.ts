/**
 * Code generator: decision DAG -> a JavaScript function `(bytes, wirelen) => boolean`.
 *
 * Each test becomes an `if`; a node reached from one place is inlined, a node shared by several becomes a
 * local function (BPF's forward jumps). A load past the captured bytes or a division by zero returns
 * false from the whole function, as BPF's `ret #0`. Bounds already checked on the way to a node are not
 * checked again. The source is compiled once with `new Function`; where that is not allowed (a strict
 * Content-Security-Policy), the matcher falls back to the DAG interpreter.
 */
import type { Node } from "./dag.js";
import { interpret, nodesOf } from "./dag.js";
import type { Val } from "./ir.js";
import { geneveOffset, walkChain } from "./runtime.js";

export type RawMatcher = (bytes: Uint8Array, wirelen: number) => boolean;

class Emitter {
  private tmp = 0;
  private readonly parents = new Map<number, number>();
  private readonly shared = new Set<number>();
  readonly functions: string[] = [];

  constructor(root: Node) {
    for (const n of nodesOf(root)) {
      if (n.kind !== "test") continue;
      for (const c of [n.t, n.f]) this.parents.set(c.id, (this.parents.get(c.id) ?? 0) + 1);
    }
    for (const [id, count] of this.parents) if (count > 1) this.shared.add(id);
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.tmp++}`;
  }

  /** Emits the statements of values computed only for their loads. */
  prelude(vals: readonly Val[], out: string[]): number {
    const known = { len: 0 };
    for (const v of vals) {
      const e = this.val(v, out, known);
      out.push(`void ${e};`);
    }
    return known.len;
  }

  /** Emits statements computing `v` into `out`; returns the JS expression of its value. */
  private val(v: Val, out: string[], known: { len: number }): string {
    switch (v.t) {
      case "k": return `${v.v}`;
      case "len": return "w";
      case "acc0": return "0";
      case "iphl": {
        if (known.len < v.off + 1) {
          out.push(`if (n < ${v.off + 1}) return false;`);
          known.len = v.off + 1;
        }
        const h = this.fresh("h");
        out.push(`const ${h} = (p[${v.off}] & 15) << 2;`);
        return h;
      }
      case "ld": {
        if (v.index === undefined) {
          if (known.len < v.base + v.size) {
            out.push(`if (n < ${v.base + v.size}) return false;`);
            known.len = v.base + v.size;
          }
          const at = (i: number): string => `p[${v.base + i}]`;
          return this.bytes(v.size, at);
        }
        const idx = this.val(v.index, out, known);
        const o = this.fresh("o");
        out.push(`const ${o} = ${idx} + ${v.base};`);
        out.push(`if (${o} + ${v.size} > n) return false;`);
        return this.bytes(v.size, (i) => (i === 0 ? `p[${o}]` : `p[${o} + ${i}]`));
      }
      case "neg": return `((-${this.val(v.a, out, known)}) >>> 0)`;
      case "geneve": {
        // runtime.ts's geneveOffset, passed in as `g`
        const lt = this.val(v.lt, out, known);
        const nl = this.val(v.nl, out, known);
        const r = this.fresh("g");
        out.push(`const ${r} = g("${v.which}", "${v.outer}", ${lt}, ${nl}, ${v.vni ?? "undefined"}, p);`);
        out.push(`if (${r} === undefined) return false;`);
        return r;
      }
      case "chain": {
        // the walk is the only loop; it is runtime.ts's walkChain, passed in as `c`
        const r = this.fresh("c");
        out.push(`const ${r} = c(${v.v6}, ${v.nl}, ${v.target}, p);`);
        out.push(`if (${r} === undefined) return false;`);
        return r;
      }
      case "bin": {
        const a = this.val(v.a, out, known);
        const b = this.val(v.b, out, known);
        switch (v.op) {
          case "add": return `((${a} + ${b}) >>> 0)`;
          case "sub": return `((${a} - ${b}) >>> 0)`;
          case "mul": return `(Math.imul(${a}, ${b}) >>> 0)`;
          case "div":
          case "mod": {
            const d = this.fresh("d");
            out.push(`const ${d} = ${b};`);
            out.push(`if (${d} === 0) return false;`);
            return v.op === "div" ? `((${a} / ${d}) >>> 0)` : `(${a} % ${d})`;
          }
          case "and": return `((${a} & ${b}) >>> 0)`;
          case "or": return `((${a} | ${b}) >>> 0)`;
          case "xor": return `((${a} ^ ${b}) >>> 0)`;
          case "lsh": {
            const s = this.fresh("s");
            out.push(`const ${s} = ${b};`);
            return `(${s} < 32 ? (${a} << ${s}) >>> 0 : 0)`;
          }
          case "rsh": {
            const s = this.fresh("s");
            out.push(`const ${s} = ${b};`);
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

  /** Code that finishes the filter from node `n`, knowing `knownLen` captured bytes exist. */
  body(n: Node, knownLen: number, out: string[], top: boolean): void {
    if (n.kind === "leaf") {
      out.push(`return ${n.value};`);
      return;
    }
    if (!top && this.shared.has(n.id)) {
      out.push(`return f${n.id}(p, n, w);`);
      return;
    }
    const known = { len: knownLen };
    const a = this.val(n.a, out, known);
    const b = this.val(n.b, out, known);
    let cond: string;
    switch (n.op) {
      case "eq": cond = `${a} === ${b}`; break;
      case "gt": cond = `${a} > ${b}`; break;
      case "ge": cond = `${a} >= ${b}`; break;
      case "set": cond = `(${a} & ${b}) !== 0`; break;
    }
    const thenPart: string[] = [];
    this.body(n.t, known.len, thenPart, false);
    const elsePart: string[] = [];
    this.body(n.f, known.len, elsePart, false);
    out.push(`if (${cond}) {`, ...thenPart.map((l) => `  ${l}`), "}", ...elsePart);
  }

  emitShared(): void {
    for (const id of this.shared) {
      const node = this.findNode(id);
      if (node === undefined || node.kind !== "test") continue;
      const out: string[] = [];
      this.body(node, 0, out, true);
      this.functions.push(`function f${id}(p, n, w) {`, ...out.map((l) => `  ${l}`), "}");
    }
  }

  private nodeIndex = new Map<number, Node>();

  index(root: Node): void {
    for (const n of nodesOf(root)) this.nodeIndex.set(n.id, n);
  }

  private findNode(id: number): Node | undefined {
    return this.nodeIndex.get(id);
  }
}

/** JavaScript source of the matcher's body (for tests and debugging). */
export function generateSource(root: Node, prelude: readonly Val[] = []): string {
  const e = new Emitter(root);
  e.index(root);
  e.emitShared();
  const main: string[] = [];
  const knownLen = e.prelude(prelude, main);
  e.body(root, knownLen, main, true);
  return [
    '"use strict";',
    ...e.functions,
    "return function match(p, w) {",
    "  const n = p.length;",
    ...main.map((l) => `  ${l}`),
    "};",
  ].join("\n");
}

/** Compiles the DAG to a fast matcher; falls back to the interpreter where `new Function` is not allowed. */
export function generateMatcher(root: Node, prelude: readonly Val[] = []): RawMatcher {
  const source = generateSource(root, prelude);
  try {
    const factory = new Function("c", "g", source) as (chain: typeof walkChain, geneve: typeof geneveOffset) => RawMatcher;
    return factory(walkChain, geneveOffset);
  } catch {
    return (bytes, wirelen) => interpret(root, bytes, wirelen, prelude);
  }
}
