import type { Schedule } from "../../domain/filters/schedule.js";
import { labSchedule } from "./lab-schedule.js";
import * as E from "fp-ts/lib/Either.js";
import { type Document, LineCounter, type Node as YamlNode, isMap, isPair, isScalar, isSeq, parseDocument } from "yaml";
import { type FilterProblem, type FilterSettings, parseFilterSettings, directionConflict } from "../../domain/filters/filter-settings.js";
import { QUANTITY_STEP, QUANTITY_TEXT, quantityOf } from "../../domain/filters/quantity.js";
import { queueDisciplineMessage, queueOnTraceMessage } from "../../domain/queueing/queue-discipline-messages.js";
import type { PortMappingEntry } from "../../domain/switching/port.js";
import { LabCodec, type RawLab, type RawLink } from "./lab-format.js";
import { type HostInterface, type Lab, type LabLink, type LabLinkEnd, type LabNode, type UdpTunnelPort, defaultHubPorts, defaultSwitchPorts, inSubnet, portsOf, resolvePort } from "./lab.js";

/** A lab file that cannot be used, and where: the file, the line (1-based, 0 when the file is empty) and the field. */
interface LabFileInvalid {
  readonly _tag: "LabFileInvalid";
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** The field's path, `nodes.sw1.ports[2].vlan`; empty for the file as a whole. */
  readonly field: string;
  readonly message: string;
}

type Path = readonly (string | number)[];

/** `nodes.sw1.ports[2]` from ["nodes", "sw1", "ports", 2]. */
export function fieldOf(path: Path): string {
  return path.reduce<string>((text, key) => (typeof key === "number" ? `${text}[${key}]` : text === "" ? key : `${text}.${key}`), "");
}

/** The words of `file:line: field: message`, as the CLI prints it. */
export function describeLabFileInvalid(e: LabFileInvalid): string {
  return `${e.file}:${e.line}${e.column > 0 ? `:${e.column}` : ""}: ${e.field === "" ? "" : `${e.field}: `}${e.message}`;
}

class Located {
  constructor(
    private readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** A failure at a place in the text (an offset) for the field at `path`. */
  atOffset(offset: number, path: Path, message: string): LabFileInvalid {
    const { line, col } = this.lines.linePos(offset);
    return { _tag: "LabFileInvalid", file: this.file, line, column: col, field: fieldOf(path), message };
  }

  lineOf(offset: number): number {
    return this.lines.linePos(offset).line;
  }

  /** The failure at a path: the line of the deepest node of the path the document has. */
  at(path: Path, message: string): LabFileInvalid {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? this.doc.contents : (this.doc.getIn(path.slice(0, depth), true) as YamlNode | undefined);
      const offset = node?.range?.[0];
      if (offset !== undefined) {
        const { line, col } = this.lines.linePos(offset);
        return { _tag: "LabFileInvalid", file: this.file, line, column: col, field: fieldOf(path), message };
      }
    }
    return { _tag: "LabFileInvalid", file: this.file, line: 0, column: 0, field: fieldOf(path), message };
  }
}

/** Keys given twice in one mapping (a node named twice): YAML keeps the last, silently; a lab refuses. */
function duplicateKey(node: unknown, path: Path, where: Located): LabFileInvalid | undefined {
  if (isMap(node)) {
    const seen = new Map<string, number>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const offset = (pair.key as YamlNode | null)?.range?.[0] ?? 0;
      const first = seen.get(key);
      if (first !== undefined) return where.atOffset(offset, [...path, key], `${JSON.stringify(key)} is given twice (first on line ${first})`);
      seen.set(key, where.lineOf(offset));
      const inner = duplicateKey(pair.value, [...path, key], where);
      if (inner !== undefined) return inner;
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const inner = duplicateKey(node.items[i], [...path, i], where);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/**
 * A lab file's text as a Lab (ADR 0084): YAML, then the codecs (unknown keys refused, every value typed
 * and bounded), then what refers to what (link ends to nodes and ports, a port used once, gateways in
 * their subnet). The first problem is answered, naming the file, its line and the field.
 */
export function parseLab(text: string, file: string): E.Either<LabFileInvalid, Lab> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false });
  const where = new Located(file, doc, lines);
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const { line, col } = lines.linePos(syntax.pos[0]);
    return E.left({ _tag: "LabFileInvalid", file, line, column: col, field: "", message: `not YAML: ${syntax.message.split("\n")[0] ?? syntax.code}` });
  }
  const duplicate = duplicateKey(doc.contents, [], where);
  if (duplicate !== undefined) return E.left(duplicate);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return E.left(where.at([], `not usable YAML: ${(e as Error).message}`));
  }
  if (raw === undefined || raw === null) return E.left({ _tag: "LabFileInvalid", file, line: 0, column: 0, field: "", message: "the file holds no lab (it needs name and nodes)" });
  const decoded = LabCodec.decode(raw);
  if (decoded._tag === "Left") {
    const failure = decoded.left[0];
    const path = (failure?.context ?? []).slice(1).map((c) => c.key);
    // A list's items are numbered in the context; the parent's value tells a list from a mapping.
    const typed: (string | number)[] = [];
    let parent: unknown = raw;
    for (const key of path) {
      const index = Array.isArray(parent) ? Number(key) : key;
      typed.push(index);
      parent = Array.isArray(parent) ? parent[Number(key)] : (parent as Record<string, unknown> | undefined)?.[key];
    }
    return E.left(where.at(typed, failure?.message ?? "not a lab"));
  }
  return checkLab(decoded.right, where);
}

