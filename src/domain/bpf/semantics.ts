/**
 * Semantic compiler: AST -> IR predicate, for link type Ethernet (DLT_EN10MB).
 *
 * It follows libpcap 1.10's gencode: the same checks in the same order (which matters for frames whose
 * capture ends early), the same header offsets, and the same state carried from left to right through the
 * expression: `vlan` and `mpls` move the offsets of everything written after them (stacked tags included),
 * `pppoes` switches the rest of the expression to PPP inside PPPoE. Names are resolved from the tables in
 * names.ts; nothing needs DNS or a live interface, and what would is refused.
 */
import type { Arth, Expr, IdValue, Other, PName, Program, ProtoQ, Qual } from "./ast.js";
import { BpfError } from "./errors.js";
import type { Pred, Val } from "./ir.js";
import { acc0, and, bin, cmp, FALSE, iphl, k, ld, len, neg, not, or, TRUE, valKey } from "./ir.js";
import type { GeneveOffset, GeneveOuter } from "./runtime.js";
import { parseIpv6 } from "./lexer.js";
import { ETHER_PROTOCOLS, IP_PROTOCOLS, LLC_SAPS, SERVICES } from "./names.js";

const ETHERMTU = 1500;
const ETHERTYPE_IP = 0x0800;
const ETHERTYPE_ARP = 0x0806;
const ETHERTYPE_REVARP = 0x8035;
const ETHERTYPE_IPV6 = 0x86dd;
const ETHERTYPE_ATALK = 0x809b;
const ETHERTYPE_AARP = 0x80f3;
const ETHERTYPE_DN = 0x6003;
const ETHERTYPE_LAT = 0x6004;
const ETHERTYPE_SCA = 0x6007;
const ETHERTYPE_MOPDL = 0x6001;
const ETHERTYPE_MOPRC = 0x6002;
const ETHERTYPE_IPX = 0x8137;
const ETHERTYPE_8021Q = 0x8100;
const ETHERTYPE_8021AD = 0x88a8;
const ETHERTYPE_8021QINQ = 0x9100;
const ETHERTYPE_MPLS = 0x8847;
const ETHERTYPE_PPPOED = 0x8863;
const ETHERTYPE_PPPOES = 0x8864;
const ETHERTYPE_NS = 0x0600;
const PPP_MPLS_UCAST = 0x0281;
const LLCSAP_IP = 0x06;
const LLCSAP_ISONS = 0xfe;
const LLCSAP_NETBEUI = 0xf0;
const LLCSAP_IPX = 0xe0;
const LLCSAP_8021D = 0x42;
const IPPROTO_ICMP = 1;
const IPPROTO_IGMP = 2;
const IPPROTO_TCP = 6;
const IPPROTO_IGRP = 9;
const IPPROTO_UDP = 17;
const IPPROTO_FRAGMENT = 44;
const IPPROTO_ESP = 50;
const IPPROTO_AH = 51;
const IPPROTO_ICMPV6 = 58;
const IPPROTO_PIM = 103;
const IPPROTO_VRRP = 112;
const IPPROTO_SCTP = 132;
const PROTO_UNDEF = -1;
const ISO8473_CLNP = 0x81;
const ISO9542_ESIS = 0x82;
const ISO10589_ISIS = 0x83;
const ISIS_L1_LAN_IIH = 15;
const ISIS_L2_LAN_IIH = 16;
const ISIS_PTP_IIH = 17;
const ISIS_L1_LSP = 18;
const ISIS_L2_LSP = 20;
const ISIS_L1_CSNP = 24;
const ISIS_L2_CSNP = 25;
const ISIS_L1_PSNP = 26;
const ISIS_L2_PSNP = 27;

type Size = 1 | 2 | 4;

const GENEVE_PORT = 6081;

/**
 * After `geneve` the offsets are not constants but values libpcap computes at run time into registers. An
 * offset is then written `REGISTER * REGISTER_UNIT + constant`, so that the offset arithmetic below
 * (`linkpl + 9`, `offLinktype += 4` after vlan) stays the same; `at` and `ipHeaderLength` read the register
 * back (rounding: `linkpl - 4` under mpls is the register minus 4). Frames are far shorter than REGISTER_UNIT.
 */
const REGISTER_UNIT = 1 << 24;
const REGISTERS: readonly GeneveOffset[] = ["linktype", "linkhdr", "linkpl"];
const registerOffset = (which: GeneveOffset): number => (REGISTERS.indexOf(which) + 1) * REGISTER_UNIT;

/** Where in the frame things are, as gencode's compiler state (all offsets constant for Ethernet). */
interface State {
  offLinkhdr: number;
  offLinktype: number;
  offLinkpl: number;
  offNl: number;
  offNlNosnap: number;
  linktype: "ether" | "ppp";
  labelStackDepth: number;
  vlanStackDepth: number;
  /** where the outer EtherType and IP header are, once `geneve` made the offsets registers */
  geneve:
    | { readonly outer: GeneveOuter; readonly lt: Val; readonly nl: Val; readonly vni: number | undefined; readonly tunnel: string }
    | undefined;
}

/** An arithmetic value with the protocol checks that must pass before it is computed (gencode's `struct arth`). */
interface ArthVal {
  readonly val: Val;
  readonly checks: Pred | undefined;
  /** the constant loaded by the first instruction, if any: libpcap's checks for x/0 and shifts look only at it */
  readonly lead: number | undefined;
}

function andChecks(a: Pred | undefined, b: Pred | undefined): Pred | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return and(a, b);
}

const protoName = (p: ProtoQ): string => (p === "link" ? "link" : p);

class Compiler {
  private readonly s: State = {
    offLinkhdr: 0,
    offLinktype: 12,
    offLinkpl: 14,
    offNl: 0,
    offNlNosnap: 3,
    linktype: "ether",
    labelStackDepth: 0,
    vlanStackDepth: 0,
    geneve: undefined,
  };

  /** the name of each Geneve tunnel entered, by its outer offsets and VNI (see the `geneve` value in ir.ts) */
  private readonly tunnels = new Map<string, string>();

  compileProgram(p: Program): Pred {
    return p.body === undefined ? TRUE : this.expr(p.body);
  }

  private expr(e: Expr): Pred {
    if (e.k === "and" || e.k === "or") {
      // a chain is a left-deep tree as long as the expression: its spine is walked in a loop, left to right
      // (vlan, mpls, pppoes and geneve change what follows them), and only right operands recurse
      const spine: Extract<Expr, { k: "and" | "or" }>[] = [];
      let left: Expr = e;
      while (left.k === "and" || left.k === "or") {
        spine.push(left);
        left = left.l;
      }
      let acc = this.expr(left);
      for (let i = spine.length - 1; i >= 0; i--) {
        const node = spine[i] as Extract<Expr, { k: "and" | "or" }>;
        const r = this.expr(node.r);
        acc = node.k === "and" ? and(acc, r) : or(acc, r);
      }
      return acc;
    }
    try {
      switch (e.k) {
        case "not":
          return not(this.expr(e.e));
        case "pname":
          return this.protoAbbrev(e.proto);
        case "id":
          return this.id(e.q, e.id);
        case "rel":
          return this.relation(e.op, e.l, e.r, e.reversed);
        case "other":
          return this.other(e.o);
      }
    } catch (err) {
      if (err instanceof BpfError && err.position === undefined) throw new BpfError(err.message, e.pos);
      throw err;
    }
  }

