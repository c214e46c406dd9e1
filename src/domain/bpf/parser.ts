/**
 * Parser for pcap-filter expressions: tokens -> AST.
 *
 * A backtracking recursive-descent rendering of libpcap's yacc grammar (grammar.y), with its quirks:
 * - `and` and `or` have the same precedence and associate to the left: `a or b and c` is `(a or b) and c`;
 * - after `and`/`or` a bare value (`80`, `10.0.0.1`, `not 22`, `(1 or 2)`) inherits the qualifiers of what
 *   precedes it; a parenthesised expression passes on the qualifiers in force before its `(`;
 * - arithmetic precedence is `|` < `&` < `<< >>` < `+ -` < `* /` < unary minus, all left-associative, while
 *   `%` and `^` have no declared precedence, so yacc always shifts on them: `a % 3 + 1` is `a % (3 + 1)`;
 * - `!=`, `<` and `<=` are the negated forms of `=`, `>=` and `>` (they negate only the comparison).
 *
 * Backtracking is bounded: arithmetic and `pnum` results are remembered per token (a `(` is tried as
 * arithmetic, then as a logical group, at every level of `((((tcp))))`, which re-parsed the inside each time),
 * and nesting deeper than MAX_NESTING is refused as it is entered, so every later stage's recursion is bounded
 * too (limits.ts).
 */
import type { Arth, ArthOp, DirQ, Expr, IdValue, Other, PName, Program, ProtoQ, Qual } from "./ast.js";
import { PNAMES, QERR } from "./ast.js";
import { BpfError } from "./errors.js";
import type { Keyword, Punct, Token } from "./lexer.js";
import { tokenize } from "./lexer.js";
import { checkLength, geneveMessage, MAX_GENEVE, MAX_NESTING, nestingMessage } from "./limits.js";

class Fail {
  constructor(readonly pos: number) {}
}

interface Parsed {
  readonly node: Expr;
  readonly q: Qual;
}

/** Arithmetic with its nesting depth (operators, parentheses, brackets and unary minus below it). */
interface DeepArth {
  readonly node: Arth;
  readonly depth: number;
}

/** A remembered parse from one token: its result and the token after it, or where it failed; `nesting` is
 * the nesting it was parsed under (a result found at a shallower nesting did not check the deeper limit). */
type Remembered<T> =
  | { readonly ok: true; readonly value: T; readonly end: number; readonly nesting: number }
  | { readonly ok: false; readonly pos: number; readonly nesting: number };

const DQUAL_KW: ReadonlySet<Keyword> = new Set<Keyword>(["src", "dst", "addr1", "addr2", "addr3", "addr4", "ra", "ta"]);
const AQUAL_KW: ReadonlySet<Keyword> = new Set<Keyword>(["host", "net", "port", "portrange"]);
const HEAD_KW: ReadonlySet<Keyword> = new Set<Keyword>([...DQUAL_KW, ...AQUAL_KW, "proto", "protochain", "gateway"]);
const ATM_TYPES: ReadonlySet<Keyword> = new Set<Keyword>(["lane", "metac", "bcc", "oamf4ec", "oamf4sc", "sc", "ilmic", "oam", "oamf4", "connectmsg", "metaconnect"]);
const MTP2_TYPES: ReadonlySet<Keyword> = new Set<Keyword>(["fisu", "lssu", "msu", "hfisu", "hlssu", "hmsu"]);
const MTP3_FIELDS: ReadonlySet<Keyword> = new Set<Keyword>(["sio", "opc", "dpc", "sls", "hsio", "hopc", "hdpc", "hsls"]);

const BINARY_PREC: ReadonlyMap<string, number | undefined> = new Map<string, number | undefined>([
  ["|", 1], ["&", 2], ["<<", 3], [">>", 3], ["+", 4], ["-", 4], ["*", 5], ["/", 5], ["%", undefined], ["^", undefined],
]);
const UMINUS_PREC = 6;

