import { DEFAULT_REMOTE_CONSOLE, type RemoteConsole, parseCloudPorts, parseRemoteConsole } from "../../domain/switching/cloud-node.js";
import * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import { type InvalidFilterSettings, hasFilters, parseFilterSettings } from "../../domain/filters/filter-settings.js";
import { scheduleFromFile, scheduleToFile } from "./schedule-file-form.js";
import type { Project } from "../../domain/topology/project.js";
import { type Drawing, checkDrawingSettings, createDrawing } from "../../domain/topology/drawing.js";
import { SUPPORTED_NODE_TYPES, type ControllerNode, type NodePortEntry, type NodeType, defaultSymbol } from "../../domain/topology/node.js";
import { VPCS_PORTS } from "../../domain/switching/host-node.js";
import { hostPorts, parseNetemuHostSettings } from "../../domain/switching/netemu-host-node.js";
import type { Link, LinkEnd } from "../../domain/topology/link.js";
import type { Label } from "../../domain/topology/label.js";
import { parseSwitchPorts } from "../../domain/switching/port.js";
import { parseHubPorts } from "../../domain/switching/ethernet-hub.js";
import { parseNodeName } from "../../domain/switching/compute-node.js";
import { type InvalidConfiguration, invalidConfiguration } from "../../domain/configuration/invalid-configuration.js";
import { readJsonValue } from "../../domain/configuration/read.js";
import { CONFIGURATION_LIMITS } from "../../domain/configuration/limits.js";
import { JSON_DEPTH_LIMIT, gns3Json, jsonDepthExceeds } from "../shared/gns3-json.js";
import { configurationMessage } from "../shared/configuration-messages.js";
import { jsonErrorLine } from "./json-error-line.js";
import { filterProblemMessage } from "../shared/filter-messages.js";

/**
 * GNS3 2.2's project file (`<name>.gns3`, topology revision 9), as GNS3 writes it: keys sorted,
 * four-space indents, non-ASCII escaped (the one writer of GNS3's layout, shared with the HTTP
 * answers). netemu writes the parts it models (the project's settings, its switches and hubs with
 * their ports_mapping, its links with filters and suspend) and reads what GNS3 wrote: every value it
 * takes goes through the domain's one parse of that value (ADR 0053), within the same limits as
 * every other door.
 */
export const GNS3_TOPOLOGY_REVISION = 9;

/** The whole topology of one project, as the repositories hold it. */
export interface ProjectTopology {
  readonly project: Project;
  readonly nodes: readonly ControllerNode[];
  readonly links: readonly Link[];
}

const LabelCodec = t.intersection([
  t.type({ text: t.string }),
  t.partial({ style: t.union([t.string, t.null]), x: t.union([t.number, t.null]), y: t.union([t.number, t.null]), rotation: t.union([t.number, t.null]) }),
]);

const TEMPLATE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const NodeCodec = t.intersection([
  t.type({ node_id: t.string, node_type: t.string, name: t.string }),
  t.partial({
    console_type: t.union([t.string, t.null]),
    console: t.unknown,
    label: LabelCodec,
    locked: t.boolean,
    symbol: t.union([t.string, t.null]),
    x: t.number,
    y: t.number,
    z: t.number,
    properties: t.partial({ ports_mapping: t.unknown, interfaces: t.unknown, gateway: t.unknown }),
    template_id: t.unknown,
  }),
]);

const LinkEndCodec = t.intersection([t.type({ node_id: t.string, adapter_number: t.number, port_number: t.number }), t.partial({ label: LabelCodec, filters: t.unknown, schedule: t.unknown })]);

/** A link's drawing style: kept as written, its color, width and line type of the types GNS3's clients write. */
const LinkStyleCodec = t.intersection([t.UnknownRecord, t.partial({ color: t.string, width: t.number, type: t.number })]);

const LinkCodec = t.intersection([
  t.type({ link_id: t.string, nodes: t.array(LinkEndCodec) }),
  t.partial({ filters: t.unknown, suspend: t.boolean, link_style: LinkStyleCodec }),
]);

/** A drawing as GNS3 writes it in `topology.drawings` (its project id is the file's). */
const DrawingCodec = t.intersection([
  t.type({ drawing_id: t.string }),
  t.partial({ x: t.number, y: t.number, z: t.number, locked: t.boolean, rotation: t.number, svg: t.string }),
]);

