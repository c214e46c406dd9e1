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
import { alu, constantOutcome, isPlainConstant, unfolded, unoptimizable, valKey } from "./ir.js";
import { WorkBudget } from "./limits.js";
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
  /** nodes by comparison key, then by their successors' ids (no string made per lookup: a node's key is one
   * string, whose hash is kept, however many times the node is specialised) */
  private readonly cons = new Map<string, Map<number, Node>>();
  readonly yes: Node = { kind: "leaf", id: 1, value: true };
  readonly no: Node = { kind: "leaf", id: 0, value: false };

  constructor(readonly budget: WorkBudget) {}

  /** A test node, shared with an equal one (hash-consing). Children are always made before their parents,
   * so ids are a topological order of every DAG built here: a node's descendants have smaller ids. */
  test(op: CmpOp, a: Val, b: Val, key: string, aKey: string, t: Node, f: Node): Node {
    if (t === f) return t;
    let bySuccessors = this.cons.get(key);
    if (bySuccessors === undefined) {
      bySuccessors = new Map();
      this.cons.set(key, bySuccessors);
    }
    // every node made costs a step of the budget, so ids stay far below 2^26 and the pair is exact in a double
    const successors = t.id * 0x4000000 + f.id;
    const found = bySuccessors.get(successors);
    if (found !== undefined) return found;
    const node: Node = { kind: "test", id: this.nextId++, op, a, b, key, aKey, t, f };
    bySuccessors.set(successors, node);
    return node;
  }

  from(node: TestNode, t: Node, f: Node): Node {
    return this.test(node.op, node.a, node.b, node.key, node.aKey, t, f);
  }

  /** The DAG of `p` with `t` and `f` as its outcomes. An and/or chain's left spine is followed in a loop
   * (the right operand is built first, as the recursion `build(a, build(b, t, f), f)` did). */
  build(p: Pred, t: Node, f: Node): Node {
    let q = p;
    for (;;) {
      this.budget.spend(1);
      switch (q.t) {
        case "true": return t;
        case "false": return f;
        case "and":
          t = this.build(q.b, t, f);
          q = q.a;
          break;
        case "or":
          f = this.build(q.b, t, f);
          q = q.a;
          break;
        case "not": {
          const swap = t;
          t = f;
          f = swap;
          q = q.a;
          break;
        }
        case "cmp": {
          const aKey = valKey(q.a);
          return this.test(q.op, q.a, q.b, `${aKey} ${q.op} ${valKey(q.b)}`, aKey, t, f);
        }
      }
    }
  }
}

/** An outcome known on a path: test number `test` went `outcome`; `eq` >= 0 when that test was an equality
 * with the written constant `k` (its value is then known: libpcap's value numbering). A negative `test` is a
 * value known equal to a constant that no test below compares it with (`k` is then NaN, equal to nothing). */
interface Fact {
  readonly test: number;
  readonly eq: number;
  /** the value compared, when the test is an equality with a written constant, whatever its outcome */
  readonly value: number;
  readonly k: number;
  readonly outcome: boolean;
  /** its part of a memo key */
  readonly code: string;
}

/** What specialize needs of each test node: the numbers of its comparison and of its equality value, and
 * where the bits of what is tested at or below it are. */
interface TestFacts {
  readonly test: number;
  /** -1 unless the test is `value = written constant` */
  readonly eq: number;
  readonly k: number;
  at: number;
}

/**
 * Jump threading: the DAG with every test whose outcome the path to it decided removed, the path going on to
 * the decided branch (the same comparison made before, or the value found equal to another constant). Each
 * node is specialised for the facts known on the paths to it, and only the part of them that decides some
 * test below matters, so that part is what tells specialisations apart:
 *
 * - a fact about a comparison that no node below makes is dropped, unless it is a value found equal to a
 *   constant and that value is compared below (one bit per comparison and value that more than one node
 *   makes: a fact about anything else can never decide a later test);
 * - a value found equal to a constant that no test below compares it with decides every test below on that
 *   value alike (false), whichever the constant was: the constant is forgotten;
 * - a value found equal to a constant is unequal to every other: what was known about those goes.
 *
 * Without the first, each term of `vlan and vlan and ...` tripled the fact sets (3^n paths); without the
 * second, `ether host a or ether host b or ...` and `(host a and port 1) or (host b and port 2) or ...` kept
 * one fact set per combination of earlier constants (n^2 to n^4 of them).
 */