class Parser {
  private i = 0;
  private furthest = 0;
  /** levels of nesting open at the current token */
  private nesting = 0;
  private readonly arths = new Map<number, Remembered<DeepArth>>();
  private readonly pnums = new Map<number, Remembered<number>>();

  constructor(private readonly toks: readonly Token[]) {}

  private get tok(): Token {
    return this.toks[Math.min(this.i, this.toks.length - 1)] as Token;
  }

  private peek(n = 1): Token {
    return this.toks[Math.min(this.i + n, this.toks.length - 1)] as Token;
  }

  private fail(): never {
    const pos = this.tok.pos;
    if (pos > this.furthest) this.furthest = pos;
    throw new Fail(pos);
  }

  private atEof(): boolean {
    return this.tok.kind === "eof";
  }

  private isKw(kw: Keyword, t: Token = this.tok): boolean {
    return t.kind === "kw" && t.kw === kw;
  }

  private isP(p: Punct, t: Token = this.tok): boolean {
    return t.kind === "punct" && t.p === p;
  }

  private expectP(p: Punct): void {
    if (!this.isP(p)) this.fail();
    this.i++;
  }

  private attempt<T>(fn: () => T): T | undefined {
    const save = this.i;
    const nesting = this.nesting;
    try {
      return fn();
    } catch (e) {
      if (e instanceof Fail) {
        this.i = save;
        this.nesting = nesting;
        return undefined;
      }
      throw e;
    }
  }

  /** Opens a level of nesting at the current token, refusing the expression past MAX_NESTING. */
  private enter(): void {
    if (++this.nesting > MAX_NESTING) throw new BpfError(nestingMessage, this.tok.pos);
  }

  private leave(): void {
    this.nesting--;
  }

  /** What `parse` reads between the `(` at the current token and its `)`, one level deeper. */
  private parenthesised<T>(parse: () => T): T {
    this.enter();
    this.i++;
    const inner = parse();
    this.expectP(")");
    this.leave();
    return inner;
  }

  /** What `parse` reads after the `not` at the current token (at `pos`), one level deeper, negated. */
  private negated(pos: number, parse: () => Parsed): Parsed {
    this.enter();
    this.i++;
    const inner = parse();
    this.leave();
    return { node: { k: "not", e: inner.node, pos }, q: inner.q };
  }

  /** `parse` from the current token, or what it gave the last time it ran from there. */
  private remembered<T>(memo: Map<number, Remembered<T>>, parse: () => T): T {
    const start = this.i;
    const known = memo.get(start);
    if (known !== undefined && this.nesting <= known.nesting) {
      if (!known.ok) throw new Fail(known.pos);
      this.i = known.end;
      return known.value;
    }
    const nesting = this.nesting;
    try {
      const value = parse();
      memo.set(start, { ok: true, value, end: this.i, nesting });
      return value;
    } catch (e) {
      if (e instanceof Fail) memo.set(start, { ok: false, pos: e.pos, nesting });
      throw e;
    }
  }

  parseProgram(): Program {
    try {
      if (this.tok.kind === "eof") return { body: undefined };
      const { node } = this.parseExpr(QERR);
      if (!this.atEof()) this.fail();
      return { body: node };
    } catch (e) {
      if (e instanceof Fail) {
        throw new BpfError("can't parse filter expression: syntax error", Math.max(this.furthest, e.pos));
      }
      throw e;
    }
  }

  /** expr: term | expr and term | expr and id | expr or term | expr or id */
  private parseExpr(qin: Qual): Parsed {
    let cur = this.parseTerm(qin);
    for (;;) {
      const t = this.tok;
      if (!(this.isKw("and") || this.isKw("or"))) return cur;
      const op = this.isKw("and") ? "and" : "or";
      this.i++;
      const inherited = cur.q;
      const rhs = this.attempt(() => this.parseTerm(inherited)) ?? this.parseId(inherited);
      cur = { node: { k: op, l: cur.node, r: rhs.node, pos: t.pos }, q: rhs.q };
    }
  }