const ProjectFileCodec = t.intersection([
  t.type({
    project_id: t.string,
    name: t.string,
    revision: t.number,
    type: t.literal("topology"),
    topology: t.intersection([t.type({ nodes: t.array(NodeCodec) }), t.partial({ links: t.array(LinkCodec), drawings: t.array(DrawingCodec) })]),
  }),
  t.partial({
    auto_close: t.boolean,
    auto_open: t.boolean,
    auto_start: t.boolean,
    drawing_grid_size: t.number,
    grid_size: t.number,
    scene_height: t.number,
    scene_width: t.number,
    show_grid: t.boolean,
    show_interface_labels: t.boolean,
    show_layers: t.boolean,
    snap_to_grid: t.boolean,
    supplier: t.unknown,
    variables: t.unknown,
    zoom: t.number,
  }),
]);

/** Why a project file could not be read (the file is then left as it is, and not listed). */
type ProjectFileProblem =
  /** `reason` never quotes the text: the file may hold what it should not (ADR 0057). */
  | { readonly _tag: "NotJson"; readonly reason: string }
  | { readonly _tag: "NotAProjectFile"; readonly reason: string }
  | { readonly _tag: "NewerRevision"; readonly revision: number }
  /** A value of a node that its domain parse refuses: the field says where in the file. */
  | { readonly _tag: "BadNode"; readonly nodeId: string; readonly problem: InvalidConfiguration }
  | { readonly _tag: "BadLink"; readonly linkId: string; readonly reason: string }
  | { readonly _tag: "BadFilters"; readonly linkId: string; readonly problem: InvalidFilterSettings }
  /** A project value (its limits, its variables) out of bounds. */
  | { readonly _tag: "BadProject"; readonly problem: InvalidConfiguration };

export function describeProblem(problem: ProjectFileProblem): string {
  switch (problem._tag) {
    case "NotJson":
      return `not JSON: ${problem.reason}`;
    case "NotAProjectFile":
      return `not a GNS3 project file: ${problem.reason}`;
    case "NewerRevision":
      return `topology revision ${problem.revision} is newer than GNS3 2.2's (${GNS3_TOPOLOGY_REVISION})`;
    case "BadNode":
      return `node ${problem.nodeId}: ${configurationMessage(problem.problem)}`;
    case "BadLink":
      return `link ${problem.linkId}: ${problem.reason}`;
    case "BadFilters": {
      const where = problem.problem.field ?? "filters";
      return `link ${problem.linkId}: ${where}: ${filterProblemMessage(problem.problem.problem)}`;
    }
    case "BadProject":
      return configurationMessage(problem.problem);
  }
}

/** How large a project file netemu reads; a larger one is skipped with the reason (ADR 0057). */
interface ProjectFileLimits {
  /** At most the domain's CONFIGURATION_LIMITS.nodesPerProject, which every other door keeps. */
  readonly maxNodes: number;
}

const DEFAULT_PROJECT_FILE_LIMITS: ProjectFileLimits = { maxNodes: CONFIGURATION_LIMITS.nodesPerProject };

/** The file's topology counts, checked before anything is decoded: a file is read whole or not at all. */
function tooLarge(json: unknown, limits: ProjectFileLimits): InvalidConfiguration | undefined {
  const topology = (json as { topology?: { nodes?: unknown; links?: unknown; drawings?: unknown } } | null)?.topology;
  const nodes = topology?.nodes;
  const links = topology?.links;
  const maxNodes = Math.min(limits.maxNodes, CONFIGURATION_LIMITS.nodesPerProject);
  if (Array.isArray(nodes) && nodes.length > maxNodes) {
    return invalidConfiguration("topology.nodes", { rule: "max_items", limit: maxNodes }, nodes.length);
  }
  if (Array.isArray(links) && links.length > CONFIGURATION_LIMITS.linksPerProject) {
    return invalidConfiguration("topology.links", { rule: "max_items", limit: CONFIGURATION_LIMITS.linksPerProject }, links.length);
  }
  const drawings = topology?.drawings;
  if (Array.isArray(drawings) && drawings.length > CONFIGURATION_LIMITS.drawingsPerProject) {
    return invalidConfiguration("topology.drawings", { rule: "max_items", limit: CONFIGURATION_LIMITS.drawingsPerProject }, drawings.length);
  }
  return undefined;
}

