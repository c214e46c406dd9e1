/**
 * Decision DAG: the predicate as a graph of tests with a true and a false successor, like a BPF program's
 * control-flow graph, plus the optimisations of libpcap's optimizer that change what a filter accepts:
 *
 * - a test whose two successors are the same node is dropped, together with its loads (so a short frame
 *   that would fail that load is no longer rejected by it);
 * - along every path, a test whose outcome is already known is skipped: the same comparison was made
 *   before, or the value was found equal to another constant (libpcap's jump threading over value numbers).
 *
 * If no path reaches "match" the expression is refused, as libpcap refuses it ("expression rejects all
 * packets"). The DAG is then run by the interpreter here or compiled to JavaScript by codegen.ts.
 */
import type { CmpOp, Pred, Val } from "./ir.js";
import { constantOutcome, isPlainConstant, unfolded, unoptimizable, valKey } from "./ir.js";
import { geneveOffset, walkChain } from "./runtime.js";

export type Node =
  | { readonly kind: "leaf"; readonly id: number; readonly value: boolean }
  | {
      readonly kind: "test";
      readonly id: number;
      readonly op: CmpOp;
      readonly a: Val;
      readonly b: Val;
      /** canonical text of the comparison */
      readonly key: string;
      /** canonical text of the left value (for equality facts) */
      readonly aKey: string;
      readonly t: Node;
      readonly f: Node;
    };

type TestNode = Extract<Node, { kind: "test" }>;

class Builder {
  private nextId = 2;
  private readonly cons = new Map<string, Node>();
  readonly yes: Node = { kind: "leaf", id: 1, value: true };
  readonly no: Node = { kind: "leaf", id: 0, value: false };

  test(op: CmpOp, a: Val, b: Val, key: string, aKey: string, t: Node, f: Node): Node {
    if (t === f) return t;
    const ck = `${key}|${t.id}|${f.id}`;
    const found = this.cons.get(ck);
    if (found !== undefined) return found;
    const node: Node = { kind: "test", id: this.nextId++, op, a, b, key, aKey, t, f };
    this.cons.set(ck, node);
    return node;
  }

  from(node: TestNode, t: Node, f: Node): Node {
    return this.test(node.op, node.a, node.b, node.key, node.aKey, t, f);
  }

  build(p: Pred, t: Node, f: Node): Node {
    switch (p.t) {
      case "true": return t;
      case "false": return f;
      case "and": return this.build(p.a, this.build(p.b, t, f), f);
      case "or": return this.build(p.a, t, this.build(p.b, t, f));
      case "not": return this.build(p.a, f, t);
      case "cmp": {
        const aKey = valKey(p.a);
        return this.test(p.op, p.a, p.b, `${aKey} ${p.op} ${valKey(p.b)}`, aKey, t, f);
      }
    }
  }
}

/** What is known on a path: outcomes of tests made, and values found equal to a constant. */
interface Facts {
  readonly tests: ReadonlyMap<string, boolean>;
  readonly equal: ReadonlyMap<string, number>;
  readonly key: string;
}

const NO_FACTS: Facts = { tests: new Map(), equal: new Map(), key: "" };

function known(facts: Facts, n: TestNode): boolean | undefined {
  const direct = facts.tests.get(n.key);
  if (direct !== undefined) return direct;
  if (n.op === "eq" && isPlainConstant(n.b)) {
    const eq = facts.equal.get(n.aKey);
    if (eq !== undefined) return eq === n.b.v;
  }
  return undefined;
}

function learn(facts: Facts, n: TestNode, outcome: boolean): Facts {
  const tests = new Map(facts.tests);
  tests.set(n.key, outcome);
  let equal = facts.equal;
  if (outcome && n.op === "eq" && isPlainConstant(n.b)) {
    const e = new Map(facts.equal);
    e.set(n.aKey, n.b.v);
    equal = e;
  }
  const entries = [...tests.entries()].map(([key, v]) => `${v ? "+" : "-"}${key}`).sort();
  return { tests, equal, key: entries.join(";") };
}

class TooBig extends Error {}