  // ---- offsets -------------------------------------------------------------------------------------

  private get linkpl(): number {
    return this.s.offLinkpl + this.s.offNl;
  }

  /** A load at an offset, constant or (after geneve) relative to a register: BPF's `ld [x + k]` with X = M[r]. */
  private at(size: Size, off: number, index?: Val): Val {
    const reg = Math.round(off / REGISTER_UNIT);
    if (reg === 0) return ld(size, off, index);
    const base = this.register(REGISTERS[reg - 1] as GeneveOffset);
    // BPF's k is unsigned: `ld [x + -2]` (linkpl - 2 under mpls) is a load past any frame, as libpcap runs it
    return ld(size, (off - reg * REGISTER_UNIT) >>> 0, index === undefined ? base : bin("add", index, base));
  }

  private register(which: GeneveOffset): Val {
    const g = this.s.geneve;
    if (g === undefined) throw new BpfError("internal error: register offset without geneve");
    return { t: "geneve", which, outer: g.outer, lt: g.lt, nl: g.nl, vni: g.vni, tunnel: g.tunnel };
  }

  /**
   * gen_geneve_ll_check: inside Geneve, an Ethernet host/broadcast/multicast check first makes sure the
   * tunnel carries an Ethernet header (its link header and network header offsets differ).
   */
  private tunnelledEthernet(): Pred | undefined {
    if (this.s.geneve === undefined) return undefined;
    return not(cmp("eq", bin("sub", this.register("linkhdr"), this.register("linkpl")), k(0)));
  }

  /** `b`, after the Geneve link-header check when inside Geneve. */
  private withLinkHeader(b: Pred, check: Pred | undefined): Pred {
    return check === undefined ? b : and(check, b);
  }

  /** An offset as a value: a constant, or (inside a tunnel) a register plus a constant. */
  private offsetValue(off: number): Val {
    const reg = Math.round(off / REGISTER_UNIT);
    if (reg === 0) return k(off);
    return bin("add", this.register(REGISTERS[reg - 1] as GeneveOffset), k(off - reg * REGISTER_UNIT));
  }

  /** The IPv4 header length at `off` (BPF's `ldxb 4*([k]&0xf)`, or its indexed form after geneve). */
  private ipHeaderLength(off: number): Val {
    if (Math.round(off / REGISTER_UNIT) === 0) return iphl(off);
    return bin("lsh", bin("and", this.at(1, off), k(0x0f)), k(2));
  }

  /**
   * gen_cmp / gen_mcmp. A masked comparison with 0 is a `jset` test, as libpcap's peephole makes it before jump
   * threading (`and #m; jeq #0`); a comparison the user writes (`ip[1] & 4 = 0`) keeps its subtraction there
   * and stays an equality, so the two do not decide each other (`mpls and ip and mpls` is accepted).
   */
  private cmpAt(off: number, size: Size, v: number, mask?: number): Pred {
    const load = this.at(size, off);
    if (mask === undefined || mask === 0xffffffff) return cmp("eq", load, k(v));
    // (a zero mask folds to a constant test, its load removed, as libpcap's constant folding does)
    if (v === 0 && mask !== 0) return not(cmp("set", load, k(mask)));
    return cmp("eq", bin("and", load, k(mask)), k(v));
  }

  private gtAt(off: number, size: Size, v: number): Pred {
    return cmp("gt", this.at(size, off), k(v));
  }

  /** gen_bcmp: compares bytes, last 4-byte word first */
  private bytesAt(off: number, bytes: readonly number[]): Pred {
    let size = bytes.length;
    let b: Pred | undefined;
    const word = (i: number, n: number): number => {
      let v = 0;
      for (let j = 0; j < n; j++) v = v * 256 + (bytes[i + j] ?? 0);
      return v;
    };
    while (size >= 4) {
      const t = this.cmpAt(off + size - 4, 4, word(size - 4, 4));
      b = b === undefined ? t : and(b, t);
      size -= 4;
    }
    while (size >= 2) {
      const t = this.cmpAt(off + size - 2, 2, word(size - 2, 2));
      b = b === undefined ? t : and(b, t);
      size -= 2;
    }
    if (size > 0) {
      const t = this.cmpAt(off, 1, word(0, 1));
      b = b === undefined ? t : and(b, t);
    }
    return b ?? TRUE;
  }

  // ---- link types ----------------------------------------------------------------------------------

  /** gen_linktype */
  private linktype(llProto: number): Pred {
    if (this.s.labelStackDepth > 0) return this.mplsLinktype(llProto);
    if (this.s.linktype === "ppp") return this.cmpAt(this.s.offLinktype, 2, etherToPpp(llProto));
    return this.etherLinktype(llProto);
  }

  private notLlc(): Pred {
    return not(this.gtAt(this.s.offLinktype, 2, ETHERMTU));
  }

  private snap(orgcode: number, ptype: number): Pred {
    return this.bytesAt(this.s.offLinkpl, [
      0xaa, 0xaa, 0x03, (orgcode >> 16) & 0xff, (orgcode >> 8) & 0xff, orgcode & 0xff, (ptype >> 8) & 0xff, ptype & 0xff,
    ]);
  }

  private etherLinktype(llProto: number): Pred {
    const lt = this.s.offLinktype;
    switch (llProto) {
      case LLCSAP_ISONS:
      case LLCSAP_IP:
      case LLCSAP_NETBEUI:
        return and(this.notLlc(), this.cmpAt(this.s.offLinkpl, 2, (llProto << 8) | llProto));
      case LLCSAP_IPX: {
        let b1 = or(this.cmpAt(this.s.offLinkpl, 1, LLCSAP_IPX), this.cmpAt(this.s.offLinkpl, 2, 0xffff));
        b1 = or(this.snap(0x000000, ETHERTYPE_IPX), b1);
        b1 = and(this.notLlc(), b1);
        return or(this.cmpAt(lt, 2, ETHERTYPE_IPX), b1);
      }
      case ETHERTYPE_ATALK:
      case ETHERTYPE_AARP: {
        const b0 = this.notLlc();
        const b1 = and(b0, llProto === ETHERTYPE_ATALK ? this.snap(0x080007, ETHERTYPE_ATALK) : this.snap(0, ETHERTYPE_AARP));
        return or(this.cmpAt(lt, 2, llProto), b1);
      }
      default:
        if (llProto <= ETHERMTU) return and(this.notLlc(), this.cmpAt(lt + 2, 1, llProto));
        return this.cmpAt(lt, 2, llProto);
    }
  }

  private mplsLinktype(llProto: number): Pred {
    const prev = this.linkpl - 4;
    switch (llProto) {
      case ETHERTYPE_IP:
        return and(this.cmpAt(prev + 2, 1, 0x01, 0x01), this.cmpAt(this.linkpl, 1, 0x40, 0xf0));
      case ETHERTYPE_IPV6:
        return and(this.cmpAt(prev + 2, 1, 0x01, 0x01), this.cmpAt(this.linkpl, 1, 0x60, 0xf0));
      default:
        throw new BpfError("unsupported protocol over mpls");
    }
  }

  // ---- protocols -----------------------------------------------------------------------------------

