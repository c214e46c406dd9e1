/**
 * Lexer for pcap-filter expressions.
 *
 * It follows libpcap's flex scanner: at every position the longest match wins, and among matches of equal
 * length the earlier rule wins (keywords, then punctuation, then ARCnet, Ethernet, number, IPv4, IPv6
 * addresses, named constants, identifiers). So `tcp` is a keyword but `tcpx` an identifier, `10.1` an
 * IPv4 address, `20-21` an identifier (which is why `1-1 = 0` is a syntax error in libpcap too), and
 * `\ip` the identifier `ip`. Keywords are case-sensitive, as in libpcap.
 */
import { BpfError } from "./errors.js";

export type Keyword =
  | "dst" | "src" | "link" | "arp" | "rarp" | "ip" | "sctp" | "tcp" | "udp" | "icmp" | "igmp" | "igrp" | "pim"
  | "vrrp" | "carp" | "radio" | "ip6" | "icmp6" | "ah" | "esp" | "atalk" | "aarp" | "decnet" | "lat" | "sca"
  | "moprc" | "mopdl" | "iso" | "esis" | "isis" | "l1" | "l2" | "iih" | "lsp" | "snp" | "csnp" | "psnp" | "clnp"
  | "stp" | "ipx" | "netbeui" | "host" | "net" | "mask" | "port" | "portrange" | "proto" | "protochain"
  | "gateway" | "type" | "subtype" | "dir" | "addr1" | "addr2" | "addr3" | "addr4" | "ra" | "ta" | "less"
  | "greater" | "byte" | "broadcast" | "multicast" | "and" | "or" | "not" | "len" | "inbound" | "outbound"
  | "ifindex" | "vlan" | "mpls" | "pppoed" | "pppoes" | "geneve" | "lane" | "llc" | "metac" | "bcc" | "oam"
  | "oamf4" | "oamf4ec" | "oamf4sc" | "sc" | "ilmic" | "vpi" | "vci" | "connectmsg" | "metaconnect" | "ifname"
  | "rset" | "rnr" | "srnr" | "reason" | "action" | "fisu" | "lssu" | "msu" | "hfisu" | "hlssu" | "hmsu" | "sio"
  | "opc" | "dpc" | "sls" | "hsio" | "hopc" | "hdpc" | "hsls";

export type Punct =
  | "+" | "-" | "*" | "/" | "%" | ":" | "[" | "]" | "<" | ">" | "(" | ")" | "&" | "|" | "^" | "="
  | ">=" | "<=" | "!=" | "<<" | ">>";

export type Token =
  | { readonly kind: "kw"; readonly kw: Keyword; readonly pos: number; readonly text: string }
  | { readonly kind: "punct"; readonly p: Punct; readonly pos: number; readonly text: string }
  | { readonly kind: "num"; readonly value: number; readonly pos: number; readonly text: string }
  | { readonly kind: "id"; readonly value: string; readonly pos: number; readonly text: string }
  | { readonly kind: "hid"; readonly value: string; readonly pos: number; readonly text: string }
  | { readonly kind: "hid6"; readonly value: string; readonly pos: number; readonly text: string }
  | { readonly kind: "eid"; readonly value: string; readonly pos: number; readonly text: string }
  | { readonly kind: "aid"; readonly value: string; readonly pos: number; readonly text: string }
  | { readonly kind: "eof"; readonly pos: number; readonly text: string };

