/**
 * Intermediate representation between the semantic compiler and the code generator.
 *
 * A filter is a `Pred`: a boolean tree of comparisons over 32-bit unsigned values (`Val`) computed from the
 * frame, evaluated left to right with short-circuit, like the branches libpcap's gencode emits. A load past
 * the captured bytes, or a division or modulo by zero, makes the WHOLE filter return "no match" (BPF's
 * `ret #0`), whatever `not` or `or` surrounds it.
 *
 * The smart constructors fold constants the way libpcap's optimizer does (`x & 0` is 0 and the load of x
 * disappears with it, `0 / x` is 0, `1 = 2` is false ...), because that changes which loads run and so
 * which short frames match. A folded value keeps, in `vn`, the key of what was written: libpcap's jump
 * threading runs before its constant folding and numbers values by their structure (`ip[0+1]` is not
 * `ip[1]`, `ip[1]` is not the absolute load a primitive makes), so only structurally equal values may
 * decide each other's tests. Without this, netemu refused expressions libpcap accepts (and matches nothing).
 *
 * and/or chains are as long as the expression (`host a or host b or ...` is a left-deep tree of `or`s), so
 * the functions here walk a chain's left spine in a loop and recurse only into right operands and `not`,
 * whose depth the parser bounds (limits.ts).
 */
import { BpfError } from "./errors.js";
import type { GeneveOffset, GeneveOuter } from "./runtime.js";

type BinOp = "add" | "sub" | "mul" | "div" | "mod" | "and" | "or" | "xor" | "lsh" | "rsh";
export type CmpOp = "eq" | "gt" | "ge" | "set";

/** `vn`: the structural key of a folded value (what libpcap's value numbering sees before folding);
 * `written`: the arithmetic as written, before folding (what an unoptimised program computes). */
interface Numbered {
  readonly vn?: string;
  readonly written?: Val;
}

export type Val = Numbered &
  (
    | { readonly t: "k"; readonly v: number }
    /** packet load of `size` bytes (big-endian) at `base + index` (index absent = 0) */
    | { readonly t: "ld"; readonly size: 1 | 2 | 4; readonly base: number; readonly index: Val | undefined }
    /** 4 * (p[off] & 0xf): the IPv4 header length, BPF's `ldxb 4*([off]&0xf)` */
    | { readonly t: "iphl"; readonly off: number }
    | { readonly t: "len" }
    /** BPF's accumulator before any load: 0 at run time, unknown to the optimizer */
    | { readonly t: "acc0" }
    | { readonly t: "bin"; readonly op: BinOp; readonly a: Val; readonly b: Val }
    | { readonly t: "neg"; readonly a: Val }
    /**
     * libpcap's protochain loop: the protocol reached by walking the IPv4 (AH) or IPv6 (hop-by-hop, routing,
     * fragment, destination options, AH) header chain from the network layer at `nl`, stopping at `target`,
     * at no next header (59) or at a protocol that is not an extension header. The only loop in a filter.
     */
    | { readonly t: "chain"; readonly v6: boolean; readonly nl: number; readonly target: number }
    /** an offset inside a Geneve tunnel whose outer EtherType is at `lt` and outer IP header at `nl` (offsets
     * that are themselves inside a tunnel for `geneve and geneve`); `tunnel` names the tunnel (its outer
     * offsets and VNI) in the compilation that made it, so that keys stay short: written out, a key would
     * hold its outer tunnel's key twice (in `lt` and `nl`), doubling with every tunnel */
    | {
        readonly t: "geneve";
        readonly which: GeneveOffset;
        readonly outer: GeneveOuter;
        readonly lt: Val;
        readonly nl: Val;
        readonly vni: number | undefined;
        readonly tunnel: string;
      }
  );

export type Pred =
  | { readonly t: "true" }
  | { readonly t: "false" }
  | { readonly t: "and" | "or"; readonly a: Pred; readonly b: Pred }
  | { readonly t: "not"; readonly a: Pred }
  | { readonly t: "cmp"; readonly op: CmpOp; readonly a: Val; readonly b: Val };

export const TRUE: Pred = { t: "true" };
export const FALSE: Pred = { t: "false" };

export const k = (v: number): Val => ({ t: "k", v: v >>> 0 });
export const len: Val = { t: "len" };
export const acc0: Val = { t: "acc0" };
export const iphl = (off: number): Val => ({ t: "iphl", off });

/** A constant known to libpcap's jump threading (written as a number, not computed). */
export const isPlainConstant = (v: Val): v is Extract<Val, { t: "k" }> => v.t === "k" && v.vn === undefined;


/** An absolute or indexed load; a constant index folds into the base (as the optimizer turns ldx #k; ld [x+b]
 * into ld [k+b]), after jump threading: the folded load keeps the indexed load's key. */
