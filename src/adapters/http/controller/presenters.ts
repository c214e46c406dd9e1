import { DEFAULT_REMOTE_CONSOLE } from "../../../domain/switching/cloud-node.js";
import type * as t from "io-ts";
import type { Project } from "../../../domain/topology/project.js";
import type { ControllerNode } from "../../../domain/topology/node.js";
import type { Drawing } from "../../../domain/topology/drawing.js";
import type { ComputeAnswer, DrawingAnswer, FilterDescriptorAnswer, LinkAnswer, NodeAnswer, ProjectAnswer, ProjectStatsAnswer, TemplateAnswer } from "./answers.js";
import { hasFilters, renderFilterSettings } from "../../../domain/filters/filter-settings.js";
import { renderSchedule } from "../../../domain/filters/schedule.js";
import { presentScheduleNow } from "../server/schedule-presenters.js";
import type { Link } from "../../../domain/topology/link.js";
import type { ControllerNodeDetail, ControllerNodeView } from "../../../application/use-cases/controller/node-views.js";
import type { LinkView } from "../../../application/use-cases/controller/get-link.js";
import { presentCounters, presentPortStatistics } from "../compute/presenters.js";
import type { RunnableTemplate } from "../../../domain/topology/templates.js";
import type { FilterDescriptor } from "../../../domain/filters/catalogue.js";
import type { ComputeView } from "../../../application/use-cases/controller/list-computes.js";
import type { ProjectStats } from "../../../application/use-cases/controller/get-project-stats.js";

/** Wire shapes of GNS3 2.2's controller answers, field for field. */
export function presentProject(p: Project): t.TypeOf<typeof ProjectAnswer> {
  return {
    auto_close: p.autoClose,
    auto_open: p.autoOpen,
    auto_start: p.autoStart,
    drawing_grid_size: p.drawingGridSize,
    filename: p.filename,
    grid_size: p.gridSize,
    name: p.name,
    path: p.path,
    project_id: p.projectId,
    scene_height: p.sceneHeight,
    scene_width: p.sceneWidth,
    show_grid: p.showGrid,
    show_interface_labels: p.showInterfaceLabels,
    show_layers: p.showLayers,
    snap_to_grid: p.snapToGrid,
    status: p.status,
    supplier: p.supplier,
    variables: p.variables,
    zoom: p.zoom,
  };
}

/** A node's `properties` as GNS3 answers them: a switch's and hub's ports_mapping, a VPCS's none. */
function nodeProperties(node: ControllerNode): t.TypeOf<typeof NodeAnswer>["properties"] {
  if (node.nodeType === "cloud") {
    const r = node.remoteConsole ?? DEFAULT_REMOTE_CONSOLE;
    return { ports_mapping: [...node.portsMapping], remote_console_host: r.host, remote_console_port: r.port, remote_console_type: r.type, remote_console_http_path: r.httpPath };
  }
  if (node.nodeType === "netemu_host") return { ports_mapping: [...node.portsMapping], interfaces: (node.host?.interfaces ?? []).map((i) => ({ ...i })), gateway: node.host?.gateway ?? null };
  return node.nodeType === "vpcs" ? {} : { ports_mapping: [...node.portsMapping] };
}

export function presentNode(view: ControllerNodeView, consoleHost: string): t.TypeOf<typeof NodeAnswer> {
  const node = view.node;
  return {
    // A VPCS's command line and directory are its compute's (GNS3 copies them from the compute's answer).
    command_line: view.commandLine,
    compute_id: node.computeId,
    console: view.console,
    console_auto_start: false,
    console_host: consoleHost,
    console_type: node.consoleType,
    custom_adapters: [],
    first_port_name: null,
    height: 59,
    label: node.label,
    locked: node.locked,
    name: node.name,
    node_directory: view.directory,
    node_id: node.nodeId,
    node_type: node.nodeType,
    port_name_format: "Ethernet{0}",
    port_segment_size: 0,
    ports: node.portsMapping.map((p) => ({
      adapter_number: 0,
      data_link_types: { Ethernet: "DLT_EN10MB" },
      link_type: "ethernet",
      name: p.name,
      port_number: p.port_number,
      // GNS3 shortens a cloud's port to its name (eth0, "UDP tunnel 1").
      short_name: node.nodeType === "cloud" ? p.name : `e${p.port_number}`,
    })),
    project_id: node.projectId,
    properties: nodeProperties(node),
    status: view.status,
    symbol: node.symbol,
    template_id: node.templateId ?? null,
    width: 65,
    x: node.x,
    y: node.y,
    z: node.z,
  };
}