  /** term: rterm | not term */
  private parseTerm(qin: Qual): Parsed {
    if (this.isKw("not")) {
      return this.negated(this.tok.pos, () => this.parseTerm(qin));
    }
    return this.parseRterm(qin);
  }

  private parseRterm(qin: Qual): Parsed {
    const t = this.tok;
    const pos = t.pos;
    if (this.isP("(")) {
      const rel = this.attempt(() => this.parseRelation());
      if (rel !== undefined) return { node: rel, q: QERR };
      return { node: this.parenthesised(() => this.parseExpr(qin)).node, q: qin };
    }
    if (t.kind === "num" || this.isP("-") || this.isKw("len")) {
      return { node: this.parseRelation(), q: QERR };
    }
    if (t.kind !== "kw") this.fail();
    const kw = t.kw;
    if (PNAMES.has(kw)) {
      const next = this.peek();
      if (this.isP("[", next)) return { node: this.parseRelation(), q: QERR };
      if (next.kind === "kw" && HEAD_KW.has(next.kw)) return this.parseHeadId();
      if (this.isKw("broadcast", next) || this.isKw("multicast", next)) {
        this.i += 2;
        return this.other({ t: next.kind === "kw" && next.kw === "broadcast" ? "broadcast" : "multicast", proto: kw as PName }, pos);
      }
      if (this.isKw("type", next) || this.isKw("subtype", next) || this.isKw("dir", next)) {
        this.i++;
        return this.parse80211(pos);
      }
      this.i++;
      return { node: { k: "pname", proto: kw as PName, pos }, q: QERR };
    }
    if (HEAD_KW.has(kw)) return this.parseHeadId();
    switch (kw) {
      case "broadcast":
      case "multicast":
        this.i++;
        return this.other({ t: kw, proto: "default" }, pos);
      case "less":
      case "greater": {
        this.i++;
        const n = this.expectNum();
        return this.other({ t: kw, n }, pos);
      }
      case "byte": {
        this.i++;
        const idx = this.expectNum();
        const opTok = this.tok;
        if (opTok.kind !== "punct" || !["&", "|", "<", ">", "="].includes(opTok.p)) this.fail();
        this.i++;
        const val = this.expectNum();
        return this.other({ t: "byte", idx, op: opTok.p as "&" | "|" | "<" | ">" | "=", val }, pos);
      }
      case "inbound":
      case "outbound":
        this.i++;
        return this.unsupported("inbound/outbound not supported on Ethernet when reading savefiles (netemu has no capture direction)", pos);
      case "ifindex":
        this.i++;
        this.expectNum();
        return this.unsupported("ifindex not supported on Ethernet when reading savefiles (netemu has no capture interface)", pos);
      case "vlan":
      case "mpls":
      case "pppoes":
      case "geneve": {
        this.i++;
        const n = this.isP("(") || this.tok.kind === "num" ? this.parsePnum() : undefined;
        return this.other({ t: kw, n }, pos);
      }
      case "pppoed":
        this.i++;
        return this.other({ t: "pppoed" }, pos);
      case "ifname":
      case "rset":
        this.i++;
        if (this.tok.kind !== "id") this.fail();
        this.i++;
        return this.unsupported(`${kw} supported only on PF linktype`, pos);
      case "rnr":
      case "srnr":
        this.i++;
        this.expectNum();
        return this.unsupported(`${kw} supported only on PF linktype`, pos);
      case "reason":
        this.i++;
        if (this.tok.kind !== "id" && this.tok.kind !== "num") this.fail();
        this.i++;
        return this.unsupported("reason supported only on PF linktype", pos);
      case "action":
        this.i++;
        if (this.tok.kind !== "id") this.fail();
        this.i++;
        return this.unsupported("action supported only on PF linktype", pos);
      case "llc": {
        this.i++;
        if (this.tok.kind === "id") {
          const sub = this.tok.value;
          this.i++;
          return this.other({ t: "llc", sub }, pos);
        }
        if (this.isKw("rnr")) {
          this.i++;
          return this.other({ t: "llc", sub: "rnr" }, pos);
        }
        return this.other({ t: "llc", sub: undefined }, pos);
      }
      case "type":
      case "subtype":
      case "dir":
        return this.parse80211(pos);
      case "vpi":
      case "vci":
        this.i++;
        this.parseAtmValue();
        return this.unsupported(`'${kw}' supported only on raw ATM`, pos);
      default:
        break;
    }
    if (ATM_TYPES.has(kw)) {
      this.i++;
      return this.unsupported(`'${kw}' supported only on raw ATM`, pos);
    }
    if (MTP2_TYPES.has(kw)) {
      this.i++;
      return this.unsupported(`'${kw}' supported only on MTP2`, pos);
    }
    if (MTP3_FIELDS.has(kw)) {
      this.i++;
      this.parseAtmValue();
      return this.unsupported(`'${kw}' supported only on SS7`, pos);
    }
    return this.fail();
  }