export function ld(size: 1 | 2 | 4, base: number, index?: Val): Val {
  if (index !== undefined && index.t === "k") {
    return { t: "ld", size, base: base + index.v, index: undefined, vn: `[x${valKey(index)}+${base}:${size}]` };
  }
  return { t: "ld", size, base, index };
}

/**
 * BPF's 32-bit arithmetic (the kernel's and libpcap's: unsigned, wrapping, a shift by 32 or more gives 0),
 * as both the constant folding here and the DAG's interpreter compute it; undefined for a division or a
 * modulus by zero, which each of them refuses in its own way.
 */
export function alu(op: BinOp, a: number, b: number): number | undefined {
  switch (op) {
    case "add": return (a + b) >>> 0;
    case "sub": return (a - b) >>> 0;
    case "mul": return Math.imul(a, b) >>> 0;
    case "div": return b === 0 ? undefined : Math.floor(a / b) >>> 0;
    case "mod": return b === 0 ? undefined : a % b;
    case "and": return (a & b) >>> 0;
    case "or": return (a | b) >>> 0;
    case "xor": return (a ^ b) >>> 0;
    case "lsh": return b < 32 ? (a << b) >>> 0 : 0;
    case "rsh": return b < 32 ? a >>> b : 0;
  }
}

function foldOp(op: BinOp, a: number, b: number): number {
  const result = alu(op, a, b);
  if (result === undefined) throw new BpfError(op === "div" ? "division by zero" : "modulus by zero");
  return result;
}

/** Binary arithmetic with libpcap's optimizer simplifications (the result keeps the unfolded key). */
export function bin(op: BinOp, a: Val, b: Val): Val {
  const vn = `(${valKey(a)} ${op} ${valKey(b)})`;
  const folded = fold(op, a, b);
  return valKey(folded) === vn ? folded : { ...folded, vn, written: { t: "bin", op, a, b } };
}

function fold(op: BinOp, a: Val, b: Val): Val {
  if (a.t === "k" && b.t === "k") return k(foldOp(op, a.v, b.v));
  if (b.t === "k") {
    if ((op === "lsh" || op === "rsh") && b.v > 31) throw new BpfError("shift by more than 31 bits");
    if (b.v === 0) {
      switch (op) {
        case "add": case "sub": case "or": case "xor": case "lsh": case "rsh": return a;
        case "mul": case "and": return k(0);
        case "div": throw new BpfError("division by zero");
        case "mod": throw new BpfError("modulus by zero");
      }
    }
  }
  if (a.t === "k" && a.v === 0) {
    switch (op) {
      case "add": case "or": case "xor": return b;
      case "mul": case "div": case "mod": case "and": case "lsh": case "rsh": return k(0);
      case "sub": break;
    }
  }
  return { t: "bin", op, a, b };
}

export function neg(a: Val): Val {
  return a.t === "k" ? { ...k(-a.v), vn: `-(${valKey(a)})`, written: { t: "neg", a } } : { t: "neg", a };
}

/**
 * The predicate with its arithmetic as written: what libpcap runs when it does not optimise (protochain,
 * geneve). Folding `ip[0] & 0` to 0 would skip a load that the unoptimised program makes. Values are rebuilt
 * once each (`memo`): a tunnel's offsets are shared by every value inside it.
 */
export function unfolded(p: Pred, memo: Map<Val, Val> = new Map()): Pred {
  const val = (v: Val): Val => {
    const known = memo.get(v);
    if (known !== undefined) return known;
    let out: Val;
    if (v.written !== undefined) out = val(v.written);
    else {
      switch (v.t) {
        case "ld": out = v.index === undefined ? v : { ...v, index: val(v.index) }; break;
        case "bin": out = { t: "bin", op: v.op, a: val(v.a), b: val(v.b) }; break;
        case "neg": out = { t: "neg", a: val(v.a) }; break;
        case "geneve": out = { ...v, lt: val(v.lt), nl: val(v.nl) }; break;
        default: out = v;
      }
    }
    memo.set(v, out);
    return out;
  };
  const spine: Extract<Pred, { t: "and" | "or" | "not" }>[] = [];
  let q = p;
  while (q.t === "and" || q.t === "or" || q.t === "not") {
    spine.push(q);
    q = q.a;
  }
  let acc: Pred = q.t === "cmp" ? { t: "cmp", op: q.op, a: val(q.a), b: val(q.b) } : q;
  for (let i = spine.length - 1; i >= 0; i--) {
    const s = spine[i] as Extract<Pred, { t: "and" | "or" | "not" }>;
    acc = s.t === "not" ? { t: "not", a: acc } : { t: s.t, a: acc, b: unfolded(s.b, memo) };
  }
  return acc;
}