function filterProblemText(p: FilterProblem): string {
  switch (p.problem) {
    case "too_many_lines":
      return `${p.kind}: ${p.got} expressions, at most ${p.limit}`;
    case "line_too_long":
      return `${p.kind}: expression ${p.line} is ${p.got} characters long, at most ${p.limit}`;
    case "too_much_text":
      return `${p.kind}: ${p.got} characters of expressions, at most ${p.limit}`;
    case "bpf_invalid":
      return `${p.kind}: expression ${p.line}: ${p.message}`;
    case "unknown_kind":
      return `unknown filter ${JSON.stringify(p.kind)}`;
    case "bad_trace_name":
      return `${p.kind}: ${JSON.stringify(p.got)} is not a trace name`;
    case "two_rates":
      return "capacity_trace and bandwidth are two rates: set one";
    case "queue_on_trace":
      return queueOnTraceMessage(p).replace(/^Filter /, "");
    case "unknown_trace":
      return `${p.kind}: no trace named ${JSON.stringify(p.name)}`;
    case "unfit_trace":
      return `${p.kind}: trace ${JSON.stringify(p.name)} is not ${p.expected}`;
    case "value_count":
      return `${p.kind} takes ${p.minimum === p.parameters.length ? p.minimum : `${p.minimum} to ${p.parameters.length}`} values, got ${p.got}`;
    case "not_an_integer":
      return `${p.kind}: ${String(p.got)} is not a whole number in ${p.parameter.minimum}..${p.parameter.maximum}`;
    case "out_of_range":
      return quantityOf(p.parameter.unit) === "count"
        ? `${p.kind}: ${String(p.got)} is not a whole number in ${p.parameter.minimum}..${p.parameter.maximum}`
        : `${p.kind}: ${String(p.got)}${p.value === undefined ? "" : ` (${p.value} ${p.parameter.unit})`} is not in ${p.parameter.minimum}..${p.parameter.maximum} ${p.parameter.unit}`;
    // ADR 0101: what a %, time or rate takes, said with the units it reads.
    case "not_a_number":
      return `${p.kind}: ${p.parameter.name} must be ${QUANTITY_TEXT[quantityOf(p.parameter.unit)]}, got ${String(p.got)}`;
    case "not_a_quantity":
      return `${p.kind}: ${JSON.stringify(p.got)} ${p.unit === undefined ? "is not read" : `has a unit netemu does not read (${p.unit})`}; give ${QUANTITY_TEXT[quantityOf(p.parameter.unit)]}`;
    case "too_fine":
      return `${p.kind}: ${String(p.got)} is finer than netemu takes (${QUANTITY_STEP[quantityOf(p.parameter.unit)]})`;
    case "not_a_distribution":
      return `delay_distribution: ${String(p.got)} is not uniform, normal or pareto`;
    case "bad_queue_discipline":
      return queueDisciplineMessage(p.detail).replace(/^Filter /, "");
    case "not_an_object":
    case "not_a_list":
    case "bpf_not_text":
      return `${p.problem.replace(/_/g, " ")}`;
  }
}

/** A lab's filters object (a single value may stand without its list) as checked settings. */
function filtersOf(raw: Readonly<Record<string, unknown>> | undefined, path: Path, where: Located): E.Either<LabFileInvalid, FilterSettings> {
  if (raw === undefined) return E.right({});
  const wire: Record<string, unknown[]> = {};
  for (const [kind, value] of Object.entries(raw)) wire[kind] = Array.isArray(value) ? value : [value];
  const parsed = parseFilterSettings(wire);
  if (E.isLeft(parsed)) {
    const p = parsed.left.problem;
    const kind = "kind" in p ? p.kind : undefined;
    return E.left(where.at(kind === undefined ? path : [...path, kind], filterProblemText(p)));
  }
  return parsed;
}