/** Spelling -> keyword; synonyms map to one keyword. `and`/`&&`, `or`/`||` and `not`/`!` are the same token. */
const KEYWORDS: ReadonlyMap<string, Keyword> = new Map<string, Keyword>([
  ["dst", "dst"], ["src", "src"],
  ["link", "link"], ["ether", "link"], ["ppp", "link"], ["slip", "link"], ["fddi", "link"], ["tr", "link"], ["wlan", "link"],
  ["arp", "arp"], ["rarp", "rarp"], ["ip", "ip"], ["sctp", "sctp"], ["tcp", "tcp"], ["udp", "udp"], ["icmp", "icmp"],
  ["igmp", "igmp"], ["igrp", "igrp"], ["pim", "pim"], ["vrrp", "vrrp"], ["carp", "carp"], ["radio", "radio"],
  ["ip6", "ip6"], ["icmp6", "icmp6"], ["ah", "ah"], ["esp", "esp"],
  ["atalk", "atalk"], ["aarp", "aarp"], ["decnet", "decnet"], ["lat", "lat"], ["sca", "sca"], ["moprc", "moprc"], ["mopdl", "mopdl"],
  ["iso", "iso"], ["esis", "esis"], ["es-is", "esis"], ["isis", "isis"], ["is-is", "isis"], ["l1", "l1"], ["l2", "l2"],
  ["iih", "iih"], ["lsp", "lsp"], ["snp", "snp"], ["csnp", "csnp"], ["psnp", "psnp"], ["clnp", "clnp"],
  ["stp", "stp"], ["ipx", "ipx"], ["netbeui", "netbeui"],
  ["host", "host"], ["net", "net"], ["mask", "mask"], ["port", "port"], ["portrange", "portrange"], ["proto", "proto"],
  ["protochain", "protochain"], ["gateway", "gateway"],
  ["type", "type"], ["subtype", "subtype"], ["direction", "dir"], ["dir", "dir"],
  ["address1", "addr1"], ["addr1", "addr1"], ["address2", "addr2"], ["addr2", "addr2"], ["address3", "addr3"],
  ["addr3", "addr3"], ["address4", "addr4"], ["addr4", "addr4"], ["ra", "ra"], ["ta", "ta"],
  ["less", "less"], ["greater", "greater"], ["byte", "byte"], ["broadcast", "broadcast"], ["multicast", "multicast"],
  ["and", "and"], ["&&", "and"], ["or", "or"], ["||", "or"], ["not", "not"],
  ["len", "len"], ["length", "len"], ["inbound", "inbound"], ["outbound", "outbound"], ["ifindex", "ifindex"],
  ["vlan", "vlan"], ["mpls", "mpls"], ["pppoed", "pppoed"], ["pppoes", "pppoes"], ["geneve", "geneve"],
  ["lane", "lane"], ["llc", "llc"], ["metac", "metac"], ["bcc", "bcc"], ["oam", "oam"], ["oamf4", "oamf4"],
  ["oamf4ec", "oamf4ec"], ["oamf4sc", "oamf4sc"], ["sc", "sc"], ["ilmic", "ilmic"], ["vpi", "vpi"], ["vci", "vci"],
  ["connectmsg", "connectmsg"], ["metaconnect", "metaconnect"],
  ["on", "ifname"], ["ifname", "ifname"], ["rset", "rset"], ["ruleset", "rset"], ["rnr", "rnr"], ["rulenum", "rnr"],
  ["srnr", "srnr"], ["subrulenum", "srnr"], ["reason", "reason"], ["action", "action"],
  ["fisu", "fisu"], ["lssu", "lssu"], ["lsu", "lssu"], ["msu", "msu"], ["hfisu", "hfisu"], ["hlssu", "hlssu"],
  ["hmsu", "hmsu"], ["sio", "sio"], ["opc", "opc"], ["dpc", "dpc"], ["sls", "sls"], ["hsio", "hsio"], ["hopc", "hopc"],
  ["hdpc", "hdpc"], ["hsls", "hsls"],
]);

/** Named constants the scanner turns into numbers (offsets and values for icmp, icmp6 and tcp headers). */
const NAMED_NUMBERS: ReadonlyMap<string, number> = new Map<string, number>([
  ["icmptype", 0], ["icmpcode", 1],
  ["icmp-echoreply", 0], ["icmp-unreach", 3], ["icmp-sourcequench", 4], ["icmp-redirect", 5], ["icmp-echo", 8],
  ["icmp-routeradvert", 9], ["icmp-routersolicit", 10], ["icmp-timxceed", 11], ["icmp-paramprob", 12],
  ["icmp-tstamp", 13], ["icmp-tstampreply", 14], ["icmp-ireq", 15], ["icmp-ireqreply", 16], ["icmp-maskreq", 17],
  ["icmp-maskreply", 18],
  ["icmp6type", 0], ["icmp6code", 1],
  ["icmp6-destinationunreach", 1], ["icmp6-packettoobig", 2], ["icmp6-timeexceeded", 3],
  ["icmp6-parameterproblem", 4], ["icmp6-echo", 128], ["icmp6-echoreply", 129],
  ["icmp6-multicastlistenerquery", 130], ["icmp6-multicastlistenerreportv1", 131],
  ["icmp6-multicastlistenerdone", 132], ["icmp6-routersolicit", 133], ["icmp6-routeradvert", 134],
  ["icmp6-neighborsolicit", 135], ["icmp6-neighboradvert", 136], ["icmp6-redirect", 137],
  ["icmp6-routerrenum", 138], ["icmp6-nodeinformationquery", 139], ["icmp6-nodeinformationresponse", 140],
  ["icmp6-ineighbordiscoverysolicit", 141], ["icmp6-ineighbordiscoveryadvert", 142],
  ["icmp6-multicastlistenerreportv2", 143], ["icmp6-homeagentdiscoveryrequest", 144],
  ["icmp6-homeagentdiscoveryreply", 145], ["icmp6-mobileprefixsolicit", 146], ["icmp6-mobileprefixadvert", 147],
  ["icmp6-certpathsolicit", 148], ["icmp6-certpathadvert", 149], ["icmp6-multicastrouteradvert", 151],
  ["icmp6-multicastroutersolicit", 152], ["icmp6-multicastrouterterm", 153],
  ["tcpflags", 13], ["tcp-fin", 0x01], ["tcp-syn", 0x02], ["tcp-rst", 0x04], ["tcp-push", 0x08],
  ["tcp-ack", 0x10], ["tcp-urg", 0x20], ["tcp-ece", 0x40], ["tcp-cwr", 0x80],
]);

