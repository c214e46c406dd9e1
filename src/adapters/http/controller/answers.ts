import * as t from "io-ts";
import { jsonArray, jsonBoolean, jsonClosedObject, jsonEnum, jsonInteger, jsonNumber, jsonObject, jsonOneOf, jsonString, nullable } from "../schema.js";
import { ConsoleType, Uuid, CloudPortEntry } from "../compute/codecs.js";
import { HubPortAnswer, OPTIONAL_PORT_COUNTERS_FIELDS, PORT_COUNTERS_FIELDS, PortStatisticsAnswer, SwitchPortAnswer } from "../compute/answers.js";
import { Label, LinkStyle } from "./codecs.js";
import { COMPUTE_NODE_TYPES } from "../../../domain/switching/compute-node.js";
import { HostInterfaceAnswer } from "../compute/answers.js";
import { FILTER_KINDS } from "../../../domain/filters/catalogue.js";
import { ScheduleNowAnswer } from "../server/answers.js";

/**
 * What the controller's routes answer, as codecs (ADR 0076): the presenters return their types and
 * the OpenAPI document derives its schemas from them. Closed: GNS3 2.2's keys, exactly.
 */
const integer = jsonInteger();
const string = jsonString();

export const ProjectAnswer = jsonClosedObject(
  "Project",
  {
    auto_close: jsonBoolean,
    auto_open: jsonBoolean,
    auto_start: jsonBoolean,
    drawing_grid_size: integer,
    filename: string,
    grid_size: integer,
    name: string,
    path: string,
    project_id: Uuid,
    scene_height: integer,
    scene_width: integer,
    show_grid: jsonBoolean,
    show_interface_labels: jsonBoolean,
    show_layers: jsonBoolean,
    snap_to_grid: jsonBoolean,
    status: jsonEnum(["opened", "closed"] as const),
    /** As the client gave it: any JSON (GNS3 keeps it for the client). */
    supplier: t.unknown,
    variables: t.unknown,
    zoom: integer,
  },
  {},
);

/** A `.gns3` file (or a directory) netemu left out at start, and why (netemu's own, ADR 0085). */
export const SkippedTopologyAnswer = jsonClosedObject("SkippedTopologyFile", { path: string, reason: string }, {});

export const ProjectStatsAnswer = jsonClosedObject("ProjectStats", { drawings: integer, links: integer, nodes: integer, snapshots: integer }, {});

export const ComputeAnswer = jsonClosedObject(
  "Compute",
  {
    capabilities: jsonClosedObject("Capabilities", { node_types: jsonArray(string), platform: string, version: string }, {}),
    compute_id: string,
    connected: jsonBoolean,
    cpu_usage_percent: jsonNumber,
    host: string,
    last_error: t.null,
    memory_usage_percent: jsonNumber,
    name: string,
    port: integer,
    protocol: t.literal("http"),
    user: nullable(string),
  },
  {},
);

const NodeTypeAnswer = jsonEnum(COMPUTE_NODE_TYPES);

/** A switch's port (with its mode and VLAN) or a hub's (a name and a number): the node's type tells which. */
const NodePortMappingAnswer = jsonOneOf("NodePortMapping", [SwitchPortAnswer, HubPortAnswer, CloudPortEntry]);

/** A port as GNS3's node object lists it (`ports`): an Ethernet port on adapter 0. */
const NodePortAnswer = jsonClosedObject(
  "NodePort",
  {
    adapter_number: integer,
    data_link_types: jsonClosedObject("DataLinkTypes", { Ethernet: t.literal("DLT_EN10MB") }, {}),
    link_type: t.literal("ethernet"),
    name: string,
    port_number: integer,
    short_name: string,
  },
  {},
);

/** GNS3's CUSTOM_ADAPTERS_ARRAY_SCHEMA item: a switch or hub has none, the list is always empty. */
const CustomAdapterAnswer = jsonClosedObject(
  "CustomAdapter",
  { adapter_number: jsonInteger({ minimum: 0 }) },
  { port_name: string, adapter_type: string, mac_address: string },
);

/**
 * A controller node, as GNS3 2.2's controller answers it; `ports_statistics` (netemu's counters of
 * each port with a NIO) in GET answers only.
 */