function checkNode(name: string, raw: Record<string, unknown>, where: Located): E.Either<LabFileInvalid, LabNode> {
  const at: Path = ["nodes", name];
  const position = { ...(raw["x"] === undefined ? {} : { x: raw["x"] as number }), ...(raw["y"] === undefined ? {} : { y: raw["y"] as number }) };
  switch (raw["kind"]) {
    case "ethernet_switch": {
      const given = raw["ports"];
      if (given === undefined || typeof given === "number") return E.right({ name, kind: "ethernet_switch", ports: defaultSwitchPorts(given ?? 8), ...position });
      const ports: PortMappingEntry[] = [];
      const entries = given as readonly { port: number; name?: string; type?: "access" | "dot1q" | "qinq"; vlan?: number; ethertype?: PortMappingEntry["ethertype"] }[];
      for (const [i, p] of entries.entries()) {
        const portName = p.name ?? `Ethernet${p.port}`;
        if (ports.some((q) => q.port_number === p.port)) return E.left(where.at([...at, "ports", i, "port"], `port ${p.port} is given twice`));
        if (ports.some((q) => q.name === portName)) return E.left(where.at([...at, "ports", i, p.name === undefined ? "port" : "name"], `the port name ${JSON.stringify(portName)} is given twice`));
        if (p.ethertype !== undefined && p.type !== "qinq") return E.left(where.at([...at, "ports", i, "ethertype"], "an ethertype is for qinq ports only"));
        ports.push({ name: portName, port_number: p.port, type: p.type ?? "access", vlan: p.vlan ?? 1, ...(p.type === "qinq" ? { ethertype: p.ethertype ?? "0x8100" } : {}) });
      }
      return E.right({ name, kind: "ethernet_switch", ports, ...position });
    }
    case "ethernet_hub":
      return E.right({ name, kind: "ethernet_hub", ports: defaultHubPorts((raw["ports"] as number | undefined) ?? 8), ...position });
    case "vpcs": {
      const address = raw["address"] as string | undefined;
      const gateway = raw["gateway"] as string | undefined;
      if (gateway !== undefined && address === undefined) return E.left(where.at([...at, "gateway"], "a gateway needs the PC's address"));
      if (gateway !== undefined && address !== undefined && !inSubnet(address, gateway)) return E.left(where.at([...at, "gateway"], `${gateway} is not in ${address}'s subnet`));
      const script = raw["startup_script"] as string | undefined;
      return E.right({ name, kind: "vpcs", address, gateway, startupScript: script, ...position });
    }
    case "cloud": {
      const ports: UdpTunnelPort[] = [];
      for (const [i, p] of (raw["ports"] as readonly { name: string; port?: number; lport: number; rhost: string; rport: number }[]).entries()) {
        const number = p.port ?? i;
        if (ports.some((q) => q.port_number === number)) return E.left(where.at([...at, "ports", i, p.port === undefined ? "name" : "port"], `port ${number} is given twice`));
        if (ports.some((q) => q.name === p.name)) return E.left(where.at([...at, "ports", i, "name"], `the port name ${JSON.stringify(p.name)} is given twice`));
        ports.push({ name: p.name, port_number: number, type: "udp", lport: p.lport, rhost: p.rhost, rport: p.rport });
      }
      return E.right({ name, kind: "cloud", ports, ...position });
    }
    case "host": {
      const interfaces = (raw["interfaces"] as readonly HostInterface[] | undefined) ?? [{ name: "eth0" }];
      for (const [i, iface] of interfaces.entries()) {
        if (interfaces.findIndex((j) => j.name === iface.name) !== i) return E.left(where.at([...at, "interfaces", i, "name"], `the interface name ${JSON.stringify(iface.name)} is given twice`));
      }
      const gateway = raw["gateway"] as string | undefined;
      if (gateway !== undefined && !interfaces.some((i) => i.address !== undefined && inSubnet(i.address, gateway))) {
        return E.left(where.at([...at, "gateway"], `${gateway} is in no interface's subnet (give an interface an address there)`));
      }
      return E.right({ name, kind: "host", interfaces: interfaces.map((i) => ({ name: i.name, ...(i.address === undefined ? {} : { address: i.address }) })), gateway, ...position });
    }
    default:
      return E.left(where.at([...at, "kind"], `unknown kind ${String(raw["kind"])}`));
  }
}