  /** gen_proto_abbrev: a protocol name used alone (`tcp`, `arp`, `l1` ...) */
  private protoAbbrev(proto: PName): Pred {
    switch (proto) {
      case "sctp": return this.proto(IPPROTO_SCTP, "default");
      case "tcp": return this.proto(IPPROTO_TCP, "default");
      case "udp": return this.proto(IPPROTO_UDP, "default");
      case "icmp": return this.proto(IPPROTO_ICMP, "ip");
      case "igmp": return this.proto(IPPROTO_IGMP, "ip");
      case "igrp": return this.proto(IPPROTO_IGRP, "ip");
      case "pim": return this.proto(IPPROTO_PIM, "default");
      case "vrrp": return this.proto(IPPROTO_VRRP, "ip");
      case "carp": return this.proto(IPPROTO_VRRP, "ip");
      case "ip": return this.linktype(ETHERTYPE_IP);
      case "arp": return this.linktype(ETHERTYPE_ARP);
      case "rarp": return this.linktype(ETHERTYPE_REVARP);
      case "link": throw new BpfError("link layer applied in wrong context");
      case "atalk": return this.linktype(ETHERTYPE_ATALK);
      case "aarp": return this.linktype(ETHERTYPE_AARP);
      case "decnet": return this.linktype(ETHERTYPE_DN);
      case "sca": return this.linktype(ETHERTYPE_SCA);
      case "lat": return this.linktype(ETHERTYPE_LAT);
      case "mopdl": return this.linktype(ETHERTYPE_MOPDL);
      case "moprc": return this.linktype(ETHERTYPE_MOPRC);
      case "ip6": return this.linktype(ETHERTYPE_IPV6);
      case "icmp6": return this.proto(IPPROTO_ICMPV6, "ip6");
      case "ah": return this.proto(IPPROTO_AH, "default");
      case "esp": return this.proto(IPPROTO_ESP, "default");
      case "iso": return this.linktype(LLCSAP_ISONS);
      case "esis": return this.proto(ISO9542_ESIS, "iso");
      case "isis": return this.proto(ISO10589_ISIS, "iso");
      case "l1": return this.isisAny([ISIS_L1_LAN_IIH, ISIS_PTP_IIH, ISIS_L1_LSP, ISIS_L1_CSNP, ISIS_L1_PSNP]);
      case "l2": return this.isisAny([ISIS_L2_LAN_IIH, ISIS_PTP_IIH, ISIS_L2_LSP, ISIS_L2_CSNP, ISIS_L2_PSNP]);
      case "iih": return this.isisAny([ISIS_L1_LAN_IIH, ISIS_L2_LAN_IIH, ISIS_PTP_IIH]);
      case "lsp": return this.isisAny([ISIS_L1_LSP, ISIS_L2_LSP]);
      case "snp": return this.isisAny([ISIS_L1_CSNP, ISIS_L2_CSNP, ISIS_L1_PSNP, ISIS_L2_PSNP]);
      case "csnp": return this.isisAny([ISIS_L1_CSNP, ISIS_L2_CSNP]);
      case "psnp": return this.isisAny([ISIS_L1_PSNP, ISIS_L2_PSNP]);
      case "clnp": return this.proto(ISO8473_CLNP, "iso");
      case "stp": return this.linktype(LLCSAP_8021D);
      case "ipx": return this.linktype(LLCSAP_IPX);
      case "netbeui": return this.linktype(LLCSAP_NETBEUI);
      case "radio": throw new BpfError("'radio' is not a valid protocol type");
    }
  }

  private isisAny(types: readonly number[]): Pred {
    let b: Pred | undefined;
    for (const t of types) {
      const p = this.proto(t, "isis");
      b = b === undefined ? p : or(p, b);
    }
    return b ?? FALSE;
  }

  /** gen_proto: `[pname] proto N` */
  private proto(v: number, proto: ProtoQ, dir: Qual["dir"] = "default"): Pred {
    if (dir !== "default") throw new BpfError("direction applied to 'proto'");
    switch (proto) {
      case "default": {
        const b0 = this.proto(v, "ip");
        return or(b0, this.proto(v, "ip6"));
      }
      case "link":
        return this.linktype(v);
      case "ip": {
        const b0 = this.linktype(ETHERTYPE_IP);
        return and(b0, this.cmpAt(this.linkpl + 9, 1, v));
      }
      case "ip6": {
        const b0 = this.linktype(ETHERTYPE_IPV6);
        let b1 = and(this.cmpAt(this.linkpl + 6, 1, IPPROTO_FRAGMENT), this.cmpAt(this.linkpl + 40, 1, v));
        b1 = or(this.cmpAt(this.linkpl + 6, 1, v), b1);
        return and(b0, b1);
      }
      case "iso": {
        const b0 = this.linktype(LLCSAP_ISONS);
        return and(b0, this.cmpAt(this.s.offLinkpl + this.s.offNlNosnap, 1, v));
      }
      case "isis": {
        const b0 = this.proto(ISO10589_ISIS, "iso");
        return and(b0, this.cmpAt(this.s.offLinkpl + this.s.offNlNosnap + 4, 1, v));
      }
      case "arp": case "rarp": case "sca": case "lat": case "moprc": case "mopdl":
        throw new BpfError(`${proto} does not encapsulate another protocol`);
      case "atalk": throw new BpfError("AppleTalk encapsulation is not specifiable");
      case "decnet": throw new BpfError("DECNET encapsulation is not specifiable");
      case "clnp": throw new BpfError("'clnp proto' is not supported");
      case "undef": throw new BpfError("syntax error in filter expression");
      default:
        throw new BpfError(`'${proto} proto' is bogus`);
    }
  }

  // ---- primitives with a value ---------------------------------------------------------------------

  private id(q: Qual, id: IdValue): Pred {
    switch (id.t) {
      case "name": return this.scode(id.s, q);
      case "num": return this.ncode(undefined, id.v, q);
      case "hid":
        this.checkAddrModifier(q, "");
        return this.ncode(id.s, 0, q);
      case "hidlen":
        this.checkAddrModifier(q, " and prefix length");
        return this.mcode(id.s, undefined, id.len, q);
      case "hidmask":
        this.checkAddrModifier(q, " and netmask");
        return this.mcode(id.s, id.mask, 0, q);
      case "hid6":
        this.checkAddrModifier(q, id.explicitLen ? " and prefix length" : "");
        return this.mcode6(id.s, id.len, q);
      case "eid": return this.ecode(id.s, q);
      case "aid": throw new BpfError("aid supported only on ARCnet");
    }
  }

  private checkAddrModifier(q: Qual, what: string): void {
    if (q.addr === "port" || q.addr === "portrange" || q.addr === "proto" || q.addr === "protochain") {
      throw new BpfError(`'${q.addr}' modifier applied to ip host${what}`);
    }
  }