function specialize(b: Builder, root: Node, budget: WorkBudget): Node {
  const all = nodesOf(root);
  budget.spend(all.length);
  // number the comparisons and the values compared with a written constant
  const tests = new Map<string, number>();
  const values = new Map<string, number>();
  const uses: number[] = [];
  const valueUses: number[] = [];
  const info = new Map<number, TestFacts>();
  const ascending = all.filter((n): n is TestNode => n.kind === "test").sort((x, y) => x.id - y.id);
  for (const n of ascending) {
    const test = tests.get(n.key) ?? tests.size;
    tests.set(n.key, test);
    uses[test] = (uses[test] ?? 0) + 1;
    let eq = -1;
    if (n.op === "eq" && isPlainConstant(n.b)) {
      eq = values.get(n.aKey) ?? values.size;
      values.set(n.aKey, eq);
      valueUses[eq] = (valueUses[eq] ?? 0) + 1;
    }
    info.set(n.id, { test, eq, k: n.b.t === "k" ? n.b.v : 0, at: 0 });
  }
  // the bits of what is tested at or below each node (ids are topological: children first)
  let bits = 0;
  const testBit = uses.map((count) => (count > 1 ? bits++ : -1));
  const valueBit = valueUses.map((count) => (count > 1 ? bits++ : -1));
  const words = (bits + 31) >>> 5;
  // node i's bits are below[(i + 1) * words ...]; leaves have the empty slot 0
  const below = new Uint32Array((ascending.length + 1) * words);
  budget.spend((ascending.length * words) >>> 3);
  const set = (at: number, bit: number): void => {
    if (bit >= 0) below[at + (bit >>> 5)] = (below[at + (bit >>> 5)] as number) | (1 << (bit & 31));
  };
  ascending.forEach((n, i) => {
    const me = info.get(n.id) as TestFacts;
    me.at = (i + 1) * words;
    const t = n.t.kind === "leaf" ? 0 : (info.get(n.t.id) as TestFacts).at;
    const f = n.f.kind === "leaf" ? 0 : (info.get(n.f.id) as TestFacts).at;
    for (let w = 0; w < words; w++) below[me.at + w] = (below[t + w] as number) | (below[f + w] as number);
    set(me.at, testBit[me.test] as number);
    if (me.eq >= 0) set(me.at, valueBit[me.eq] as number);
  });
  const has = (at: number, bit: number): boolean => bit >= 0 && ((below[at + (bit >>> 5)] as number) & (1 << (bit & 31))) !== 0;
  const infoOf = (n: TestNode): TestFacts => info.get(n.id) as TestFacts;
  const someConstant = new Map<number, Fact>();
  /** `f` as it matters at the node whose bits are at `at`, or undefined when it decides nothing there */
  const relevant = (f: Fact, at: number): Fact | undefined => {
    if (f.test >= 0 && has(at, testBit[f.test] as number)) return f;
    if (!f.outcome || f.eq < 0 || !has(at, valueBit[f.eq] as number)) return undefined;
    if (f.test < 0) return f;
    let c = someConstant.get(f.eq);
    if (c === undefined) {
      c = { test: -1 - f.eq, eq: f.eq, value: f.eq, k: NaN, outcome: true, code: `=${f.eq}` };
      someConstant.set(f.eq, c);
    }
    return c;
  };
  const known = (facts: readonly Fact[], n: TestNode): boolean | undefined => {
    const me = infoOf(n);
    for (const f of facts) {
      if (f.test === me.test) return f.outcome;
      if (me.eq >= 0 && f.outcome && f.eq === me.eq) return f.k === me.k;
    }
    return undefined;
  };
  const learn = (facts: readonly Fact[], n: TestNode, outcome: boolean): Fact[] => {
    const me = infoOf(n);
    const fact: Fact = {
      test: me.test,
      eq: outcome ? me.eq : -1,
      value: me.eq,
      k: me.k,
      outcome,
      code: outcome ? `${me.test}` : `~${me.test}`,
    };
    const implied = (f: Fact): boolean => fact.eq >= 0 && !f.outcome && f.value === fact.eq;
    const out: Fact[] = [];
    let placed = false;
    for (const f of facts) {
      if (!placed && f.test > fact.test) {
        out.push(fact);
        placed = true;
      }
      if (!implied(f)) out.push(f);
    }
    if (!placed) out.push(fact);
    return out;
  };

  // an explicit stack: paths are as long as the expression
  interface Frame {
    readonly n: TestNode;
    readonly facts: readonly Fact[];
    readonly key: string;
    readonly memo: Map<string, Node>;
    step: "first" | "true" | "false" | "decided";
    t: Node | undefined;
  }
  // specialisations by node, then by the codes of the facts that matter there (each set's codes are
  // joined once: a string used again keeps its hash)
  const memo = new Map<number, Map<string, Node>>();
  const codesOf = new WeakMap<readonly Fact[], string>();
  const stack: Frame[] = [];
  let ret: Node = root;
  const visit = (n: Node, facts: readonly Fact[]): void => {
    if (n.kind === "leaf") {
      ret = n;
      return;
    }
    let kept: Fact[] = [];
    let reordered = false;
    const at = infoOf(n).at;
    for (const f of facts) {
      const r = relevant(f, at);
      if (r === undefined) continue;
      reordered ||= r !== f;
      kept.push(r);
    }
    if (reordered) kept.sort((x, y) => x.test - y.test);
    else if (kept.length === facts.length) kept = facts as Fact[];
    let codes = codesOf.get(kept);
    if (codes === undefined) {
      codes = kept.map((f) => f.code).join(",");
      codesOf.set(kept, codes);
    }
    let byFacts = memo.get(n.id);
    if (byFacts === undefined) {
      byFacts = new Map();
      memo.set(n.id, byFacts);
    }
    const hit = byFacts.get(codes);
    if (hit !== undefined) {
      ret = hit;
      return;
    }
    budget.spend(1 + facts.length);
    stack.push({ n, facts: kept, key: codes, memo: byFacts, step: "first", t: undefined });
  };
  visit(root, []);
  while (stack.length > 0) {
    const fr = stack[stack.length - 1] as Frame;
    switch (fr.step) {
      case "first": {
        const k = known(fr.facts, fr.n);
        if (k !== undefined) {
          fr.step = "decided";
          visit(k ? fr.n.t : fr.n.f, fr.facts);
        } else {
          fr.step = "true";
          visit(fr.n.t, learn(fr.facts, fr.n, true));
        }
        break;
      }
      case "true":
        fr.t = ret;
        fr.step = "false";
        visit(fr.n.f, learn(fr.facts, fr.n, false));
        break;
      case "false":
      case "decided":
        if (fr.step === "false") ret = b.from(fr.n, fr.t as Node, ret);
        fr.memo.set(fr.key, ret);
        stack.pop();
        break;
    }
  }
  return ret;
}