/** Threads every path through the facts it establishes; bails out (returns undefined) past `limit` steps. */
function specialize(b: Builder, root: Node, limit: number): Node | undefined {
  const memo = new Map<string, Node>();
  let steps = 0;
  const go = (n: Node, facts: Facts): Node => {
    if (n.kind === "leaf") return n;
    const mk = `${n.id}@${facts.key}`;
    const hit = memo.get(mk);
    if (hit !== undefined) return hit;
    if (++steps > limit) throw new TooBig();
    const k = known(facts, n);
    let out: Node;
    if (k !== undefined) out = go(k ? n.t : n.f, facts);
    else out = b.from(n, go(n.t, learn(facts, n, true)), go(n.f, learn(facts, n, false)));
    memo.set(mk, out);
    return out;
  };
  try {
    return go(root, NO_FACTS);
  } catch (e) {
    if (e instanceof TooBig) return undefined;
    throw e;
  }
}

interface Dag {
  readonly root: Node;
  /**
   * Values computed before the root (only for their loads): libpcap's opt_root keeps the statements of the
   * program's first block when that block's test is optimised away, unless the program is a bare return.
   */
  readonly prelude: readonly Val[];
  /** false when the path analysis was too large to finish (the DAG is then unthreaded, but still correct) */
  readonly threaded: boolean;
  /** false for an expression with `protochain` or `geneve`: libpcap does not optimise a program with a loop
   * or an unconditional jump, so it runs the tests as written, keeps every load and never says "rejects all
   * packets" */
  readonly optimized: boolean;
}

// ---- libpcap's or_pullup / and_pullup ---------------------------------------------------------------

interface MTest {
  readonly kind: "test";
  readonly id: number;
  readonly op: CmpOp;
  readonly a: Val;
  readonly b: Val;
  readonly key: string;
  readonly aKey: string;
  t: MNode;
  f: MNode;
}
type MNode = MTest | Extract<Node, { kind: "leaf" }>;

function toMutable(root: Node): MNode {
  const memo = new Map<number, MNode>();
  const go = (n: Node): MNode => {
    const hit = memo.get(n.id);
    if (hit !== undefined) return hit;
    if (n.kind === "leaf") {
      memo.set(n.id, n);
      return n;
    }
    const m: MTest = { ...n, t: n.t as MNode, f: n.f as MNode };
    memo.set(n.id, m);
    m.t = go(n.t);
    m.f = go(n.f);
    return m;
  };
  return go(root);
}

function fromMutable(b: Builder, root: MNode): Node {
  const memo = new Map<number, Node>();
  const go = (n: MNode): Node => {
    if (n.kind === "leaf") return n.value ? b.yes : b.no;
    const hit = memo.get(n.id);
    if (hit !== undefined) return hit;
    const out = b.test(n.op, n.a, n.b, n.key, n.aKey, go(n.t), go(n.f));
    memo.set(n.id, out);
    return out;
  };
  return go(root);
}

/**
 * One or_pullup/and_pullup step (libpcap optimize.c): in a chain of tests that share their true (or) or
 * false (and) successor, a test on the value its predecessors compared is moved up, before the first test
 * on another value. This moves loads earlier, which is visible on short frames.
 */