function firstError(errors: t.Errors): string {
  const e = errors[0];
  if (e === undefined) return "invalid";
  // io-ts names intersection members by index too: keep the field names, which say where.
  const path = e.context
    .map((c) => c.key)
    .filter((k) => k !== "" && !/^\d+$/.test(k))
    .join(".");
  return `${path || "(top)"}: got ${kindOf(e.value)}`;
}

/** What a value is, never what it says: a skip message quotes nothing of the file (ADR 0057). */
function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * Why a text is not JSON, by line: Node's own message may quote the text (`Unexpected token 'r',
 * "root:x:0:0"... is not valid JSON`), which a log line must not.
 */
function notJsonReason(text: string): string {
  return text.trim() === "" ? "the file is empty" : `it goes wrong at line ${jsonErrorLine(text)}`;
}

const isSupported = (nodeType: string): nodeType is NodeType => (SUPPORTED_NODE_TYPES as readonly string[]).includes(nodeType);

/** A label as written: the fields present are kept, as GNS3 reads them back. */
function label(raw: t.TypeOf<typeof LabelCodec> | undefined, fallback: Label): Label {
  if (raw === undefined) return fallback;
  return {
    text: raw.text,
    ...(raw.style === undefined ? {} : { style: raw.style }),
    ...(raw.x === undefined ? {} : { x: raw.x }),
    ...(raw.y === undefined || raw.y === null ? {} : { y: raw.y }),
    ...(raw.rotation === undefined || raw.rotation === null ? {} : { rotation: raw.rotation }),
  };
}

/** A cloud's remote_console_* properties, GNS3's defaults for those not written. */
function remoteConsoleIn(properties: Readonly<Record<string, unknown>> | undefined, field: string): E.Either<InvalidConfiguration, RemoteConsole> {
  const p = properties ?? {};
  const given = (key: string, fallback: unknown) => (Object.prototype.hasOwnProperty.call(p, key) ? p[key] : fallback);
  const d = DEFAULT_REMOTE_CONSOLE;
  const parsed = parseRemoteConsole({ host: given("remote_console_host", d.host), port: given("remote_console_port", d.port), type: given("remote_console_type", d.type), httpPath: given("remote_console_http_path", d.httpPath) }, field);
  const names: Readonly<Record<string, string>> = { host: "remote_console_host", port: "remote_console_port", type: "remote_console_type", httpPath: "remote_console_http_path" };
  return E.mapLeft((e: InvalidConfiguration) => ({ ...e, field: e.field.replace(/\.(host|port|type|httpPath)$/, (_, k: string) => `.${names[k]}`) }))(parsed);
}

/** A node's ports_mapping, by its node type's parse; none written is none. A VPCS has its one port whatever is written. */
function portEntries(nodeType: NodeType, raw: unknown, field: string): E.Either<InvalidConfiguration, readonly NodePortEntry[]> {
  if (nodeType === "vpcs") return E.right(VPCS_PORTS);
  if (raw === undefined) return E.right([]);
  if (nodeType === "cloud") return parseCloudPorts(raw, field);
  // A hub's and a Linux host's ports are a name and a number (a host's follow from its interfaces).
  return nodeType === "ethernet_hub" || nodeType === "netemu_host" ? parseHubPorts(raw, field) : parseSwitchPorts(raw, field);
}

/**
 * Reads a project file. `path` is the project's directory and `filename` the file's name; the
 * project comes back closed. Node types netemu does not run are listed in `unsupportedNodeTypes`
 * and their nodes and links are not read. Whether its filters' pcap-filter expressions compile is
 * the caller's to ask (the application compiles each distinct text once).
 */
export function parseProjectFile(text: string, path: string, filename: string, limits: ProjectFileLimits = DEFAULT_PROJECT_FILE_LIMITS): E.Either<ProjectFileProblem, ProjectTopology> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return E.left({ _tag: "NotJson", reason: notJsonReason(text) });
  }
  if (jsonDepthExceeds(json, JSON_DEPTH_LIMIT)) return E.left({ _tag: "NotJson", reason: `nested deeper than ${JSON_DEPTH_LIMIT} levels` });
  const large = tooLarge(json, limits);
  if (large !== undefined) return E.left({ _tag: "BadProject", problem: large });
  const decoded = ProjectFileCodec.decode(json);
  if (E.isLeft(decoded)) return E.left({ _tag: "NotAProjectFile", reason: firstError(decoded.left) });
  const file = decoded.right;
  if (file.revision > GNS3_TOPOLOGY_REVISION) return E.left({ _tag: "NewerRevision", revision: file.revision });

  for (const [key, value] of [["supplier", file.supplier], ["variables", file.variables]] as const) {
    const bounded = readJsonValue(value ?? null, key, CONFIGURATION_LIMITS.jsonDepth);
    if (E.isLeft(bounded)) return E.left({ _tag: "BadProject", problem: bounded.left });
  }
  const drawings: Drawing[] = [];
  for (const [i, d] of (file.topology.drawings ?? []).entries()) {
    // The same check as a POST's (ADR 0091): a file's drawing is refused where the API would refuse it.
    const checked = checkDrawingSettings({ x: d.x, y: d.y, z: d.z, locked: d.locked, rotation: d.rotation, svg: d.svg }, `topology.drawings[${i}].`);
    if (E.isLeft(checked)) return E.left({ _tag: "BadProject", problem: checked.left });
    drawings.push(createDrawing(file.project_id, d.drawing_id, checked.right));
  }
  const unsupported = [...new Set(file.topology.nodes.map((n) => n.node_type).filter((type) => !isSupported(type)))].sort();
  const project: Project = {
    projectId: file.project_id,
    name: file.name,
    status: "closed",
    path,
    filename,
    autoClose: file.auto_close ?? true,
    autoOpen: file.auto_open ?? false,
    autoStart: file.auto_start ?? false,
    sceneWidth: file.scene_width ?? 2000,
    sceneHeight: file.scene_height ?? 1000,
    zoom: file.zoom ?? 100,
    showLayers: file.show_layers ?? false,
    snapToGrid: file.snap_to_grid ?? false,
    showGrid: file.show_grid ?? false,
    gridSize: file.grid_size ?? 75,
    drawingGridSize: file.drawing_grid_size ?? 25,
    showInterfaceLabels: file.show_interface_labels ?? false,
    supplier: file.supplier ?? null,
    variables: file.variables ?? null,
    unsupportedNodeTypes: unsupported,
    drawings,
  };

  if (unsupported.length > 0) return E.right({ project, nodes: [], links: [] });

  const nodes: ControllerNode[] = [];
  for (const [i, n] of file.topology.nodes.entries()) {
    const nodeType = n.node_type as NodeType;
    const at = `topology.nodes[${i}]`;
    const name = parseNodeName(n.name, `${at}.name`);
    if (E.isLeft(name)) return E.left({ _tag: "BadNode", nodeId: n.node_id, problem: name.left });
    const ports = portEntries(nodeType, n.properties?.ports_mapping, `${at}.properties.ports_mapping`);
    if (E.isLeft(ports)) return E.left({ _tag: "BadNode", nodeId: n.node_id, problem: ports.left });
    const remote = nodeType === "cloud" ? remoteConsoleIn(n.properties, `${at}.properties`) : E.right(undefined);
    if (E.isLeft(remote)) return E.left({ _tag: "BadNode", nodeId: n.node_id, problem: remote.left });
    // A Linux host's interfaces and gateway, by the one parse its compute use case makes too (ADR 0087).
    const host = nodeType === "netemu_host" ? parseNetemuHostSettings(n.properties?.interfaces, n.properties?.gateway, `${at}.properties`) : undefined;
    if (host !== undefined && E.isLeft(host)) return E.left({ _tag: "BadNode", nodeId: n.node_id, problem: host.left });
    nodes.push({
      nodeId: n.node_id,
      projectId: file.project_id,
      nodeType,
      // netemu's controller runs every node on its own compute, whichever compute GNS3 had put it on.
      computeId: "local",
      name: name.right,
      x: n.x ?? 0,
      y: n.y ?? 0,
      z: n.z ?? 1,
      locked: n.locked ?? false,
      label: label(n.label, { text: n.name, style: null, x: null, y: -40, rotation: 0 }),
      symbol: n.symbol ?? defaultSymbol(nodeType),
      portsMapping: host === undefined ? ports.right : hostPorts(host.right.interfaces),
      ...(host !== undefined && { host: host.right }),
      // A VPCS's console is telnet unless GNS3 wrote none; a switch's is none unless telnet.
      consoleType: nodeType === "ethernet_hub" || nodeType === "cloud" ? null : nodeType === "netemu_host" ? "none" : nodeType === "vpcs" ? (n.console_type === "none" ? "none" : "telnet") : n.console_type === "telnet" ? "telnet" : "none",
      // A host's console port, asked for again when the project opens (another one if it was taken meanwhile).
      ...(remote.right !== undefined && { remoteConsole: remote.right }),
      ...(nodeType === "vpcs" && { console: typeof n.console === "number" && Number.isInteger(n.console) && n.console >= 1 && n.console <= 65_535 ? n.console : null }),
      // Kept only when it is a template id's shape: it is informative, never worth refusing a file for.
      ...(typeof n.template_id === "string" && TEMPLATE_ID.test(n.template_id) && { templateId: n.template_id }),
    });
  }

  const links: Link[] = [];
  for (const l of file.topology.links ?? []) {
    const [a, b] = l.nodes;
    if (l.nodes.length !== 2 || a === undefined || b === undefined) return E.left({ _tag: "BadLink", linkId: l.link_id, reason: `${l.nodes.length} ends` });
    const filters = parseFilterSettings(l.filters ?? {}, "filters");
    if (E.isLeft(filters)) return E.left({ _tag: "BadFilters", linkId: l.link_id, problem: filters.left });
    // The UDP ports of a link's tunnel are not in the file: opening the project reserves new ones.
    const ends: LinkEnd[] = [];
    for (const [i, e] of [a, b].entries()) {
      // netemu's one-way filters (ADR 0051), which GNS3 does not write.
      const sent = e.filters === undefined ? E.right({}) : parseFilterSettings(e.filters, `nodes[${i}].filters`);
      if (E.isLeft(sent)) return E.left({ _tag: "BadFilters", linkId: l.link_id, problem: sent.left });
      const schedule = scheduleFromFile(e.schedule, `nodes[${i}].schedule`);
      if (E.isLeft(schedule)) return E.left({ _tag: "BadLink", linkId: l.link_id, reason: schedule.left });
      ends.push({
        nodeId: e.node_id,
        adapterNumber: e.adapter_number,
        portNumber: e.port_number,
        label: label(e.label, { text: `${e.adapter_number}/${e.port_number}`, style: null }),
        udpPort: 0,
        ...(hasFilters(sent.right) ? { filters: sent.right } : {}),
        ...(schedule.right === undefined ? {} : { schedule: schedule.right }),
      });
    }
    links.push({ linkId: l.link_id, projectId: file.project_id, nodes: [ends[0] as LinkEnd, ends[1] as LinkEnd], filters: filters.right, suspend: l.suspend ?? false, linkStyle: l.link_style ?? {}, capture: null });
  }
  return E.right({ project, nodes, links });
}

/** A drawing as GNS3 writes it (`Drawing.__json__(topology_dump=True)`: no project id). */
function drawingEntry(d: Drawing): Record<string, unknown> {
  return { drawing_id: d.drawingId, locked: d.locked, rotation: d.rotation, svg: d.svg, x: d.x, y: d.y, z: d.z };
}

/** The project file of a topology: what GNS3 2.2 would write for the same project. */
export function renderProjectFile(topology: ProjectTopology, gns3Version: string): string {
  const { project, nodes, links } = topology;
  const file = {
    ...projectEntry(project),
    topology: { computes: [], drawings: project.drawings.map(drawingEntry), links: links.map(linkEntry), nodes: nodes.map(nodeEntry) },
    type: "topology",
    version: gns3Version,
  };
  // GNS3's json.dump(topology, f, indent=4, sort_keys=True): the same layout as its answers, no newline at the end.
  return gns3Json(file);
}

/** What a project's record puts in its file, besides its topology (its status is not written). */
function projectEntry(project: Project): Record<string, unknown> {
  return {
    auto_close: project.autoClose,
    auto_open: project.autoOpen,
    auto_start: project.autoStart,
    drawing_grid_size: project.drawingGridSize,
    grid_size: project.gridSize,
    name: project.name,
    project_id: project.projectId,
    revision: GNS3_TOPOLOGY_REVISION,
    scene_height: project.sceneHeight,
    scene_width: project.sceneWidth,
    show_grid: project.showGrid,
    show_interface_labels: project.showInterfaceLabels,
    show_layers: project.showLayers,
    snap_to_grid: project.snapToGrid,
    supplier: project.supplier,
    variables: project.variables,
    zoom: project.zoom,
  };
}

/** A link as its file entry has it (its tunnel's UDP ports and its capture are not written). */
function linkEntry(l: Link): Record<string, unknown> {
  return {
    filters: l.filters,
    link_id: l.linkId,
    link_style: l.linkStyle,
    nodes: l.nodes.map((n) => ({
      adapter_number: n.adapterNumber,
      // netemu's one-way filters, only when set: GNS3 ignores the key, and files without them stay GNS3's.
      ...(n.filters === undefined ? {} : { filters: n.filters }),
      // netemu's schedule and when it was set (ADR 0102: time continues when the project is opened again).
      ...scheduleToFile("schedule", n.schedule),
      label: n.label,
      node_id: n.nodeId,
      port_number: n.portNumber,
    })),
    suspend: l.suspend,
  };
}

/** A cloud's properties as GNS3 writes them (its host `interfaces` list aside: netemu reads the host's anew). */
function cloudProperties(n: ControllerNode): Record<string, unknown> {
  const r = n.remoteConsole ?? DEFAULT_REMOTE_CONSOLE;
  return { ports_mapping: n.portsMapping, remote_console_host: r.host, remote_console_http_path: r.httpPath, remote_console_port: r.port, remote_console_type: r.type };
}

function nodeEntry(n: ControllerNode): Record<string, unknown> {
  return {
    compute_id: n.computeId,
    console: n.console ?? null,
    console_auto_start: false,
    console_type: n.consoleType,
    custom_adapters: [],
    first_port_name: null,
    height: 59,
    label: n.label,
    locked: n.locked,
    name: n.name,
    node_id: n.nodeId,
    node_type: n.nodeType,
    port_name_format: "Ethernet{0}",
    port_segment_size: 0,
    // GNS3 writes a VPCS's properties empty (its startup script is a file of its own, startup.vpc).
    properties:
      n.nodeType === "vpcs" ? {} : n.nodeType === "cloud" ? cloudProperties(n) : n.nodeType === "netemu_host" ? { ports_mapping: n.portsMapping, interfaces: n.host?.interfaces ?? [], gateway: n.host?.gateway ?? null } : { ports_mapping: n.portsMapping },
    symbol: n.symbol,
    template_id: n.templateId ?? null,
    width: 65,
    x: n.x,
    y: n.y,
    z: n.z,
  };
}

/**
 * Whether a record's change shows in its project's file: its entry there, rendered as it is written,
 * differs (ADR 0053). Opening a project saves every link with new tunnel ports and the project as
 * opened, none of which the file holds: none of it rewrites the file.
 */
export const fileEntryChanged = {
  // Its drawings are part of the project's record (ADR 0091): a new array is a change to write.
  project: (before: Project | undefined, after: Project): boolean => entryChanged(before, after, projectEntry) || (before !== undefined && before.drawings !== after.drawings),
  node: (before: ControllerNode | undefined, after: ControllerNode): boolean => entryChanged(before, after, nodeEntry),
  link: (before: Link | undefined, after: Link): boolean => entryChanged(before, after, linkEntry),
};

/**
 * The rule is the rendering: an entry changed when it would be written otherwise. Most saves keep the
 * entry's parts as they were (the same label, filters and style objects): those are told apart
 * without rendering anything.
 */
function entryChanged<R extends object>(before: R | undefined, after: R, entry: (r: R) => Record<string, unknown>): boolean {
  if (before === undefined) return true;
  if (before === after) return false;
  const [a, b] = [entry(before), entry(after)];
  return !sameParts(a, b, 3) && gns3Json(a) !== gns3Json(b);
}

/** Equal primitives, or the same objects, down to `depth` levels of the entries' own objects and arrays. */
function sameParts(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (depth === 0 || typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameParts((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth - 1));
}