  /** gen_ncode: a number or dotted IPv4 (or DECnet) address */
  private ncode(s: string | undefined, v: number, q: Qual): Pred {
    const proto = q.proto;
    let vlen: number;
    if (s === undefined) vlen = 32;
    else if (proto === "decnet") {
      const dn = parseDecnet(s);
      if (dn === undefined) throw new BpfError(`malformed decnet address '${s}'`);
      v = dn;
      vlen = 16;
    } else {
      const a = parseIpv4(s);
      if (a === undefined) throw new BpfError(`invalid IPv4 address '${s}'`);
      v = a.addr;
      vlen = a.bits;
    }
    switch (q.addr) {
      case "default":
      case "host":
      case "net": {
        if (proto === "decnet") return this.host(v, 0, proto, q.dir, q.addr);
        if (proto === "link") throw new BpfError("illegal link layer address");
        let mask = 0xffffffff;
        if (s === undefined && q.addr === "net") {
          while (v !== 0 && (v & 0xff000000) === 0) {
            v = (v << 8) >>> 0;
            mask = (mask << 8) >>> 0;
          }
        } else {
          v = vlen === 0 ? 0 : vlen === 32 ? v : (v << (32 - vlen)) >>> 0;
          mask = vlen === 0 ? 0 : vlen === 32 ? mask : (mask << (32 - vlen)) >>> 0;
        }
        return this.host(v, mask, proto, q.dir, q.addr);
      }
      case "port":
      case "portrange": {
        const ipProto = portProto(proto, q.addr);
        if (v > 65535) throw new BpfError(`illegal port number ${v} > 65535`);
        return q.addr === "port" ? this.portBoth(v, ipProto, q.dir) : this.portrangeBoth(v, v, ipProto, q.dir);
      }
      case "gateway":
        throw new BpfError("'gateway' requires a name");
      case "proto":
        return this.proto(v, proto, q.dir);
      case "protochain":
        return this.protochain(v, proto);
      case "undef":
        throw new BpfError("syntax error in filter expression");
    }
  }

  /** gen_scode: a name (host names are refused: netemu does no name service lookups) */
  private scode(name: string, q: Qual): Pred {
    const proto = q.proto;
    switch (q.addr) {
      case "net":
        throw new BpfError(`unknown network '${name}' (netemu resolves no network names; use a numeric network)`);
      case "default":
      case "host":
        if (proto === "link") {
          throw new BpfError(`unknown ether host '${name}' (netemu resolves no host names; use a MAC address)`);
        }
        if (proto === "decnet") {
          throw new BpfError(`unknown decnet host name '${name}'`);
        }
        throw new BpfError(`unknown host '${name}' (netemu resolves no host names; use a numeric address)`);
      case "port": {
        const ipProto0 = portProto(proto, "port");
        const found = lookupPort(name);
        if (found === undefined) throw new BpfError(`unknown port '${name}'`);
        const ipProto = narrowPortProto(ipProto0, found.proto, `port '${name}'`);
        if (found.port > 65535) throw new BpfError(`illegal port number ${found.port} > 65535`);
        return this.portBoth(found.port, ipProto, q.dir);
      }
      case "portrange": {
        const ipProto0 = portProto(proto, "portrange");
        const range = lookupPortRange(name);
        if (range === undefined) throw new BpfError(`unknown port in range '${name}'`);
        const ipProto = narrowPortProto(ipProto0, range.proto, `port in range '${name}'`);
        if (range.p1 > 65535) throw new BpfError(`illegal port number ${range.p1} > 65535`);
        if (range.p2 > 65535) throw new BpfError(`illegal port number ${range.p2} > 65535`);
        return this.portrangeBoth(range.p1, range.p2, ipProto, q.dir);
      }
      case "gateway":
        throw new BpfError(`unknown host '${name}' ('gateway' needs host name lookups, which netemu does not do)`);
      case "proto":
        return this.proto(this.lookupProto(name, proto), proto, q.dir);
      case "protochain":
        return this.protochain(this.lookupProto(name, proto), proto);
      case "undef":
        throw new BpfError("syntax error in filter expression");
    }
  }

  private lookupProto(name: string, proto: ProtoQ): number {
    switch (proto) {
      case "default":
      case "ip":
      case "ip6": {
        const v = IP_PROTOCOLS.get(name);
        if (v === undefined) throw new BpfError(`unknown ip proto '${name}'`);
        return v;
      }
      case "link": {
        const v = ETHER_PROTOCOLS.get(name) ?? LLC_SAPS.get(name);
        if (v === undefined) throw new BpfError(`unknown ether proto '${name}'`);
        return v;
      }
      case "iso":
        if (name === "esis") return ISO9542_ESIS;
        if (name === "isis") return ISO10589_ISIS;
        if (name === "clnp") return ISO8473_CLNP;
        throw new BpfError(`unknown osi proto '${name}'`);
      default:
        throw new BpfError(`unknown protocol: ${name}`);
    }
  }

  /** gen_mcode: a.b.c.d/len or a.b.c.d mask m.m.m.m */
  private mcode(s1: string, s2: string | undefined, masklen: number, q: Qual): Pred {
    const a = parseIpv4(s1);
    if (a === undefined) throw new BpfError(`invalid IPv4 address '${s1}'`);
    const n = a.bits === 32 ? a.addr : (a.addr << (32 - a.bits)) >>> 0;
    let m: number;
    if (s2 !== undefined) {
      const b = parseIpv4(s2);
      if (b === undefined) throw new BpfError(`invalid IPv4 address '${s2}'`);
      m = b.bits === 32 ? b.addr : (b.addr << (32 - b.bits)) >>> 0;
      if ((n & ~m) !== 0) throw new BpfError(`non-network bits set in "${s1} mask ${s2}"`);
    } else {
      if (masklen > 32) throw new BpfError("mask length must be <= 32");
      m = masklen === 0 ? 0 : (0xffffffff << (32 - masklen)) >>> 0;
      if ((n & ~m) !== 0) throw new BpfError(`non-network bits set in "${s1}/${masklen}"`);
    }
    if (q.addr !== "net") throw new BpfError("Mask syntax for networks only");
    return this.host(n, m, q.proto, q.dir, q.addr);
  }

  /** gen_mcode6: an IPv6 address with an optional prefix length */
  private mcode6(s: string, masklen: number, q: Qual): Pred {
    const addr = parseIpv6(s);
    if (addr === undefined) throw new BpfError(`invalid ip6 address ${s}`);
    if (masklen > 128) throw new BpfError("mask length must be <= 128");
    const mask = new Uint8Array(16);
    for (let i = 0; i < 16; i++) {
      const bits = Math.max(0, Math.min(8, masklen - 8 * i));
      mask[i] = bits === 0 ? 0 : (0xff << (8 - bits)) & 0xff;
    }
    for (let i = 0; i < 16; i++) {
      if (((addr[i] ?? 0) & ~(mask[i] ?? 0)) !== 0) throw new BpfError(`non-network bits set in "${s}/${masklen}"`);
    }
    switch (q.addr) {
      case "default":
      case "host":
        if (masklen !== 128) throw new BpfError("Mask syntax for networks only");
        return this.host6(addr, mask, q.proto, q.dir);
      case "net":
        return this.host6(addr, mask, q.proto, q.dir);
      default:
        throw new BpfError("invalid qualifier against IPv6 address");
    }
  }

  /** gen_ecode: a MAC address */
  private ecode(s: string, q: Qual): Pred {
    if ((q.addr === "host" || q.addr === "default") && q.proto === "link") {
      if (this.s.linktype !== "ether") {
        throw new BpfError("ethernet addresses supported only on ethernet/FDDI/token ring/802.11/ATM LANE/Fibre Channel");
      }
      const check = this.tunnelledEthernet();
      return this.withLinkHeader(this.ehostop(parseMac(s), q.dir), check);
    }
    throw new BpfError("ethernet address used in non-ether expression");
  }