function pullupOnce(root: MNode): boolean {
  const all = nodesOf(root as Node) as MNode[];
  const tests = all.filter((n): n is MTest => n.kind === "test");
  const preds = new Map<number, MTest[]>();
  for (const n of tests) {
    for (const c of n.t === n.f ? [n.t] : [n.t, n.f]) {
      const list = preds.get(c.id) ?? [];
      list.push(n);
      preds.set(c.id, list);
    }
  }
  // topological order (parents first) and dominators
  const indeg = new Map<number, number>();
  for (const n of all) indeg.set(n.id, (preds.get(n.id) ?? []).length);
  const topo: MNode[] = [];
  const queue: MNode[] = [root];
  while (queue.length > 0) {
    const n = queue.shift() as MNode;
    topo.push(n);
    if (n.kind !== "test") continue;
    for (const c of n.t === n.f ? [n.t] : [n.t, n.f]) {
      const d = (indeg.get(c.id) ?? 0) - 1;
      indeg.set(c.id, d);
      if (d === 0) queue.push(c);
    }
  }
  const dom = new Map<number, Set<number>>();
  for (const n of topo) {
    const ps = preds.get(n.id) ?? [];
    let set: Set<number> | undefined;
    for (const p of ps) {
      const dp = dom.get(p.id) ?? new Set<number>();
      set = set === undefined ? new Set(dp) : new Set([...set].filter((x) => dp.has(x)));
    }
    const out = set ?? new Set<number>();
    out.add(n.id);
    dom.set(n.id, out);
  }
  const level = new Map<number, number>();
  for (let i = topo.length - 1; i >= 0; i--) {
    const n = topo[i] as MNode;
    level.set(n.id, n.kind === "leaf" ? 0 : 1 + Math.max(level.get(n.t.id) ?? 0, level.get(n.f.id) ?? 0));
  }
  const order = [...tests].sort((x, y) => (level.get(x.id) ?? 0) - (level.get(y.id) ?? 0));
  const dominates = (b: MTest, x: MNode): boolean => dom.get(x.id)?.has(b.id) ?? false;

  const tryPull = (b: MTest, mode: "or" | "and"): boolean => {
    const ps = preds.get(b.id) ?? [];
    const first = ps[0];
    if (first === undefined) return false;
    const val = first.aKey;
    if (ps.some((p) => p.aKey !== val)) return false;
    const same = (x: MTest): MNode => (mode === "or" ? x.t : x.f);
    const next = (x: MTest): MNode => (mode === "or" ? x.f : x.t);
    const setNext = (x: MTest, v: MNode): void => {
      if (mode === "or") x.f = v;
      else x.t = v;
    };
    let atTop = true;
    let diffOwner: MTest | undefined;
    let diff: MNode = b;
    for (;;) {
      if (diff.kind !== "test") return false;
      if (same(diff) !== same(b)) return false;
      if (!dominates(b, diff)) return false;
      if (diff.aKey !== val) break;
      diffOwner = diff;
      diff = next(diff);
      atTop = false;
    }
    let sameOwner: MTest = diff;
    let s: MNode = next(diff);
    for (;;) {
      if (s.kind !== "test") return false;
      if (same(s) !== same(b)) return false;
      if (!dominates(b, s)) return false;
      if (s.aKey === val) break;
      sameOwner = s;
      s = next(s);
    }
    const pull = s;
    setNext(sameOwner, next(pull));
    setNext(pull, diff);
    if (atTop) {
      for (const p of ps) {
        if (p.t === b) p.t = pull;
        if (p.f === b) p.f = pull;
      }
    } else if (diffOwner !== undefined) {
      setNext(diffOwner, pull);
    }
    return true;
  };

  for (const b of order) {
    if (b === root) continue;
    if (tryPull(b, "or") || tryPull(b, "and")) return true;
  }
  return false;
}

/** Builds the optimised decision DAG of a predicate. */
export function buildDag(p: Pred, limit = 50_000): Dag {
  const b = new Builder();
  if (unoptimizable(p)) return { root: b.build(unfolded(p), b.yes, b.no), threaded: false, prelude: [], optimized: false };
  const plain = b.build(p, b.yes, b.no);
  const first = firstTest(p);
  const withPrelude = (root: Node, threaded: boolean): Dag => {
    const keep = first !== undefined && root.kind === "test" && root.key !== first.key;
    return { root, threaded, optimized: true, prelude: keep && first !== undefined ? [first.a, first.b] : [] };
  };
  let root = specialize(b, plain, limit);
  if (root === undefined) return withPrelude(plain, false);
  for (let round = 0; round < 8; round++) {
    const m = toMutable(root);
    let changed = false;
    for (let step = 0; step < 500 && pullupOnce(m); step++) changed = true;
    if (!changed) break;
    const next = specialize(b, fromMutable(b, m), limit);
    if (next === undefined) return withPrelude(fromMutable(b, m), true);
    root = next;
  }
  return withPrelude(root, true);
}

/** The comparison libpcap evaluates first (its root block), if the program starts with one that loads. */
function firstTest(p: Pred): { a: Val; b: Val; key: string } | undefined {
  let q = p;
  while (q.t === "and" || q.t === "or" || q.t === "not") q = q.a;
  if (q.t !== "cmp") return undefined;
  return { a: q.a, b: q.b, key: `${valKey(q.a)} ${q.op} ${valKey(q.b)}` };
}