function checkLab(raw: RawLab, where: Located): E.Either<LabFileInvalid, Lab> {
  const nodes: LabNode[] = [];
  for (const [name, rawNode] of raw.nodes) {
    const node = checkNode(name, rawNode, where);
    if (E.isLeft(node)) return node;
    nodes.push(node.right);
  }
  // A UDP port can be bound once: two tunnels on one lport would fight for it.
  const lports = new Map<number, string>();
  for (const node of nodes) {
    if (node.kind !== "cloud") continue;
    for (const [i, p] of node.ports.entries()) {
      const other = lports.get(p.lport);
      if (other !== undefined) return E.left(where.at(["nodes", node.name, "ports", i, "lport"], `UDP port ${p.lport} is also ${other}'s`));
      lports.set(p.lport, `${node.name}:${p.name}`);
    }
  }
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const used = new Map<string, number>();
  const links: LabLink[] = [];
  for (const [i, link] of (raw.links ?? []).entries()) {
    const checked = checkLink(link as RawLink, i, byName, used, where);
    if (E.isLeft(checked)) return checked;
    links.push(checked.right);
  }
  const traces = raw.traces === undefined ? {} : { traces: Object.freeze(Object.fromEntries(raw.traces)) };
  return E.right({ name: raw.name, nodes, links, ...traces });
}

function checkLink(link: RawLink, index: number, nodes: ReadonlyMap<string, LabNode>, used: Map<string, number>, where: Located): E.Either<LabFileInvalid, LabLink> {
  const at: Path = ["links", index];
  const ends: LabLinkEnd[] = [];
  for (const [e, endpoint] of (link.endpoints as string[]).entries()) {
    const colon = endpoint.indexOf(":");
    const nodeName = endpoint.slice(0, colon);
    const portText = endpoint.slice(colon + 1);
    const node = nodes.get(nodeName);
    if (node === undefined) return E.left(where.at([...at, "endpoints", e], `no node ${JSON.stringify(nodeName)} in the lab (its nodes: ${[...nodes.keys()].join(", ") || "none"})`));
    const port = resolvePort(node, portText);
    if (port === undefined) {
      const ports = portsOf(node).map((p) => (node.kind === "cloud" || node.kind === "host" ? p.name : `e${p.number}`));
      return E.left(where.at([...at, "endpoints", e], `${nodeName} has no port ${JSON.stringify(portText)} (its ports: ${ports.join(", ")})`));
    }
    const key = `${nodeName}\u0000${port.number}`;
    const other = used.get(key);
    if (other !== undefined) return E.left(where.at([...at, "endpoints", e], `${nodeName}'s port ${port.name} is already an end of ${other === index ? "this link" : `links[${other}]`}`));
    used.set(key, index);
    ends.push({ node: nodeName, port: port.number });
  }
  const filters = filtersOf(link.filters, [...at, "filters"], where);
  if (E.isLeft(filters)) return filters;
  const aToB = filtersOf(link.a_to_b, [...at, "a_to_b"], where);
  if (E.isLeft(aToB)) return aToB;
  const bToA = filtersOf(link.b_to_a, [...at, "b_to_a"], where);
  if (E.isLeft(bToA)) return bToA;
  // A direction runs `filters` with its own kinds over them: a rate or discipline in one and a capacity trace in the other meet there.
  for (const [key, given] of [["a_to_b", aToB.right], ["b_to_a", bToA.right]] as const) {
    const clash = directionConflict({ ...filters.right, ...given });
    if (clash !== undefined) return E.left(where.at([...at, key], filterProblemText(clash)));
  }
  const schedules: (Schedule | undefined)[] = [];
  for (const [key, fixed] of [["a_to_b_schedule", link.a_to_b], ["b_to_a_schedule", link.b_to_a]] as const) {
    const schedule = labSchedule(link[key], key, fixed !== undefined, filterProblemText);
    if (E.isLeft(schedule)) return E.left(where.at([...at, ...schedule.left.path], schedule.left.message));
    schedules.push(schedule.right);
  }
  return E.right({
    ends: [ends[0] as LabLinkEnd, ends[1] as LabLinkEnd],
    filters: filters.right,
    aToB: aToB.right,
    bToA: bToA.right,
    ...(schedules[0] === undefined ? {} : { aToBSchedule: schedules[0] }),
    ...(schedules[1] === undefined ? {} : { bToASchedule: schedules[1] }),
    suspend: link.suspend ?? false,
    ...(link.style === undefined ? {} : { style: link.style }),
  });
}