  private ehostop(mac: readonly number[], dir: Qual["dir"]): Pred {
    switch (dir) {
      case "src": return this.bytesAt(this.s.offLinkhdr + 6, mac);
      case "dst": return this.bytesAt(this.s.offLinkhdr, mac);
      case "and": {
        const b0 = this.ehostop(mac, "src");
        return and(b0, this.ehostop(mac, "dst"));
      }
      case "default":
      case "or": {
        const b0 = this.ehostop(mac, "src");
        return or(b0, this.ehostop(mac, "dst"));
      }
      default:
        throw new BpfError(`'${dir}' is only supported on 802.11 with 802.11 headers`);
    }
  }

  /** gen_host */
  private host(addr: number, mask: number, proto: ProtoQ, dir: Qual["dir"], type: Qual["addr"]): Pred {
    const typestr = type === "net" ? "net" : "host";
    switch (proto) {
      case "default": {
        let b0 = this.host(addr, mask, "ip", dir, type);
        if (this.s.labelStackDepth === 0) {
          const b1 = or(b0, this.host(addr, mask, "arp", dir, type));
          b0 = or(b1, this.host(addr, mask, "rarp", dir, type));
        }
        return b0;
      }
      case "link": throw new BpfError(`link-layer modifier applied to ${typestr}`);
      case "ip": return this.hostop(addr, mask, dir, ETHERTYPE_IP, 12, 16);
      case "rarp": return this.hostop(addr, mask, dir, ETHERTYPE_REVARP, 14, 24);
      case "arp": return this.hostop(addr, mask, dir, ETHERTYPE_ARP, 14, 24);
      case "decnet": return this.dnhostop(addr, dir);
      case "ip6": throw new BpfError(`'ip6' modifier applied to ip ${typestr}`);
      case "undef": throw new BpfError("syntax error in filter expression");
      default: throw new BpfError(`'${protoName(proto)}' modifier applied to ${typestr}`);
    }
  }

  private hostop(addr: number, mask: number, dir: Qual["dir"], llProto: number, srcOff: number, dstOff: number): Pred {
    let offset: number;
    switch (dir) {
      case "src": offset = srcOff; break;
      case "dst": offset = dstOff; break;
      case "and": {
        const b0 = this.hostop(addr, mask, "src", llProto, srcOff, dstOff);
        return and(b0, this.hostop(addr, mask, "dst", llProto, srcOff, dstOff));
      }
      case "default":
      case "or": {
        const b0 = this.hostop(addr, mask, "src", llProto, srcOff, dstOff);
        return or(b0, this.hostop(addr, mask, "dst", llProto, srcOff, dstOff));
      }
      default:
        throw new BpfError(`'${dir}' is only supported on 802.11 with 802.11 headers`);
    }
    const b0 = this.linktype(llProto);
    return and(b0, this.cmpAt(this.linkpl + offset, 4, addr, mask));
  }

  private host6(addr: Uint8Array, mask: Uint8Array, proto: ProtoQ, dir: Qual["dir"]): Pred {
    switch (proto) {
      case "default":
      case "ip6":
        return this.hostop6(addr, mask, dir, 8, 24);
      case "link": throw new BpfError("link-layer modifier applied to ip6 host");
      case "undef": throw new BpfError("syntax error in filter expression");
      default: throw new BpfError(`'${protoName(proto)}' modifier applied to ip6 host`);
    }
  }

  private hostop6(addr: Uint8Array, mask: Uint8Array, dir: Qual["dir"], srcOff: number, dstOff: number): Pred {
    let offset: number;
    switch (dir) {
      case "src": offset = srcOff; break;
      case "dst": offset = dstOff; break;
      case "and": {
        const b0 = this.hostop6(addr, mask, "src", srcOff, dstOff);
        return and(b0, this.hostop6(addr, mask, "dst", srcOff, dstOff));
      }
      case "default":
      case "or": {
        const b0 = this.hostop6(addr, mask, "src", srcOff, dstOff);
        return or(b0, this.hostop6(addr, mask, "dst", srcOff, dstOff));
      }
      default:
        throw new BpfError(`'${dir}' is only supported on 802.11 with 802.11 headers`);
    }
    const word = (b: Uint8Array, i: number): number =>
      (((b[4 * i] ?? 0) << 24) | ((b[4 * i + 1] ?? 0) << 16) | ((b[4 * i + 2] ?? 0) << 8) | (b[4 * i + 3] ?? 0)) >>> 0;
    let b1 = this.cmpAt(this.linkpl + offset + 12, 4, word(addr, 3), word(mask, 3));
    for (const i of [2, 1, 0]) b1 = and(this.cmpAt(this.linkpl + offset + 4 * i, 4, word(addr, i), word(mask, i)), b1);
    return and(this.linktype(ETHERTYPE_IPV6), b1);
  }

  /** gen_dnhostop: DECnet phase IV addresses, as libpcap compiles them on a little-endian host */
  private dnhostop(addr: number, dir: Qual["dir"]): Pred {
    let offsetSh: number;
    let offsetLh: number;
    switch (dir) {
      case "dst": offsetSh = 1; offsetLh = 7; break;
      case "src": offsetSh = 3; offsetLh = 15; break;
      case "and": {
        const b0 = this.dnhostop(addr, "src");
        return and(b0, this.dnhostop(addr, "dst"));
      }
      case "default":
      case "or": {
        const b0 = this.dnhostop(addr, "src");
        return or(b0, this.dnhostop(addr, "dst"));
      }
      default:
        throw new BpfError(`'${dir}' is only supported on 802.11 with 802.11 headers`);
    }
    const swapped = ((addr & 0xff) << 8) | ((addr >> 8) & 0xff);
    const pl = this.linkpl;
    const b0 = this.linktype(ETHERTYPE_DN);
    let b1 = and(this.cmpAt(pl + 2, 2, 0x8106, 0xff07), this.cmpAt(pl + 2 + 1 + offsetLh, 2, swapped));
    b1 = or(and(this.cmpAt(pl + 2, 1, 0x06, 0x07), this.cmpAt(pl + 2 + offsetLh, 2, swapped)), b1);
    b1 = or(and(this.cmpAt(pl + 2, 2, 0x8102, 0xff07), this.cmpAt(pl + 2 + 1 + offsetSh, 2, swapped)), b1);
    b1 = or(and(this.cmpAt(pl + 2, 1, 0x02, 0x07), this.cmpAt(pl + 2 + offsetSh, 2, swapped)), b1);
    return and(b0, b1);
  }

  // ---- ports ---------------------------------------------------------------------------------------

  /** not a fragment other than the first (IPv4 fragment offset is 0) */
  private ipfrag(): Pred {
    return not(cmp("set", this.at(2, this.linkpl + 6), k(0x1fff)));
  }

  private portrangeatom(off: number, v1: number, v2: number, v6: boolean): Pred {
    const lo = Math.min(v1, v2);
    const hi = Math.max(v1, v2);
    const load = v6 ? this.at(2, this.linkpl + 40 + off) : this.at(2, this.linkpl + off, this.ipHeaderLength(this.linkpl));
    return and(cmp("ge", load, k(lo)), not(cmp("gt", load, k(hi))));
  }