export const NodeAnswer = jsonClosedObject(
  "Node",
  {
    /** A VPCS's command line ("" before its first start); null for a switch or hub. */
    command_line: nullable(string),
    compute_id: string,
    /** A VPCS's telnet console port; null for a switch or hub (netemu opens no switch console). */
    console: nullable(jsonInteger({ nullable: true })),
    console_auto_start: jsonBoolean,
    console_host: string,
    /** A hub has no console: null. */
    console_type: nullable(ConsoleType),
    custom_adapters: jsonArray(CustomAdapterAnswer),
    first_port_name: t.null,
    height: integer,
    label: Label,
    locked: jsonBoolean,
    name: string,
    /** A VPCS's working directory; null for a switch or hub. */
    node_directory: nullable(string),
    node_id: Uuid,
    node_type: NodeTypeAnswer,
    port_name_format: string,
    port_segment_size: integer,
    ports: jsonArray(NodePortAnswer),
    project_id: Uuid,
    /** A switch's and hub's ports_mapping; a VPCS's properties are empty, as GNS3 answers them. */
    properties: jsonClosedObject(
      "NodeProperties",
      {},
      {
        ports_mapping: jsonArray(NodePortMappingAnswer),
        // A cloud's (ADR 0082).
        remote_console_host: string,
        remote_console_port: nullable(jsonInteger({ nullable: true })),
        remote_console_type: jsonEnum(["telnet", "vnc", "spice", "http", "https", "none"] as const),
        remote_console_http_path: string,
        // A Linux host's (ADR 0087).
        interfaces: jsonArray(HostInterfaceAnswer),
        gateway: nullable(string),
      },
    ),
    status: jsonEnum(["started", "stopped", "suspended"] as const),
    symbol: string,
    template_id: nullable(string),
    width: integer,
    x: integer,
    y: integer,
    z: integer,
  },
  { ports_statistics: jsonArray(PortStatisticsAnswer) },
);

/** One end of a link: netemu's one-way `filters` only when set (typed as Filters in the document). */
const LinkEndAnswer = jsonClosedObject("LinkEnd", { adapter_number: integer, label: Label, node_id: Uuid, port_number: integer }, { filters: jsonObject, schedule: jsonObject, schedule_set_at: jsonString(), schedule_now: ScheduleNowAnswer });

/** netemu's counters of the port at one end of a link. */
const LinkEndStatisticsAnswer = jsonClosedObject("LinkEndStatistics", { adapter_number: integer, node_id: Uuid, port_number: integer, ...PORT_COUNTERS_FIELDS }, OPTIONAL_PORT_COUNTERS_FIELDS);

/** A controller link, as GNS3 2.2 answers it; `ports_statistics` (netemu's, each end's port) in GET answers only. */
export const LinkAnswer = jsonClosedObject(
  "Link",
  {
    capture_compute_id: nullable(string),
    capture_file_name: nullable(string),
    capture_file_path: nullable(string),
    capturing: jsonBoolean,
    filters: jsonObject,
    link_id: Uuid,
    link_style: LinkStyle,
    link_type: t.literal("ethernet"),
    nodes: jsonArray(LinkEndAnswer),
    project_id: Uuid,
    suspend: jsonBoolean,
  },
  { ports_statistics: jsonArray(LinkEndStatisticsAnswer) },
);

/** A built-in template's properties as GNS3 2.2.59 lists them: only VPCS's template has any (ADR 0081). */
const TemplatePropertiesAnswer = jsonClosedObject("TemplateProperties", { base_script_file: t.literal("vpcs_base_config.txt") }, {});

/** A built-in template of a node type netemu runs, as GNS3 2.2.59 lists it (ADR 0062). */
export const TemplateAnswer = jsonClosedObject(
  "Template",
  {
    builtin: t.literal(true),
    category: jsonEnum(["switch", "guest"] as const),
    compute_id: t.null,
    default_name_format: string,
    name: string,
    symbol: string,
    template_id: Uuid,
    template_type: NodeTypeAnswer,
  },
  { console_type: t.literal("none"), properties: TemplatePropertiesAnswer },
);

const IntParameterAnswer = jsonClosedObject("FilterIntParameter", { name: string, type: t.literal("int"), minimum: integer, maximum: integer, unit: string }, {});
const TextParameterAnswer = jsonClosedObject("FilterTextParameter", { name: string, type: t.literal("text") }, {});

/** A filter kind as `available_filters` describes it (GNS3's FILTERS, then netemu's). */
export const FilterDescriptorAnswer = jsonClosedObject(
  "FilterDescriptor",
  { type: jsonEnum(FILTER_KINDS), name: string, description: string, parameters: jsonArray(jsonOneOf("FilterParameter", [IntParameterAnswer, TextParameterAnswer])) },
  {},
);

/** A drawing as GNS3 2.2 answers it. */
export const DrawingAnswer = jsonClosedObject(
  "Drawing",
  { drawing_id: Uuid, project_id: Uuid, x: integer, y: integer, z: integer, locked: jsonBoolean, rotation: integer, svg: string },
  {},
);