const N = "(?:0[xX][0-9A-Fa-f]+|[0-9]+)";
const B = "[0-9A-Fa-f][0-9A-Fa-f]?";
const B2 = "[0-9A-Fa-f]{4}";
const W = "[0-9A-Fa-f]{1,4}";
const V4 = `${N}\\.${N}\\.${N}\\.${N}`;

/** The alternatives of libpcap's IPv6 address rule (flex takes the longest match among them). */
function v6Alternatives(): string[] {
  const alts: string[] = [`${W}(?::${W}){7}`];
  // forms with "::": i groups before, j groups after, i + j <= 7 (or <= 5 with a dotted IPv4 tail)
  for (let total = 0; total <= 7; total++) {
    for (let before = 0; before <= total; before++) {
      const after = total - before;
      const pre = before === 0 ? "" : `${W}(?::${W}){${before - 1}}`;
      const post = after === 0 ? "" : `${W}(?::${W}){${after - 1}}`;
      alts.push(`${pre}::${post}`);
    }
  }
  alts.push(`${W}(?::${W}){5}:${V4}`);
  for (let total = 0; total <= 5; total++) {
    for (let before = 0; before <= total; before++) {
      const after = total - before;
      const pre = before === 0 ? "" : `${W}(?::${W}){${before - 1}}`;
      const post = after === 0 ? "" : `${W}(?::${W}){${after - 1}}:`;
      alts.push(`${pre}::${post}${V4}`);
    }
  }
  return alts;
}

interface Rule {
  readonly re: RegExp;
  /** when JavaScript's leftmost-first alternation is not the longest match: each alternative on its own */
  readonly alternatives?: readonly RegExp[];
  readonly make: (text: string, pos: number) => Token | "skip";
}

const sticky = (src: string): RegExp => new RegExp(src, "y");

/** Converts a NUM lexeme like libpcap's stoulen: decimal, 0x hexadecimal or 0-prefixed octal, at most 32 bits. */
function parseNumber(text: string, pos: number): number {
  let base = 10;
  let digits = text;
  if (/^0[xX]/.test(text)) {
    base = 16;
    digits = text.slice(2);
  } else if (text.length > 1 && text.startsWith("0")) {
    base = 8;
    digits = text.slice(1);
    if (/[89]/.test(digits)) throw new BpfError(`number ${text} contains non-octal digit`, pos);
  }
  let n = 0;
  for (const ch of digits) {
    n = n * base + parseInt(ch, base);
    if (n > 0xffffffff) throw new BpfError(`number ${text} overflows 32 bits`, pos);
  }
  return n;
}