  private portAtoms(dir: Qual["dir"], atom: (off: number) => Pred): Pred {
    switch (dir) {
      case "src": return atom(0);
      case "dst": return atom(2);
      case "and": {
        const t = atom(0);
        return and(t, atom(2));
      }
      case "default":
      case "or": {
        const t = atom(0);
        return or(t, atom(2));
      }
      default:
        throw new BpfError(`'${dir}' is not a valid direction for a port`);
    }
  }

  private portop(ipProto: number, dir: Qual["dir"], atom: (off: number) => Pred): Pred {
    const b0 = and(this.cmpAt(this.linkpl + 9, 1, ipProto), this.ipfrag());
    return and(b0, this.portAtoms(dir, atom));
  }

  private portop6(ipProto: number, dir: Qual["dir"], atom: (off: number) => Pred): Pred {
    const b0 = this.cmpAt(this.linkpl + 6, 1, ipProto);
    return and(b0, this.portAtoms(dir, atom));
  }

  private portGeneric(ipProto: number, dir: Qual["dir"], v6: boolean, atom: (off: number) => Pred): Pred {
    const b0 = this.linktype(v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IP);
    const op = (p: number): Pred => (v6 ? this.portop6(p, dir, atom) : this.portop(p, dir, atom));
    let b1: Pred;
    if (ipProto === PROTO_UNDEF) {
      const tcp = op(IPPROTO_TCP);
      b1 = or(tcp, op(IPPROTO_UDP));
      b1 = or(op(IPPROTO_SCTP), b1);
    } else {
      b1 = op(ipProto);
    }
    return and(b0, b1);
  }

  private portBoth(port: number, ipProto: number, dir: Qual["dir"]): Pred {
    const v4 = this.portGeneric(ipProto, dir, false, (off) => cmp("eq", this.at(2, this.linkpl + off, this.ipHeaderLength(this.linkpl)), k(port)));
    const v6 = this.portGeneric(ipProto, dir, true, (off) => this.cmpAt(this.linkpl + 40 + off, 2, port));
    return or(v6, v4);
  }

  private portrangeBoth(p1: number, p2: number, ipProto: number, dir: Qual["dir"]): Pred {
    const v4 = this.portGeneric(ipProto, dir, false, (off) => this.portrangeatom(off, p1, p2, false));
    const v6 = this.portGeneric(ipProto, dir, true, (off) => this.portrangeatom(off, p1, p2, true));
    return or(v6, v4);
  }

  /** gen_protochain: the protocol at the end of the extension-header chain (`protochain` alone: IPv4 or IPv6) */
  private protochain(v: number, proto: ProtoQ): Pred {
    switch (proto) {
      case "default": {
        const b0 = this.protochain(v, "ip");
        return or(b0, this.protochain(v, "ip6"));
      }
      case "ip":
      case "ip6":
        break;
      default:
        throw new BpfError("bad protocol applied for 'protochain'");
    }
    if (this.s.geneve !== undefined) throw new BpfError("'protochain' not supported with variable length headers");
    const v6 = proto === "ip6";
    const b0 = this.linktype(v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IP);
    return and(b0, cmp("eq", { t: "chain", v6, nl: this.linkpl, target: v }, k(v)));
  }

  // ---- arithmetic ----------------------------------------------------------------------------------

  private relation(op: "gt" | "ge" | "eq", l: Arth, r: Arth, reversed: boolean): Pred {
    const a0 = this.arth(l);
    const a1 = this.arth(r);
    let b = cmp(op, a0.val, a1.val);
    if (reversed) b = not(b);
    const checks = andChecks(a0.checks, a1.checks);
    return checks === undefined ? b : and(checks, b);
  }

  private arth(a: Arth): ArthVal {
    switch (a.k) {
      case "num":
        return { val: k(a.v), checks: undefined, lead: a.v };
      case "len":
        return { val: len, checks: undefined, lead: undefined };
      case "neg": {
        const e = this.arth(a.e);
        return { val: neg(e.val), checks: e.checks, lead: e.lead };
      }
      case "bin": {
        const a0 = this.arth(a.l);
        const a1 = this.arth(a.r);
        if (a.op === "/" && a1.lead === 0) throw new BpfError("division by zero", a.pos);
        if (a.op === "%" && a1.lead === 0) throw new BpfError("modulus by zero", a.pos);
        if ((a.op === "<<" || a.op === ">>") && a1.lead !== undefined && a1.lead > 31) {
          throw new BpfError("shift by more than 31 bits", a.pos);
        }
        let val: Val;
        try {
          val = bin(BIN_OPS[a.op], a0.val, a1.val);
        } catch (e) {
          if (e instanceof BpfError && e.position === undefined) throw new BpfError(e.message, a.pos);
          throw e;
        }
        return { val, checks: a0.checks, lead: a0.lead };
      }
      case "load":
        return this.load(a);
    }
  }

  /** gen_load: proto[index:size] */
  private load(a: Extract<Arth, { k: "load" }>): ArthVal {
    const inst = this.arth(a.index);
    if (a.size !== 1 && a.size !== 2 && a.size !== 4) throw new BpfError("data size must be 1, 2, or 4", a.pos);
    const size = a.size as Size;
    switch (a.proto) {
      case "link":
        return { val: this.at(size, this.s.offLinkhdr, inst.val), checks: inst.checks, lead: inst.lead };
      case "ip": case "arp": case "rarp": case "atalk": case "decnet": case "sca": case "lat": case "moprc":
      case "mopdl": case "ip6": {
        const val = this.at(size, this.linkpl, inst.val);
        const checks = andChecks(inst.checks, this.protoAbbrev(a.proto));
        return { val, checks, lead: inst.lead };
      }
      case "sctp": case "tcp": case "udp": case "icmp": case "igmp": case "igrp": case "pim": case "vrrp": case "carp": {
        const val = this.at(size, this.linkpl, bin("add", inst.val, this.ipHeaderLength(this.linkpl)));
        const ipCheck = this.protoAbbrev("ip");
        const protoCheck = and(this.protoAbbrev(a.proto), this.ipfrag());
        return { val, checks: and(ipCheck, andChecks(inst.checks, protoCheck) ?? TRUE), lead: inst.lead };
      }
      case "icmp6": {
        let checks = andChecks(inst.checks, this.protoAbbrev("ip6"));
        checks = andChecks(checks, this.cmpAt(this.linkpl + 6, 1, IPPROTO_ICMPV6));
        return { val: this.at(size, this.linkpl + 40, inst.val), checks, lead: inst.lead };
      }
      default:
        throw new BpfError("unsupported index operation", a.pos);
    }
  }

  // ---- the rest ------------------------------------------------------------------------------------

  private other(o: Other): Pred {
    switch (o.t) {
      case "unsupported":
        throw new BpfError(o.message);
      case "broadcast":
        return this.broadcast(o.proto);
      case "multicast":
        return this.multicast(o.proto);
      case "less":
        return not(cmp("gt", len, k(o.n)));
      case "greater":
        return cmp("ge", len, k(o.n));
      case "byte":
        return this.byteop(o.op, o.idx, o.val);
      case "vlan":
        return this.vlan(o.n);
      case "mpls":
        return this.mpls(o.n);
      case "pppoed":
        return this.linktype(ETHERTYPE_PPPOED);
      case "pppoes":
        return this.pppoes(o.n);
      case "geneve":
        return this.geneve(o.n);
      case "llc":
        return this.llc(o.sub);
    }
  }

