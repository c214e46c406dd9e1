import * as t from "io-ts";
import { HostInterfaceBody } from "../compute/linux-host-codecs.js";
import { checkedAsGiven, jsonAnyOf, jsonArray, jsonBoolean, jsonClosedObject, jsonEnum, jsonInteger, jsonObject, jsonNumber, jsonOpenObject, jsonString, nullable } from "../schema.js";
import { ConsoleType, HubPortEntry, PortEntry, Uuid, projectSettingsFields, CloudPortEntry } from "../compute/codecs.js";

export const ProjectCreateBody = jsonClosedObject(
  "ProjectCreate",
  { name: jsonString({ minLength: 1 }) },
  { project_id: Uuid, path: jsonString(), ...projectSettingsFields, variables: t.unknown },
);

/** GNS3 2.2's PROJECT_LOAD_SCHEMA: the path of a `.gns3` file on the server. */
export const ProjectLoadBody = jsonClosedObject("ProjectLoad", { path: jsonString({ minLength: 1 }) }, {});

export const Label = jsonClosedObject(
  "Label",
  { text: jsonString() },
  {
    style: nullable(jsonString()),
    x: nullable(jsonInteger({ nullable: true })),
    y: jsonInteger(),
    rotation: jsonInteger({ minimum: -359, maximum: 360 }),
  },
);

/** A node's `properties` as the node type reads them (checked once the type is known). */
export const SwitchProperties = jsonClosedObject("EthernetSwitchProperties", {}, { ports_mapping: jsonArray(PortEntry) }, { additional: true });
export const HubProperties = jsonClosedObject("EthernetHubProperties", {}, { ports_mapping: jsonArray(HubPortEntry) }, { additional: true });
/** A cloud's properties: its ports (GNS3's PORT_OBJECT_SCHEMA entries); the rest (interfaces, remote console) as given. */
export const CloudProperties = jsonClosedObject(
  "CloudProperties",
  {},
  {
    ports_mapping: jsonArray(CloudPortEntry),
    remote_console_host: jsonString(),
    remote_console_port: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
    remote_console_type: jsonEnum(["telnet", "vnc", "spice", "http", "https", "none"] as const),
    remote_console_http_path: jsonString(),
  },
  { additional: true },
);
/** A VPCS's properties: its startup script (GNS3's controller sends it to the compute once). */
export const VpcsProperties = jsonClosedObject("VpcsProperties", {}, { startup_script: nullable(jsonString()) }, { additional: true });

/** A Linux host's properties (ADR 0087): its interfaces and gateway; its ports_mapping follows from them. */
export const LinuxHostProperties = jsonClosedObject("LinuxHostProperties", {}, { interfaces: nullable(jsonArray(HostInterfaceBody)), gateway: nullable(jsonString()) }, { additional: true });

/**
 * A node's `properties` in a body: a switch's or a hub's (GNS3's node schema leaves them free; its
 * compute checks them). Which one fits is told by the node's type, once known (node-routes.ts), so the
 * properties go on as given: a branch's decoded value would drop a VPCS's `startup_script`.
 */
export const NodeProperties = checkedAsGiven(jsonAnyOf("NodeProperties", [SwitchProperties, HubProperties, CloudProperties]));

/**
 * A link's drawing style, as the GUI and the web UI send it (GNS3 3.x's LinkStyle): kept as given,
 * with any other key a client adds.
 */
export const LinkStyle = jsonOpenObject("LinkStyle", { color: jsonString(), width: jsonNumber, type: jsonInteger() });