/**
 * True when no frame can match (libpcap: "expression rejects all packets"). libpcap folds the tests between
 * values that are only constant once computed (`len * 0 = 1`) after its jump threading, and then only
 * follows them from the program's first test (opt_root): `0 * len = 1` is refused, `ip and 0 * len = 1` is
 * accepted and matches nothing.
 */
export function rejectsAll(dag: Dag): boolean {
  if (!dag.optimized) return false;
  let n = dag.root;
  while (n.kind === "test") {
    const outcome = constantOutcome(n.op, n.a, n.b);
    if (outcome === undefined) return false;
    n = outcome ? n.t : n.f;
  }
  return !n.value;
}

/** All nodes of the DAG, each once, parents before children. */
export function nodesOf(root: Node): Node[] {
  const seen = new Set<number>();
  const order: Node[] = [];
  const visit = (n: Node): void => {
    if (seen.has(n.id)) return;
    seen.add(n.id);
    order.push(n);
    if (n.kind === "test") {
      visit(n.t);
      visit(n.f);
    }
  };
  visit(root);
  return order;
}

// ---- reference interpreter ---------------------------------------------------------------------------

const REJECT = Symbol("reject");

function evalVal(v: Val, p: Uint8Array, wirelen: number): number {
  switch (v.t) {
    case "k": return v.v;
    case "len": return wirelen;
    case "acc0": return 0;
    case "iphl": {
      const byte = p[v.off];
      if (v.off >= p.length || byte === undefined) throw REJECT;
      return (byte & 0x0f) << 2;
    }
    case "ld": {
      const off = v.base + (v.index === undefined ? 0 : evalVal(v.index, p, wirelen));
      if (off + v.size > p.length) throw REJECT;
      let x = 0;
      for (let i = 0; i < v.size; i++) x = x * 256 + (p[off + i] ?? 0);
      return x;
    }
    case "neg": return (-evalVal(v.a, p, wirelen)) >>> 0;
    case "chain": {
      const reached = walkChain(v.v6, v.nl, v.target, p);
      if (reached === undefined) throw REJECT;
      return reached;
    }
    case "geneve": {
      const off = geneveOffset(v.which, v.outer, evalVal(v.lt, p, wirelen), evalVal(v.nl, p, wirelen), v.vni, p);
      if (off === undefined) throw REJECT;
      return off;
    }
    case "bin": {
      const a = evalVal(v.a, p, wirelen);
      const b = evalVal(v.b, p, wirelen);
      switch (v.op) {
        case "add": return (a + b) >>> 0;
        case "sub": return (a - b) >>> 0;
        case "mul": return Math.imul(a, b) >>> 0;
        case "div":
          if (b === 0) throw REJECT;
          return Math.floor(a / b) >>> 0;
        case "mod":
          if (b === 0) throw REJECT;
          return a % b;
        case "and": return (a & b) >>> 0;
        case "or": return (a | b) >>> 0;
        case "xor": return (a ^ b) >>> 0;
        case "lsh": return b < 32 ? (a << b) >>> 0 : 0;
        case "rsh": return b < 32 ? a >>> b : 0;
      }
    }
  }
}

/** Runs the DAG on a frame: `p` = the captured bytes, `wirelen` = the frame's length on the wire. */
export function interpret(root: Node, p: Uint8Array, wirelen: number, prelude: readonly Val[] = []): boolean {
  let n = root;
  try {
    for (const v of prelude) evalVal(v, p, wirelen);
    while (n.kind === "test") {
      const a = evalVal(n.a, p, wirelen);
      const b = evalVal(n.b, p, wirelen);
      let r: boolean;
      switch (n.op) {
        case "eq": r = a === b; break;
        case "gt": r = a > b; break;
        case "ge": r = a >= b; break;
        case "set": r = (a & b) !== 0; break;
      }
      n = r ? n.t : n.f;
    }
    return n.value;
  } catch (e) {
    if (e === REJECT) return false;
    throw e;
  }
}