  private broadcast(proto: ProtoQ): Pred {
    switch (proto) {
      case "default":
      case "link":
        if (this.s.linktype !== "ether") throw new BpfError("not a broadcast link");
        {
          const check = this.tunnelledEthernet();
          return this.withLinkHeader(this.bytesAt(this.s.offLinkhdr, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), check);
        }
      case "ip": {
        // tcpdump compiles savefile filters with netmask 0, so the host part is all 32 bits
        const b0 = this.linktype(ETHERTYPE_IP);
        const b2 = or(this.cmpAt(this.linkpl + 16, 4, 0, 0xffffffff), this.cmpAt(this.linkpl + 16, 4, 0xffffffff, 0xffffffff));
        return and(b0, b2);
      }
      default:
        throw new BpfError("only link-layer/IP broadcast filters supported");
    }
  }

  private multicast(proto: ProtoQ): Pred {
    switch (proto) {
      case "default":
      case "link":
        if (this.s.linktype !== "ether") {
          throw new BpfError("link-layer multicast filters supported only on ethernet/FDDI/token ring/ARCNET/802.11/ATM LANE/Fibre Channel");
        }
        {
          const check = this.tunnelledEthernet();
          return this.withLinkHeader(cmp("set", this.at(1, this.s.offLinkhdr), k(1)), check);
        }
      case "ip":
        return and(this.linktype(ETHERTYPE_IP), cmp("ge", this.at(1, this.linkpl + 16), k(224)));
      case "ip6":
        return and(this.linktype(ETHERTYPE_IPV6), this.cmpAt(this.linkpl + 24, 1, 255));
      default:
        throw new BpfError("link-layer multicast filters supported only on ethernet/FDDI/token ring/ARCNET/802.11/ATM LANE/Fibre Channel");
    }
  }

  /** gen_byteop; libpcap 1.10 forgets the load for `&` and `|`, testing the initial accumulator (0) instead */
  private byteop(op: "&" | "|" | "<" | ">" | "=", idx: number, val: number): Pred {
    switch (op) {
      case "=": return this.cmpAt(this.s.offLinkhdr + idx, 1, val);
      case "<": return not(cmp("ge", this.at(1, this.s.offLinkhdr + idx), k(val)));
      case ">": return cmp("gt", this.at(1, this.s.offLinkhdr + idx), k(val));
      case "|": return not(cmp("eq", bin("or", acc0, k(val)), k(0)));
      case "&": return cmp("set", acc0, k(val));
    }
  }

  private vlan(n: number | undefined): Pred {
    if (this.s.labelStackDepth > 0) throw new BpfError("no VLAN match after MPLS");
    if (this.s.linktype !== "ether") throw new BpfError("no VLAN support for PPP");
    let b0 = or(or(this.linktype(ETHERTYPE_8021Q), this.linktype(ETHERTYPE_8021AD)), this.linktype(ETHERTYPE_8021QINQ));
    if (n !== undefined) {
      if (n > 0x0fff) throw new BpfError(`VLAN tag ${n} greater than maximum 4095`);
      b0 = and(b0, this.cmpAt(this.linkpl, 2, n, 0x0fff));
    }
    this.s.offLinkpl += 4;
    this.s.offLinktype += 4;
    this.s.vlanStackDepth++;
    return b0;
  }

  /**
   * gen_geneve: UDP to port 6081 over IPv4 or IPv6, Geneve version 0, the VNI if given; then the offsets of the
   * rest of the expression move into the tunnel (registers computed at run time, see runtime.ts): the
   * EtherType is Geneve's protocol type, or the inner Ethernet header's with protocol type 0x6558.
   */
  private geneve(vni: number | undefined): Pred {
    if (vni !== undefined && vni > 0xffffff) throw new BpfError(`Geneve VNI ${vni} greater than maximum 16777215`);
    const check = (v6: boolean): Pred => {
      const transport = (off: number): Val =>
        v6 ? this.at(1, this.linkpl + 40 + off) : this.at(1, this.linkpl + off, this.ipHeaderLength(this.linkpl));
      const word = (off: number): Val =>
        v6 ? this.at(4, this.linkpl + 40 + off) : this.at(4, this.linkpl + off, this.ipHeaderLength(this.linkpl));
      const port = v6
        ? this.portGeneric(IPPROTO_UDP, "dst", true, (off) => this.cmpAt(this.linkpl + 40 + off, 2, GENEVE_PORT))
        : this.portGeneric(IPPROTO_UDP, "dst", false, (off) =>
            cmp("eq", this.at(2, this.linkpl + off, this.ipHeaderLength(this.linkpl)), k(GENEVE_PORT)));
      let b = and(port, cmp("eq", bin("and", transport(8), k(0xc0)), k(0)));
      if (vni !== undefined) b = and(b, cmp("eq", bin("and", word(12), k(0xffffff00)), k((vni << 8) >>> 0)));
      return b;
    };
    const b4 = check(false);
    const matched = or(b4, check(true));
    const outer: GeneveOuter = this.s.labelStackDepth > 0 ? "mpls" : this.s.linktype === "ppp" ? "ppp" : "ether";
    const lt = this.offsetValue(this.s.offLinktype);
    const nl = this.offsetValue(this.linkpl);
    const identity = `${outer}|${valKey(lt)}|${valKey(nl)}|${vni ?? "*"}`;
    const tunnel = this.tunnels.get(identity) ?? `t${this.tunnels.size}`;
    this.tunnels.set(identity, tunnel);
    this.s.geneve = { outer, lt, nl, vni, tunnel };
    // libpcap computes the offsets right after the checks, loads included: a frame too short for them fails
    const offsets = cmp("ge", this.register("linkpl"), k(0));
    this.s.offLinktype = registerOffset("linktype");
    this.s.offLinkhdr = registerOffset("linkhdr");
    this.s.offLinkpl = registerOffset("linkpl");
    this.s.offNl = 0;
    // the tunnel's frame is Ethernet to what follows, even inside PPPoE (libpcap's PUSH_LINKHDR)
    this.s.linktype = "ether";
    return and(matched, offsets);
  }

  private mpls(n: number | undefined): Pred {
    let b0: Pred;
    if (this.s.labelStackDepth > 0) {
      b0 = this.cmpAt(this.linkpl - 4 + 2, 1, 0, 0x01);
    } else {
      b0 = this.linktype(this.s.linktype === "ppp" ? PPP_MPLS_UCAST : ETHERTYPE_MPLS);
    }
    if (n !== undefined) {
      if (n > 0xfffff) throw new BpfError(`MPLS label ${n} greater than maximum 1048575`);
      b0 = and(b0, this.cmpAt(this.linkpl, 4, (n << 12) >>> 0, 0xfffff000));
    }
    this.s.offNlNosnap += 4;
    this.s.offNl += 4;
    this.s.labelStackDepth++;
    return b0;
  }