export function presentLink(link: Link): t.TypeOf<typeof LinkAnswer> {
  return {
    capture_compute_id: link.capture === null ? null : "local",
    capture_file_name: link.capture?.fileName ?? null,
    capture_file_path: link.capture?.filePath ?? null,
    capturing: link.capture !== null,
    filters: renderFilterSettings(link.filters),
    link_id: link.linkId,
    link_style: link.linkStyle,
    link_type: "ethernet",
    nodes: link.nodes.map((n) => ({
      adapter_number: n.adapterNumber,
      // netemu's one-way filters, only when set: a GNS3 link end has no such key.
      ...(n.filters === undefined || !hasFilters(n.filters) ? {} : { filters: renderFilterSettings(n.filters) }),
      // netemu's schedule of what this end sends (ADR 0102), as set; its step now is in the metrics and in a GET of the link (presentLinkView).
      ...(n.schedule === undefined ? {} : { schedule: renderSchedule(n.schedule.schedule), schedule_set_at: new Date(n.schedule.setAtMs).toISOString() }),
      label: n.label,
      node_id: n.nodeId,
      port_number: n.portNumber,
    })),
    project_id: link.projectId,
    suspend: link.suspend,
  };
}

/**
 * GET of one node: GNS3's fields, and netemu's `ports_statistics` (as the compute's GET has it) when
 * a port has a NIO. GNS3 has no such field; clients ignore keys they do not know.
 */
export function presentNodeDetail(detail: ControllerNodeDetail, consoleHost: string): t.TypeOf<typeof NodeAnswer> {
  const body = presentNode(detail, consoleHost);
  return detail.counters.size > 0 ? { ...body, ports_statistics: presentPortStatistics(detail.counters) } : body;
}

/**
 * GET of one link: GNS3's fields, each scheduled end's `schedule_now` (its active step, as the impairment
 * routes answer `schedule_out_now`: ADR 0102), and netemu's `ports_statistics`, one entry per end whose port has a NIO.
 */
export function presentLinkView(view: LinkView): t.TypeOf<typeof LinkAnswer> {
  const link = presentLink(view.link);
  const nodes = link.nodes.map((end, i) => {
    const now = view.schedules[i];
    return now === undefined ? end : { ...end, schedule_now: presentScheduleNow(now) };
  });
  const body = { ...link, nodes };
  const ends = view.link.nodes.flatMap((end, i) => {
    const counters = view.counters[i];
    return counters === undefined ? [] : [{ adapter_number: end.adapterNumber, node_id: end.nodeId, port_number: end.portNumber, ...presentCounters(counters) }];
  });
  return ends.length > 0 ? { ...body, ports_statistics: ends } : body;
}

/** A built-in template as GNS3 2.2.59 answers it: `console_type` only where it has one. */
export function presentTemplate(template: RunnableTemplate): t.TypeOf<typeof TemplateAnswer> {
  return {
    builtin: true,
    category: template.category,
    compute_id: null,
    ...(template.consoleType !== undefined && { console_type: template.consoleType }),
    default_name_format: template.defaultNameFormat,
    name: template.name,
    // GNS3 lists a built-in template's properties as they are (VPCS's base_script_file).
    ...(template.properties !== undefined && { properties: { ...template.properties } }),
    symbol: template.symbol,
    template_id: template.templateId,
    template_type: template.templateType,
  };
}

/** A filter kind of `available_filters`: the catalogue's descriptor, field for field. */
export function presentFilterDescriptor(d: FilterDescriptor): t.TypeOf<typeof FilterDescriptorAnswer> {
  return { type: d.type, name: d.name, description: d.description, parameters: [...d.parameters] };
}

export function presentCompute(c: ComputeView): t.TypeOf<typeof ComputeAnswer> {
  return {
    capabilities: { node_types: [...c.capabilities.nodeTypes], platform: c.capabilities.platform, version: c.capabilities.version },
    compute_id: c.computeId,
    connected: c.connected,
    cpu_usage_percent: c.cpuUsagePercent,
    host: c.host,
    last_error: null,
    memory_usage_percent: c.memoryUsagePercent,
    name: c.name,
    port: c.port,
    protocol: c.protocol,
    user: c.user,
  };
}

export function presentProjectStats(s: ProjectStats): t.TypeOf<typeof ProjectStatsAnswer> {
  return { drawings: s.drawings, links: s.links, nodes: s.nodes, snapshots: s.snapshots };
}

export function presentDrawing(d: Drawing): t.TypeOf<typeof DrawingAnswer> {
  return { drawing_id: d.drawingId, locked: d.locked, project_id: d.projectId, rotation: d.rotation, svg: d.svg, x: d.x, y: d.y, z: d.z };
}