  private other(o: Other, pos: number): Parsed {
    return { node: { k: "other", o, pos }, q: QERR };
  }

  private unsupported(message: string, pos: number): Parsed {
    return this.other({ t: "unsupported", message }, pos);
  }

  private parse80211(pos: number): Parsed {
    const kw = this.tok.kind === "kw" ? this.tok.kw : undefined;
    this.i++;
    if (kw === "dir") {
      if (this.tok.kind !== "num" && this.tok.kind !== "id") this.fail();
      this.i++;
      return this.unsupported("frame direction supported only with 802.11 headers", pos);
    }
    if (this.tok.kind !== "num" && this.tok.kind !== "id") this.fail();
    this.i++;
    if (kw === "type" && this.isKw("subtype")) {
      this.i++;
      if (this.tok.kind !== "num" && this.tok.kind !== "id") this.fail();
      this.i++;
    }
    return this.unsupported("802.11 link-layer types supported only on 802.11", pos);
  }

  /** atmvalue / mtp3value: NUM | relop NUM | irelop NUM | ( NUM or NUM ... ) */
  private parseAtmValue(): void {
    if (this.tok.kind === "num") {
      this.i++;
      return;
    }
    if (this.tok.kind === "punct" && [">", ">=", "=", "<=", "<", "!="].includes(this.tok.p)) {
      this.i++;
      this.expectNum();
      return;
    }
    this.expectP("(");
    this.expectNum();
    while (this.isKw("or")) {
      this.i++;
      this.expectNum();
    }
    this.expectP(")");
  }

  private expectNum(): number {
    const t = this.tok;
    if (t.kind !== "num") this.fail();
    this.i++;
    return t.value;
  }

  /** pnum: NUM | ( pnum ) */
  private parsePnum(): number {
    return this.remembered(this.pnums, () => {
      if (this.isP("(")) {
        return this.parenthesised(() => this.parsePnum());
      }
      return this.expectNum();
    });
  }

  /** head id, where head: [pname] (dqual [aqual] | aqual | proto | protochain | gateway) */
  private parseHeadId(): Parsed {
    let proto: ProtoQ = "default";
    let t = this.tok;
    if (t.kind === "kw" && PNAMES.has(t.kw)) {
      proto = t.kw as PName;
      this.i++;
      t = this.tok;
    }
    let dir: DirQ = "default";
    let addr: Qual["addr"] = "default";
    if (t.kind !== "kw") this.fail();
    if (DQUAL_KW.has(t.kw)) {
      const first = t.kw;
      this.i++;
      if ((first === "src" || first === "dst") && (this.isKw("or") || this.isKw("and"))) {
        const conj = this.isKw("or") ? "or" : "and";
        this.i++;
        if (!this.isKw(first === "src" ? "dst" : "src")) this.fail();
        this.i++;
        dir = conj;
      } else {
        dir = first as DirQ;
      }
      const a = this.tok;
      if (a.kind === "kw" && AQUAL_KW.has(a.kw)) {
        addr = a.kw as Qual["addr"];
        this.i++;
      }
    } else if (AQUAL_KW.has(t.kw) || t.kw === "proto" || t.kw === "protochain" || t.kw === "gateway") {
      addr = t.kw as Qual["addr"];
      this.i++;
    } else {
      this.fail();
    }
    return this.parseId({ proto, dir, addr });
  }