  private pppoes(n: number | undefined): Pred {
    let b0 = this.linktype(ETHERTYPE_PPPOES);
    if (n !== undefined) {
      if (n > 0xffff) throw new BpfError(`PPPoE session number ${n} greater than maximum 65535`);
      b0 = and(b0, this.cmpAt(this.linkpl, 4, n, 0x0000ffff));
    }
    const hdr = this.s.offLinkpl + this.s.offNl + 6;
    this.s.linktype = "ppp";
    this.s.offLinkhdr = hdr;
    this.s.offLinktype = hdr;
    this.s.offLinkpl = hdr + 2;
    this.s.offNl = 0;
    this.s.offNlNosnap = 0;
    return b0;
  }

  private llcFrame(): Pred {
    if (this.s.linktype !== "ether") throw new BpfError("'llc' not supported for PPP");
    const b0 = this.notLlc();
    return and(b0, not(this.cmpAt(this.s.offLinkpl, 2, 0xffff)));
  }

  private llc(sub: string | undefined): Pred {
    if (sub === undefined) return this.llcFrame();
    const b0 = this.llcFrame();
    const ctl = this.s.offLinkpl + 2;
    const lower = sub.toLowerCase();
    if (lower === "i") return and(b0, not(cmp("set", this.at(1, ctl), k(0x01))));
    if (lower === "s") return and(b0, this.cmpAt(ctl, 1, 0x01, 0x03));
    if (lower === "u") return and(b0, this.cmpAt(ctl, 1, 0x03, 0x03));
    const s = LLC_S_SUBTYPES.get(lower);
    if (s !== undefined) return and(b0, this.cmpAt(ctl, 1, s, 0x0f));
    const u = LLC_U_SUBTYPES.get(lower);
    if (u !== undefined) return and(b0, this.cmpAt(ctl, 1, u, 0xef));
    throw new BpfError(`unknown LLC type name "${sub}"`);
  }
}

const LLC_S_SUBTYPES: ReadonlyMap<string, number> = new Map([["rr", 0x01], ["rnr", 0x05], ["rej", 0x09]]);
const LLC_U_SUBTYPES: ReadonlyMap<string, number> = new Map([
  ["ui", 0x03], ["ua", 0x63], ["disc", 0x43], ["dm", 0x0f], ["sabme", 0x6f], ["test", 0xe3], ["xid", 0xaf], ["frmr", 0x87],
]);

const BIN_OPS = {
  "+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "&": "and", "|": "or", "^": "xor", "<<": "lsh", ">>": "rsh",
} as const;

function etherToPpp(llProto: number): number {
  switch (llProto) {
    case ETHERTYPE_IP: return 0x0021;
    case ETHERTYPE_IPV6: return 0x0057;
    case ETHERTYPE_DN: return 0x0027;
    case ETHERTYPE_ATALK: return 0x0029;
    case ETHERTYPE_NS: return 0x0025;
    case LLCSAP_ISONS: return 0x0023;
    case LLCSAP_8021D: return 0x0031;
    case LLCSAP_IPX: return 0x002b;
    default: return llProto;
  }
}

function portProto(proto: ProtoQ, kind: "port" | "portrange"): number {
  switch (proto) {
    case "udp": return IPPROTO_UDP;
    case "tcp": return IPPROTO_TCP;
    case "sctp": return IPPROTO_SCTP;
    case "default": return PROTO_UNDEF;
    case "undef": throw new BpfError("syntax error in filter expression");
    default: throw new BpfError(`illegal qualifier of '${kind}'`);
  }
}

/** `udp port ssh` is refused because ssh is a tcp port, as in libpcap's gen_scode */
function narrowPortProto(requested: number, found: number, what: string): number {
  if (requested === IPPROTO_UDP) {
    if (found === IPPROTO_TCP) throw new BpfError(`${what} is tcp`);
    if (found === IPPROTO_SCTP) throw new BpfError(`${what} is sctp`);
    return IPPROTO_UDP;
  }
  if (requested === IPPROTO_TCP) {
    if (found === IPPROTO_UDP) throw new BpfError(`${what} is udp`);
    if (found === IPPROTO_SCTP) throw new BpfError(`${what} is sctp`);
    return IPPROTO_TCP;
  }
  if (requested === IPPROTO_SCTP) {
    if (found === IPPROTO_UDP) throw new BpfError(`${what} is udp`);
    if (found === IPPROTO_TCP) throw new BpfError(`${what} is tcp`);
    return IPPROTO_SCTP;
  }
  return found;
}

/** pcap_nametoport: a stream lookup (tcp, then sctp) and a datagram lookup (udp), as getaddrinfo does them */
function lookupPort(name: string): { port: number; proto: number } | undefined {
  if (/^[0-9]+$/.test(name)) {
    const n = Number(name);
    return n <= 65535 ? { port: n, proto: PROTO_UNDEF } : undefined;
  }
  const e = SERVICES.get(name);
  if (e === undefined) return undefined;
  const [tcp, udp, sctp] = e;
  const stream = tcp >= 0 ? tcp : sctp;
  if (stream >= 0) return { port: stream, proto: udp === stream ? PROTO_UNDEF : IPPROTO_TCP };
  if (udp >= 0) return { port: udp, proto: IPPROTO_UDP };
  return undefined;
}

/** pcap_nametoportrange: "N-M", or two port names (or numbers) around the first '-' */
function lookupPortRange(name: string): { p1: number; p2: number; proto: number } | undefined {
  const m = /^(-?[0-9]+)-(-?[0-9]+)/.exec(name);
  if (m !== null) return { p1: Number(m[1]), p2: Number(m[2]), proto: PROTO_UNDEF };
  const dash = name.indexOf("-");
  if (dash < 0) return undefined;
  const a = lookupPort(name.slice(0, dash));
  if (a === undefined) return undefined;
  const b = lookupPort(name.slice(dash + 1));
  if (b === undefined) return undefined;
  return { p1: a.port, p2: b.port, proto: a.proto === b.proto ? b.proto : PROTO_UNDEF };
}

/** __pcap_atoin: dotted decimal with 1 to 4 parts; the address is right-aligned, `bits` = 8 per part */
function parseIpv4(s: string): { addr: number; bits: number } | undefined {
  const parts = s.split(".");
  let addr = 0;
  for (const p of parts) {
    if (!/^[0-9]+$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    addr = ((addr << 8) | n) >>> 0;
  }
  return { addr, bits: 8 * parts.length };
}

/** __pcap_atodn: sscanf("%d.%d") -> ((area << 10) & 0xfc00) | (node & 0x3ff); libpcap does not range-check */
function parseDecnet(s: string): number | undefined {
  const m = /^([0-9]+)\.([0-9]+)/.exec(s);
  if (m === null) return undefined;
  const area = Number(m[1]);
  const node = Number(m[2]);
  return ((area << 10) & 0xfc00) | (node & 0x3ff);
}

/** pcap_ether_aton: hex digit pairs, with optional ':' '.' '-' separators */
function parseMac(s: string): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === ":" || s[i] === "." || s[i] === "-") i++;
    let d = parseInt(s.charAt(i), 16);
    i++;
    if (i < s.length && /[0-9A-Fa-f]/.test(s.charAt(i))) {
      d = d * 16 + parseInt(s.charAt(i), 16);
      i++;
    }
    out.push(d);
  }
  return out;
}

/** Compiles a parsed program to an IR predicate (throws BpfError when libpcap would refuse it). */
export function compilePredicate(p: Program): Pred {
  return new Compiler().compileProgram(p);
}