/** Fields of GNS3's node object that clients send back on PUT; accepted and ignored when read-only. */
const nodeFields = {
  compute_id: jsonString(),
  node_id: Uuid,
  project_id: Uuid,
  node_type: jsonString(),
  name: jsonString({ minLength: 1 }),
  console: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
  console_host: t.unknown,
  console_type: ConsoleType,
  console_auto_start: jsonBoolean,
  command_line: t.unknown,
  custom_adapters: t.unknown,
  first_port_name: t.unknown,
  port_name_format: t.unknown,
  port_segment_size: t.unknown,
  ports: t.unknown,
  node_directory: t.unknown,
  status: t.unknown,
  template_id: t.unknown,
  width: t.unknown,
  height: t.unknown,
  symbol: jsonString({ minLength: 1 }),
  label: Label,
  x: jsonInteger(),
  y: jsonInteger(),
  z: jsonInteger(),
  locked: jsonBoolean,
  properties: NodeProperties,
  /** netemu's read-only counters of GET, sent back by a client that PUTs the object it read. */
  ports_statistics: t.unknown,
};

export const NodeCreateBody = jsonClosedObject(
  "NodeCreate",
  { name: nodeFields.name, node_type: nodeFields.node_type, compute_id: nodeFields.compute_id },
  nodeFields,
);

export const NodeUpdateBody = jsonClosedObject("NodeUpdate", {}, nodeFields);

const LinkNode = jsonClosedObject(
  "LinkNode",
  { node_id: jsonString(), adapter_number: jsonInteger(), port_number: jsonInteger() },
  // filters: netemu's one-way impairments on the frames this node sends over the link (ADR 0051).
  // schedule: the same direction as a function of time (ADR 0102), instead of filters.
  // schedule_set_at, schedule_now: read-only keys of a GET, sent back by a client (the GNS3 web UI's
  // filters dialog) that PUTs the whole link it read; ignored, as ports_statistics is.
  { label: Label, filters: jsonObject, schedule: jsonObject, schedule_set_at: t.unknown, schedule_now: t.unknown },
);

const linkFields = {
  link_id: t.unknown,
  project_id: t.unknown,
  nodes: jsonArray(LinkNode),
  suspend: jsonBoolean,
  link_style: LinkStyle,
  filters: jsonObject,
  capturing: t.unknown,
  capture_file_name: t.unknown,
  capture_file_path: t.unknown,
  capture_compute_id: t.unknown,
  link_type: jsonEnum(["ethernet", "serial"] as const),
  /** netemu's read-only counters of GET, sent back by a client (the web UI) that PUTs the whole link it read. */
  ports_statistics: t.unknown,
};

export const LinkCreateBody = jsonClosedObject("LinkCreate", { nodes: linkFields.nodes }, linkFields);
export const LinkUpdateBody = jsonClosedObject("LinkUpdate", {}, linkFields);

export const LinkCaptureBody = jsonClosedObject(
  "LinkCapture",
  {},
  {
    capture_file_name: jsonString({ minLength: 1 }),
    data_link_type: jsonEnum(["DLT_ATM_RFC1483", "DLT_EN10MB", "DLT_FRELAY", "DLT_C_HDLC", "DLT_PPP_SERIAL"] as const),
  },
);

/** GNS3's TEMPLATE_USAGE_SCHEMA: where to put the node, and optionally its name and compute. */
export const TemplateUsageBody = jsonClosedObject(
  "TemplateUsage",
  { x: jsonInteger(), y: jsonInteger() },
  { name: nullable(jsonString({ minLength: 1 })), compute_id: nullable(jsonString()) },
);

/**
 * GNS3 2.2's DRAWING_OBJECT_SCHEMA, for POST and PUT: every field optional, nothing else allowed.
 * `project_id` is accepted and ignored (the path says the project); a PUT's `drawing_id` is too, as GNS3 does.
 */
export const DrawingBody = jsonClosedObject(
  "DrawingSettings",
  {},
  {
    drawing_id: Uuid,
    project_id: Uuid,
    x: jsonInteger(),
    y: jsonInteger(),
    z: jsonInteger(),
    locked: jsonBoolean,
    rotation: jsonInteger({ minimum: -359, maximum: 360 }),
    svg: jsonString(),
  },
);