interface Dag {
  readonly root: Node;
  /**
   * Values computed before the root (only for their loads): libpcap's opt_root keeps the statements of the
   * program's first block when that block's test is optimised away, unless the program is a bare return.
   */
  readonly prelude: readonly Val[];
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
  // scratch of the pass over the graph numbered `pass`: its distinct parents, its place in a post-order
  pass: number;
  preds: MTest[];
  order: number;
}
type MNode = MTest | Extract<Node, { kind: "leaf" }>;

function toMutable(root: Node): MNode {
  const copies = new Map<number, MNode>();
  const all = nodesOf(root);
  for (const n of all) {
    copies.set(
      n.id,
      n.kind === "leaf"
        ? n
        : { kind: "test", id: n.id, op: n.op, a: n.a, b: n.b, key: n.key, aKey: n.aKey, t: n.t as MNode, f: n.f as MNode, pass: 0, preds: [], order: -1 },
    );
  }
  for (const n of all) {
    const m = copies.get(n.id) as MNode;
    if (m.kind === "test" && n.kind === "test") {
      m.t = copies.get(n.t.id) as MNode;
      m.f = copies.get(n.f.id) as MNode;
    }
  }
  return copies.get(root.id) as MNode;
}

/** The mutable graph as hash-consed nodes again (children first, true branch before false). */
function fromMutable(b: Builder, root: MNode): Node {
  const made = new Map<MNode, Node>();
  const stack: MNode[] = [root];
  while (stack.length > 0) {
    const n = stack[stack.length - 1] as MNode;
    if (made.has(n)) {
      stack.pop();
      continue;
    }
    if (n.kind === "leaf") {
      made.set(n, n.value ? b.yes : b.no);
      stack.pop();
      continue;
    }
    const t = made.get(n.t);
    if (t === undefined) {
      stack.push(n.t);
      continue;
    }
    const f = made.get(n.f);
    if (f === undefined) {
      stack.push(n.f);
      continue;
    }
    b.budget.spend(1);
    made.set(n, b.test(n.op, n.a, n.b, n.key, n.aKey, t, f));
    stack.pop();
  }
  return made.get(root) as Node;
}

/** The test nodes of a mutable graph, each once, in depth-first order (true branch first), with their scratch
 * reset for pass number `pass`. */
function mutableTests(root: MNode, pass: number): MTest[] {
  const out: MTest[] = [];
  const stack: MNode[] = [root];
  while (stack.length > 0) {
    const n = stack.pop() as MNode;
    if (n.kind !== "test" || n.pass === pass) continue;
    n.pass = pass;
    n.preds = [];
    n.order = -1;
    out.push(n);
    stack.push(n.f, n.t);
  }
  return out;
}