function foldCmp(op: CmpOp, a: number, b: number): boolean {
  switch (op) {
    case "eq": return a === b;
    case "gt": return a > b;
    case "ge": return a >= b;
    case "set": return (a & b) !== 0;
  }
}

/**
 * A comparison, folded when both sides are written constants. Sides that only fold to constants stay a test
 * (libpcap folds them after jump threading): the decision DAG treats such a test as decided only when it
 * says whether the expression rejects all packets (see dag.ts). `x = y` with y not a written constant is
 * `x - y = 0`, as gencode writes it.
 */
export function cmp(op: CmpOp, a: Val, b: Val): Pred {
  if (isPlainConstant(a) && isPlainConstant(b)) return foldCmp(op, a.v, b.v) ? TRUE : FALSE;
  if (op === "eq" && !isPlainConstant(b)) return { t: "cmp", op, a: bin("sub", a, b), b: k(0) };
  return { t: "cmp", op, a, b };
}

/** The outcome of a comparison between two constants, or undefined when a side is not constant. */
export function constantOutcome(op: CmpOp, a: Val, b: Val): boolean | undefined {
  return a.t === "k" && b.t === "k" ? foldCmp(op, a.v, b.v) : undefined;
}

/** Conjunction. Constant operands are kept (the decision DAG removes them): libpcap keeps the loads of its
 * first test even when that test turns out not to matter, so the first test must stay visible. */
export function and(a: Pred, b: Pred): Pred {
  return { t: "and", a, b };
}

export function or(a: Pred, b: Pred): Pred {
  return { t: "or", a, b };
}

export function not(a: Pred): Pred {
  if (a.t === "true") return FALSE;
  if (a.t === "false") return TRUE;
  if (a.t === "not") return a.a;
  return { t: "not", a };
}

/** Canonical text of a value: equal keys = equal values on every frame (libpcap's value numbers). */
export function valKey(v: Val): string {
  if (v.vn !== undefined) return v.vn;
  switch (v.t) {
    case "k": return `#${v.v}`;
    case "ld": return v.index === undefined ? `[${v.base}:${v.size}]` : `[${valKey(v.index)}+${v.base}:${v.size}]`;
    case "iphl": return `hl(${v.off})`;
    case "len": return "len";
    case "acc0": return "A0";
    case "bin": return `(${valKey(v.a)} ${v.op} ${valKey(v.b)})`;
    case "neg": return `-(${valKey(v.a)})`;
    case "chain": return `chain${v.v6 ? 6 : 4}(${v.nl}->${v.target})`;
    case "geneve": return `geneve.${v.which}(${v.tunnel})`;
  }
}

/** True when the predicate walks a header chain or looks into a Geneve tunnel: libpcap then does not
 * optimise the expression at all (a loop; an unconditional jump). */
export function unoptimizable(p: Pred): boolean {
  const inVal = (v: Val): boolean => {
    switch (v.t) {
      case "chain": case "geneve": return true;
      case "ld": return v.index !== undefined && inVal(v.index);
      case "bin": return inVal(v.a) || inVal(v.b);
      case "neg": return inVal(v.a);
      default: return false;
    }
  };
  let q = p;
  for (;;) {
    switch (q.t) {
      case "true": case "false": return false;
      case "cmp": return inVal(q.a) || inVal(q.b);
      case "not": q = q.a; break;
      case "and": case "or":
        if (unoptimizable(q.b)) return true;
        q = q.a;
        break;
    }
  }
}

/** The value as computed (folded), ignoring `vn`. */
function computedKey(v: Val): string {
  switch (v.t) {
    case "ld": return v.index === undefined ? `[${v.base}:${v.size}]` : `[${computedKey(v.index)}+${v.base}:${v.size}]`;
    case "bin": return `(${computedKey(v.a)} ${v.op} ${computedKey(v.b)})`;
    case "neg": return `-(${computedKey(v.a)})`;
    default: return valKey({ ...v, vn: undefined });
  }
}

/** Human-readable rendering of a predicate, values as computed (for tests and debugging). */
export function predToString(p: Pred): string {
  const spine: Extract<Pred, { t: "and" | "or" | "not" }>[] = [];
  let q = p;
  while (q.t === "and" || q.t === "or" || q.t === "not") {
    spine.push(q);
    q = q.a;
  }
  let acc = q.t === "cmp" ? `${computedKey(q.a)} ${q.op} ${computedKey(q.b)}` : q.t;
  for (let i = spine.length - 1; i >= 0; i--) {
    const s = spine[i] as Extract<Pred, { t: "and" | "or" | "not" }>;
    acc = s.t === "not" ? `!${acc}` : `(${acc} ${s.t === "and" ? "&&" : "||"} ${predToString(s.b)})`;
  }
  return acc;
}