const RULES: readonly Rule[] = (() => {
  const rules: Rule[] = [];
  const kwSource = [...KEYWORDS.keys()]
    .sort((a, b) => b.length - a.length)
    .map((k) => k.replace(/[|&]/g, (c) => `\\${c}`))
    .join("|");
  rules.push({
    re: sticky(`(?:${kwSource})`),
    make: (text, pos) => ({ kind: "kw", kw: KEYWORDS.get(text) as Keyword, pos, text }),
  });
  rules.push({ re: sticky("[ \\r\\n\\t]"), make: () => "skip" });
  rules.push({
    re: sticky("[+\\-*/%:\\[\\]!<>()&|^=]"),
    make: (text, pos) =>
      text === "!" ? { kind: "kw", kw: "not", pos, text } : { kind: "punct", p: text as Punct, pos, text },
  });
  rules.push({
    re: sticky(">=|<=|!=|==|<<|>>"),
    make: (text, pos) => ({ kind: "punct", p: (text === "==" ? "=" : text) as Punct, pos, text }),
  });
  rules.push({ re: sticky(`\\$${B}`), make: (text, pos) => ({ kind: "aid", value: text, pos, text }) });
  rules.push({
    re: sticky(`(?:${B}:${B}:${B}:${B}:${B}:${B}|${B}-${B}-${B}-${B}-${B}-${B}|${B}\\.${B}\\.${B}\\.${B}\\.${B}\\.${B}|${B2}\\.${B2}\\.${B2}|(?:${B2}){3})`),
    make: (text, pos) => ({ kind: "eid", value: text, pos, text }),
  });
  rules.push({ re: sticky(N), make: (text, pos) => ({ kind: "num", value: parseNumber(text, pos), pos, text }) });
  rules.push({
    re: sticky(`(?:${N}\\.${N}\\.${N}\\.${N}|${N}\\.${N}\\.${N}|${N}\\.${N})`),
    make: (text, pos) => ({ kind: "hid", value: text, pos, text }),
  });
  rules.push({
    re: sticky(`(?:${v6Alternatives().join("|")})`),
    alternatives: v6Alternatives().map(sticky),
    make: (text, pos) => {
      if (parseIpv6(text) === undefined) throw new BpfError(`bogus IPv6 address ${text}`, pos);
      return { kind: "hid6", value: text, pos, text };
    },
  });
  rules.push({
    re: sticky(`${B}:+(?:${B}:+)+`),
    make: (text, pos) => {
      throw new BpfError(`bogus ethernet address ${text}`, pos);
    },
  });
  const named = [...NAMED_NUMBERS.keys()].sort((a, b) => b.length - a.length).join("|");
  rules.push({
    re: sticky(`(?:${named})`),
    make: (text, pos) => ({ kind: "num", value: NAMED_NUMBERS.get(text) as number, pos, text }),
  });
  rules.push({
    re: sticky("[A-Za-z0-9](?:[-_.A-Za-z0-9]*[.A-Za-z0-9])?"),
    make: (text, pos) => ({ kind: "id", value: text, pos, text }),
  });
  rules.push({
    re: sticky("\\\\[^ !()\\n\\t]+"),
    make: (text, pos) => ({ kind: "id", value: text.slice(1), pos, text }),
  });
  return rules;
})();

/**
 * Length of the longest match of `re` at `pos`. Every rule is written so that JavaScript's leftmost-first
 * alternation already yields the longest match, except the IPv6 rule, whose alternatives are matched one by
 * one: each is a fixed sequence of hex groups, colons and dotted numbers, so its greedy match is its longest.
 * (Probing ever shorter prefixes of the address characters instead cost time quadratic in their number.)
 */
function longestMatch(rule: Rule, input: string, pos: number): number {
  rule.re.lastIndex = pos;
  const m = rule.re.exec(input);
  if (m === null) return 0;
  if (rule.alternatives === undefined) return m[0].length;
  let best = m[0].length;
  for (const re of rule.alternatives) {
    re.lastIndex = pos;
    const m = re.exec(input);
    if (m !== null && m[0].length > best) best = m[0].length;
  }
  return best;
}

/** Splits an expression into tokens; throws BpfError (with the position) on a character libpcap cannot scan. */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  while (pos < input.length) {
    let bestLen = 0;
    let bestRule: Rule | undefined;
    for (const rule of RULES) {
      const len = longestMatch(rule, input, pos);
      if (len > bestLen) {
        bestLen = len;
        bestRule = rule;
      }
    }
    if (bestRule === undefined) {
      throw new BpfError("can't parse filter expression: syntax error", pos);
    }
    const text = input.slice(pos, pos + bestLen);
    const token = bestRule.make(text, pos);
    if (token !== "skip") tokens.push(token);
    pos += bestLen;
  }
  tokens.push({ kind: "eof", pos: input.length, text: "" });
  return tokens;
}

/** Parses a textual IPv6 address (as inet_pton does) into 16 bytes, or undefined if it is not one. */
export function parseIpv6(text: string): Uint8Array | undefined {
  let head = text;
  let v4: number[] | undefined;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    const parts = text.slice(lastColon + 1).split(".");
    if (parts.length !== 4 || parts.some((p) => !/^[0-9]{1,3}$/.test(p) || Number(p) > 255)) return undefined;
    v4 = parts.map(Number);
    head = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const parseGroups = (s: string): number[] | undefined => {
    if (s === "") return [];
    const groups = s.split(":");
    if (groups.some((g) => !/^[0-9A-Fa-f]{1,4}$/.test(g))) return undefined;
    return groups.map((g) => parseInt(g, 16));
  };
  const left = parseGroups(halves[0] ?? "");
  const right = halves.length === 2 ? parseGroups(halves[1] ?? "") : [];
  if (left === undefined || right === undefined) return undefined;
  let groups: number[];
  if (halves.length === 2) {
    if (left.length + right.length > 7) return undefined;
    groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  } else {
    if (left.length !== 8) return undefined;
    groups = left;
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  if (v4 !== undefined) bytes.set(v4, 12);
  return bytes;
}