  /** id: nid | pnum | ( pid ); nid: ID | HID [/ NUM | mask HID] | HID6 [/ NUM] | EID | AID | not id */
  private parseId(q: Qual): Parsed {
    const t = this.tok;
    const pos = t.pos;
    if (this.isKw("not")) {
      return this.negated(pos, () => this.parseId(q));
    }
    if (this.isP("(")) {
      return this.parenthesised(() => this.parsePid(q));
    }
    if (t.kind === "num") {
      this.i++;
      return this.idNode(q, { t: "num", v: t.value }, pos);
    }
    return this.parseNid(q);
  }

  private idNode(q: Qual, id: IdValue, pos: number): Parsed {
    return { node: { k: "id", q, id, pos }, q };
  }

  private parseNid(q: Qual): Parsed {
    const t = this.tok;
    const pos = t.pos;
    switch (t.kind) {
      case "id":
        this.i++;
        return this.idNode(q, { t: "name", s: t.value }, pos);
      case "hid": {
        this.i++;
        if (this.isP("/")) {
          this.i++;
          const len = this.expectNum();
          return this.idNode(q, { t: "hidlen", s: t.value, len }, pos);
        }
        if (this.isKw("mask")) {
          this.i++;
          const m = this.tok;
          if (m.kind !== "hid") this.fail();
          this.i++;
          return this.idNode(q, { t: "hidmask", s: t.value, mask: m.value }, pos);
        }
        return this.idNode(q, { t: "hid", s: t.value }, pos);
      }
      case "hid6": {
        this.i++;
        if (this.isP("/")) {
          this.i++;
          const len = this.expectNum();
          return this.idNode(q, { t: "hid6", s: t.value, len, explicitLen: true }, pos);
        }
        return this.idNode(q, { t: "hid6", s: t.value, len: 128, explicitLen: false }, pos);
      }
      case "eid":
        this.i++;
        return this.idNode(q, { t: "eid", s: t.value }, pos);
      case "aid":
        this.i++;
        return this.idNode(q, { t: "aid", s: t.value }, pos);
      default:
        if (this.isKw("not")) {
          return this.negated(pos, () => this.parseId(q));
        }
        return this.fail();
    }
  }

  /** pid: nid | qid and id | qid or id; qid: pnum | pid */
  private parsePid(q: Qual): Parsed {
    let cur: Parsed;
    if (this.tok.kind === "num" || this.isP("(")) {
      const pnumPos = this.tok.pos;
      const n = this.attempt(() => this.parsePnum());
      if (n !== undefined) {
        cur = this.idNode(q, { t: "num", v: n }, pnumPos);
      } else {
        this.enter();
        this.expectP("(");
        cur = this.parsePid(q);
        this.expectP(")");
        this.leave();
      }
    } else {
      cur = this.parseNid(q);
    }
    while (this.isKw("and") || this.isKw("or")) {
      const opPos = this.tok.pos;
      const op = this.isKw("and") ? "and" : "or";
      this.i++;
      const rhs = this.parseId(cur.q);
      cur = { node: { k: op, l: cur.node, r: rhs.node, pos: opPos }, q: rhs.q };
    }
    return cur;
  }

  /** arth relop arth | arth irelop arth */
  private parseRelation(): Expr {
    const pos = this.tok.pos;
    const l = this.parseArth().node;
    const t = this.tok;
    if (t.kind !== "punct") this.fail();
    let op: "gt" | "ge" | "eq";
    let reversed = false;
    switch (t.p) {
      case ">": op = "gt"; break;
      case ">=": op = "ge"; break;
      case "=": op = "eq"; break;
      case "<=": op = "gt"; reversed = true; break;
      case "<": op = "ge"; reversed = true; break;
      case "!=": op = "eq"; reversed = true; break;
      default: return this.fail();
    }
    this.i++;
    const r = this.parseArth().node;
    return { k: "rel", op, reversed, l, r, pos };
  }