/**
 * libpcap's or_pullup (mode "or") and and_pullup ("and"), run until none applies. In an or-chain (tests
 * linked by their false branches that share their true branch), or_pullup takes the first test on the value
 * its block's predecessors compared that comes after a test on another value, and moves it up before that
 * test; libpcap moves one test per block and pass, and netemu did one move per analysis of the whole DAG,
 * which is quadratic in moves and in analysis for `host a or host b or ...`. Here each chain is put in order
 * at once, which is the order those moves end in:
 *
 * - a move never leaves a chain: libpcap requires the block to dominate every test it walks, and a test
 *   reached along the chain (each sharing its true branch with the block: nothing reached through that
 *   branch can lead back into the chain) is dominated by the block exactly when it has no other
 *   predecessor than the test before it. So a chain is its head and then tests with that one predecessor;
 * - a move puts a test next to the run of tests on its value, past tests on other values only: tests on one
 *   value keep their order, and values keep the order in which they first appear, except that the head's
 *   predecessors' value (when they all compare the same one) comes first. Moves stop when every value's
 *   tests are together and that value's tests lead: there is one such order.
 *
 * Chains meet where a test has several predecessors (the head of the next chain), whose value can change
 * when an earlier chain is put in order; chains are ordered from the bottom of the DAG up, as libpcap's
 * levels go, and the passes repeat until nothing moves.
 */
function pullups(root: MNode, budget: WorkBudget): boolean {
  let changed = false;
  for (let pass = 1; ; pass += 2) {
    const or = regroup(root, "or", pass, budget);
    const and = regroup(root, "and", pass + 1, budget);
    if (!or && !and) return changed;
    changed = true;
  }
}

function regroup(root: MNode, mode: "or" | "and", pass: number, budget: WorkBudget): boolean {
  const tests = mutableTests(root, pass);
  budget.spend(tests.length);
  const same = (x: MTest): MNode => (mode === "or" ? x.t : x.f);
  const next = (x: MTest): MNode => (mode === "or" ? x.f : x.t);
  const setNext = (x: MTest, v: MNode): void => {
    if (mode === "or") x.f = v;
    else x.t = v;
  };
  for (const n of tests) {
    if (n.t.kind === "test") n.t.preds.push(n);
    if (n.f.kind === "test" && n.f !== n.t) n.f.preds.push(n);
  }
  const follows = (c: MTest): boolean => {
    const p = c.preds[0];
    return c.preds.length === 1 && p !== undefined && next(p) === c && same(p) === same(c);
  };
  // chains are put in order from the bottom up: by the place of their last test in a post-order, where a
  // test comes after everything below it
  let placed = 0;
  const stack: MNode[] = [root];
  while (stack.length > 0) {
    const n = stack[stack.length - 1] as MNode;
    if (n.kind === "leaf" || n.order >= 0) {
      stack.pop();
      continue;
    }
    const t = n.t.kind === "test" && n.t.order < 0;
    const f = n.f.kind === "test" && n.f.order < 0;
    if (f) stack.push(n.f);
    if (t) stack.push(n.t);
    if (t || f) continue;
    n.order = placed++;
    stack.pop();
  }
  const chains: MTest[][] = [];
  for (const head of tests) {
    if (follows(head)) continue;
    const chain = [head];
    for (let x = next(head); x.kind === "test" && follows(x); x = next(x)) chain.push(x);
    if (chain.length > 1) chains.push(chain);
  }
  chains.sort((x, y) => (x[x.length - 1] as MTest).order - (y[y.length - 1] as MTest).order);
  let changed = false;
  for (const chain of chains) {
    budget.spend(chain.length);
    const head = chain[0] as MTest;
    const tail = chain[chain.length - 1] as MTest;
    const headPreds = head.preds;
    const first = headPreds[0]?.aKey;
    const lead = first !== undefined && headPreds.every((p) => p.aKey === first) ? first : undefined;
    if (inOrder(chain, lead)) continue;
    const groups = new Map<string, MTest[]>();
    if (lead !== undefined) groups.set(lead, []);
    for (const x of chain) {
      const g = groups.get(x.aKey);
      if (g === undefined) groups.set(x.aKey, [x]);
      else g.push(x);
    }
    const wanted = [...groups.values()].flat();
    changed = true;
    const exit = next(tail);
    for (let i = 0; i < wanted.length; i++) setNext(wanted[i] as MTest, wanted[i + 1] ?? exit);
    const newHead = wanted[0] as MTest;
    if (newHead !== head) {
      for (const p of headPreds) {
        if (p.t === head) p.t = newHead;
        if (p.f === head) p.f = newHead;
      }
    }
    newHead.preds = headPreds;
    for (let i = 1; i < wanted.length; i++) (wanted[i] as MTest).preds = [wanted[i - 1] as MTest];
    if (exit.kind === "test") {
      const at = exit.preds.indexOf(tail);
      if (at >= 0) exit.preds[at] = wanted[wanted.length - 1] as MTest;
    }
  }
  return changed;
}