  /** Arithmetic, parsed with the shift/reduce decisions of libpcap's yacc precedence table. */
  private parseArth(): DeepArth {
    return this.remembered(this.arths, () => this.shiftReduce());
  }

  private shiftReduce(): DeepArth {
    type Op = { readonly unary: true; readonly pos: number } | { readonly unary: false; readonly op: ArthOp; readonly pos: number };
    const ops: Op[] = [];
    const vals: DeepArth[] = [];
    const prec = (o: Op): number | undefined => (o.unary ? UMINUS_PREC : BINARY_PREC.get(o.op));
    const reduce = (): void => {
      const o = ops.pop() as Op;
      let made: DeepArth;
      if (o.unary) {
        const e = vals.pop() as DeepArth;
        made = { node: { k: "neg", e: e.node, pos: o.pos }, depth: e.depth + 1 };
      } else {
        const r = vals.pop() as DeepArth;
        const l = vals.pop() as DeepArth;
        made = { node: { k: "bin", op: o.op, l: l.node, r: r.node, pos: o.pos }, depth: Math.max(l.depth, r.depth) + 1 };
      }
      // the operator tree is built without recursion, but the compiler walks it recursively
      if (this.nesting + made.depth > MAX_NESTING) throw new BpfError(nestingMessage, o.pos);
      vals.push(made);
    };
    for (;;) {
      while (this.isP("-")) {
        ops.push({ unary: true, pos: this.tok.pos });
        this.i++;
      }
      vals.push(this.parsePrimary());
      const t = this.tok;
      if (t.kind === "punct" && BINARY_PREC.has(t.p)) {
        const incoming: Op = { unary: false, op: t.p as ArthOp, pos: t.pos };
        const pIn = prec(incoming);
        while (ops.length > 0) {
          const pTop = prec(ops[ops.length - 1] as Op);
          if (pTop === undefined || pIn === undefined || pTop < pIn) break;
          reduce();
        }
        ops.push(incoming);
        this.i++;
        continue;
      }
      while (ops.length > 0) reduce();
      return vals[0] as DeepArth;
    }
  }

  private parsePrimary(): DeepArth {
    const t = this.tok;
    const pos = t.pos;
    if (t.kind === "num") {
      this.i++;
      return { node: { k: "num", v: t.value, pos }, depth: 0 };
    }
    if (this.isKw("len")) {
      this.i++;
      return { node: { k: "len", pos }, depth: 0 };
    }
    if (this.isP("(")) {
      const inner = this.parenthesised(() => this.parseArth());
      return { node: inner.node, depth: inner.depth + 1 };
    }
    if (t.kind === "kw" && PNAMES.has(t.kw) && this.isP("[", this.peek())) {
      this.enter();
      this.i += 2;
      const index = this.parseArth();
      let size = 1;
      if (this.isP(":")) {
        this.i++;
        size = this.expectNum();
      }
      this.expectP("]");
      this.leave();
      return { node: { k: "load", proto: t.kw as PName, index: index.node, size, pos }, depth: index.depth + 1 };
    }
    return this.fail();
  }
}

/**
 * Parses a pcap-filter expression; throws BpfError with the position of the offending token. The length and
 * the number of geneve primitives are checked before any parsing (limits.ts), the nesting as it is entered.
 */
export function parse(expression: string): Program {
  checkLength(expression);
  const tokens = tokenize(expression);
  let geneves = 0;
  for (const t of tokens) {
    // `geneve` is a keyword only a geneve primitive uses
    if (t.kind === "kw" && t.kw === "geneve" && ++geneves > MAX_GENEVE) throw new BpfError(geneveMessage, t.pos);
  }
  return new Parser(tokens).parseProgram();
}