/** Whether a chain already has the order the pull-ups end in: the value `lead` first (when it has tests),
 * then each value's tests together. */
function inOrder(chain: readonly MTest[], lead: string | undefined): boolean {
  const done = new Set<string>();
  let current = (chain[0] as MTest).aKey;
  if (lead !== undefined && current !== lead) {
    done.add(lead);
  }
  for (const x of chain) {
    if (x.aKey === current) continue;
    if (done.has(x.aKey)) return false;
    done.add(current);
    current = x.aKey;
  }
  return true;
}

/** Builds the optimised decision DAG of a predicate, spending `budget` (limits.ts) on the way. */
export function buildDag(p: Pred, budget: WorkBudget = new WorkBudget()): Dag {
  const b = new Builder(budget);
  if (unoptimizable(p)) return { root: b.build(unfolded(p), b.yes, b.no), prelude: [], optimized: false };
  const first = firstTest(p);
  let root = specialize(b, b.build(p, b.yes, b.no), budget);
  // pull-ups and threading until neither changes anything (threading after a pull-up can enable another)
  for (;;) {
    const m = toMutable(root);
    if (!pullups(m, budget)) break;
    root = specialize(b, fromMutable(b, m), budget);
  }
  const keep = first !== undefined && root.kind === "test" && root.key !== first.key;
  return { root, optimized: true, prelude: keep ? [first.a, first.b] : [] };
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

/** All nodes of the DAG, each once, in depth-first order (true branch first): parents before children. */
export function nodesOf(root: Node): Node[] {
  const seen = new Set<number>();
  const order: Node[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const n = stack.pop() as Node;
    if (seen.has(n.id)) continue;
    seen.add(n.id);
    order.push(n);
    if (n.kind === "test") stack.push(n.f, n.t);
  }
  return order;
}

// ---- reference interpreter ---------------------------------------------------------------------------

const REJECT = Symbol("reject");

/** Geneve offsets computed for the frame: a tunnel's offsets are shared by every value inside it, and
 * evaluating them again for each doubled the work with every tunnel. */
type Computed = Map<Val, number>;

function evalVal(v: Val, p: Uint8Array, wirelen: number, computed: Computed): number {
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
      const off = v.base + (v.index === undefined ? 0 : evalVal(v.index, p, wirelen, computed));
      if (off + v.size > p.length) throw REJECT;
      let x = 0;
      for (let i = 0; i < v.size; i++) x = x * 256 + (p[off + i] ?? 0);
      return x;
    }
    case "neg": return (-evalVal(v.a, p, wirelen, computed)) >>> 0;
    case "chain": {
      const reached = walkChain(v.v6, v.nl, v.target, p);
      if (reached === undefined) throw REJECT;
      return reached;
    }
    case "geneve": {
      const known = computed.get(v.lt);
      const lt = known ?? evalVal(v.lt, p, wirelen, computed);
      if (known === undefined) computed.set(v.lt, lt);
      const knownNl = computed.get(v.nl);
      const nl = knownNl ?? evalVal(v.nl, p, wirelen, computed);
      if (knownNl === undefined) computed.set(v.nl, nl);
      const off = geneveOffset(v.which, v.outer, lt, nl, v.vni, p);
      if (off === undefined) throw REJECT;
      return off;
    }
    case "bin": {
      const a = evalVal(v.a, p, wirelen, computed);
      const b = evalVal(v.b, p, wirelen, computed);
      const result = alu(v.op, a, b);
      if (result === undefined) throw REJECT; // a division by zero rejects the frame, as the kernel's BPF does
      return result;
    }
  }
}

/** Runs the DAG on a frame: `p` = the captured bytes, `wirelen` = the frame's length on the wire. */
export function interpret(root: Node, p: Uint8Array, wirelen: number, prelude: readonly Val[] = []): boolean {
  let n = root;
  const computed: Computed = new Map();
  try {
    for (const v of prelude) evalVal(v, p, wirelen, computed);
    while (n.kind === "test") {
      const a = evalVal(n.a, p, wirelen, computed);
      const b = evalVal(n.b, p, wirelen, computed);
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
