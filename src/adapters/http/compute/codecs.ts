import * as t from "io-ts";
import { CANONICAL_UUID } from "../../../domain/topology/ids.js";
import { ETHERTYPE_CHOICES, MAX_VLAN, MIN_VLAN } from "../../../domain/switching/port.js";
import { pythonRepr } from "../../shared/python-repr.js";
import {
  asOneOf,
  jsonArray,
  jsonBoolean,
  jsonClosedObject,
  jsonEnum,
  jsonInteger,
  jsonObject,
  jsonOneOf,
  jsonString,
  nullable,
} from "../schema.js";

export const Uuid = jsonString({ minLength: 36, maxLength: 36, pattern: CANONICAL_UUID });

export const ComputeProjectBody = jsonClosedObject(
  "ComputeProjectCreate",
  { name: nullable(jsonString()) },
  { project_id: Uuid, variables: t.unknown, path: t.unknown },
);

/** A ports_mapping entry; netemu also bounds the VLAN to what a tag can carry (1..4094). */
export const PortEntry = jsonClosedObject(
  "EthernetSwitchPort",
  { name: jsonString({ minLength: 1 }), port_number: jsonInteger({ minimum: 0 }), type: jsonEnum(["access", "dot1q", "qinq"] as const) },
  { vlan: jsonInteger({ minimum: MIN_VLAN, maximum: MAX_VLAN }), ethertype: jsonEnum(ETHERTYPE_CHOICES) },
);

export const ConsoleType = jsonEnum(["telnet", "none"] as const);

export const SwitchCreateBody = jsonClosedObject(
  "EthernetSwitchCreate",
  { name: jsonString({ minLength: 1 }) },
  {
    node_id: Uuid,
    console: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
    console_type: ConsoleType,
    ports_mapping: jsonArray(PortEntry),
  },
);

export const SwitchUpdateBody = jsonClosedObject(
  "EthernetSwitchUpdate",
  {},
  {
    name: jsonString({ minLength: 1 }),
    node_id: Uuid,
    project_id: Uuid,
    console: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
    console_type: ConsoleType,
    ports_mapping: jsonArray(PortEntry),
    status: jsonEnum(["started", "stopped", "suspended"] as const),
  },
);

export const DuplicateBody = jsonClosedObject("Duplicate", { destination_node_id: jsonString() }, {});

const Port = jsonInteger({ minimum: 1, maximum: 65535 });
const NonEmpty = jsonString({ minLength: 1 });

const NIO_BRANCHES = {
  nio_udp: jsonClosedObject(
    "NioUdp",
    { type: t.literal("nio_udp"), lport: Port, rhost: NonEmpty, rport: Port },
    // filters_in / filters_out: netemu's direction-specific filters (ADR 0051); schedule_in / schedule_out: the same as a function of time (ADR 0102).
    { suspend: jsonBoolean, filters: jsonObject, filters_in: jsonObject, filters_out: jsonObject, schedule_in: jsonObject, schedule_out: jsonObject },
  ),
  nio_null: jsonClosedObject("NioNull", { type: t.literal("nio_null") }, {}),
  nio_generic_ethernet: jsonClosedObject("NioGenericEthernet", { type: t.literal("nio_generic_ethernet"), ethernet_device: NonEmpty }, {}),
  nio_ethernet: jsonClosedObject("NioEthernet", { type: t.literal("nio_ethernet"), ethernet_device: NonEmpty }, {}),
  nio_linux_ethernet: jsonClosedObject("NioLinuxEthernet", { type: t.literal("nio_linux_ethernet"), ethernet_device: NonEmpty }, {}),
  nio_nat: jsonClosedObject("NioNat", { type: t.literal("nio_nat") }, {}),
  nio_tap: jsonClosedObject("NioTap", { type: t.literal("nio_tap"), tap_device: NonEmpty }, {}),
  nio_unix: jsonClosedObject("NioUnix", { type: t.literal("nio_unix"), local_file: NonEmpty, remote_file: NonEmpty }, {}),
  nio_vde: jsonClosedObject("NioVde", { type: t.literal("nio_vde"), control_file: NonEmpty, local_file: NonEmpty }, {}),
  nio_vmnet: jsonClosedObject("NioVmnet", { type: t.literal("nio_vmnet"), vmnet: NonEmpty }, {}),
} as const;

type NioBranches = typeof NIO_BRANCHES;
/** One of the branches' decoded types, as their codecs define them. */
type NioBodyType = { [K in keyof NioBranches]: t.TypeOf<NioBranches[K]> }[keyof NioBranches];

/**
 * NIO_SCHEMA's oneOf: the branch is chosen by `type`. A wrong field type inside the chosen branch
 * is reported as such; anything else is "not valid under any of the given schemas", as GNS3 says.
 */
export const NioBody = asOneOf(new t.Type<NioBodyType, NioBodyType, unknown>(
  "Nio",
  (u): u is NioBodyType => typeof u === "object" && u !== null,
  (u, c) => {
    if (typeof u !== "object" || u === null || Array.isArray(u)) return t.failure(u, c, `${pythonRepr(u)} is not of type 'object'`);
    const type = (u as Record<string, unknown>)["type"];
    if (!("type" in u)) return t.failure(u, c, "'type' is a required property");
    const branch = typeof type === "string" ? (NIO_BRANCHES as Record<string, t.Type<unknown, unknown, unknown>>)[type] : undefined;
    const anyOf = t.failure<NioBodyType>(u, c, `${pythonRepr(u)} is not valid under any of the given schemas`);
    if (branch === undefined) return anyOf;
    const result = branch.validate(u, c);
    if (result._tag === "Right") return t.success(result.right as NioBodyType);
    const failure = result.left[0];
    const deep = failure !== undefined && failure.context.length > c.length && failure.message !== undefined;
    return deep ? t.failure(u, c, failure.message) : anyOf;
  },
  t.identity,
), Object.values(NIO_BRANCHES));

export const CaptureBody = jsonClosedObject(
  "NodeCapture",
  { capture_file_name: jsonString({ minLength: 1 }), data_link_type: jsonEnum(["DLT_ATM_RFC1483", "DLT_EN10MB", "DLT_FRELAY", "DLT_C_HDLC", "DLT_PPP_SERIAL"] as const) },
  {},
);

/** GNS3's EthernetHubPort: a name and a number, no other key. */
export const HubPortEntry = jsonClosedObject("EthernetHubPort", { name: jsonString({ minLength: 1 }), port_number: jsonInteger({ minimum: 0 }) }, {});

export const HubCreateBody = jsonClosedObject(
  "EthernetHubCreate",
  { name: jsonString({ minLength: 1 }) },
  { node_id: Uuid, ports_mapping: jsonArray(HubPortEntry) },
);

export const HubUpdateBody = jsonClosedObject(
  "EthernetHubUpdate",
  {},
  {
    name: jsonString({ minLength: 1 }),
    node_id: Uuid,
    project_id: Uuid,
    ports_mapping: jsonArray(HubPortEntry),
    status: jsonEnum(["started", "stopped", "suspended"] as const),
  },
);

/** GNS3's VARIABLES_OBJECT_SCHEMA: null, or a list of {name (non-empty), value?: string}. */
const ProjectVariables = nullable(
  jsonArray(jsonClosedObject("Variable", { name: jsonString({ minLength: 1 }) }, { value: jsonString() }, { additional: true })),
);

/** The canvas settings GNS3's project schemas share (create, update, object). */
export const projectSettingsFields = {
  auto_close: jsonBoolean,
  auto_open: jsonBoolean,
  auto_start: jsonBoolean,
  scene_height: jsonInteger(),
  scene_width: jsonInteger(),
  zoom: jsonInteger(),
  show_layers: jsonBoolean,
  snap_to_grid: jsonBoolean,
  show_grid: jsonBoolean,
  grid_size: jsonInteger(),
  drawing_grid_size: jsonInteger(),
  show_interface_labels: jsonBoolean,
  supplier: t.unknown,
};

/** PROJECT_UPDATE_SCHEMA: the controller sends {"variables"}; the other keys are accepted and unused on a compute. */
export const ComputeProjectUpdateBody = jsonClosedObject(
  "ProjectUpdate",
  {},
  { name: nullable(jsonString({ minLength: 1 })), path: nullable(jsonString()), ...projectSettingsFields, variables: ProjectVariables },
);

/** GNS3's VPCS_CREATE_SCHEMA. */
export const VpcsCreateBody = jsonClosedObject(
  "VpcsCreate",
  { name: jsonString({ minLength: 1 }) },
  {
    node_id: Uuid,
    console: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
    console_type: ConsoleType,
    startup_script: nullable(jsonString()),
  },
);

/** GNS3's VPCS_UPDATE_SCHEMA. */
export const VpcsUpdateBody = jsonClosedObject(
  "VpcsUpdate",
  {},
  {
    name: nullable(jsonString({ minLength: 1 })),
    console: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
    console_type: ConsoleType,
  },
);

/** GNS3's PORT_OBJECT_SCHEMA: a cloud port is a host interface, a TAP device or a UDP tunnel. */
export const CloudPortEntry = jsonOneOf("CloudPort", [
  jsonClosedObject("CloudEthernetPort", { name: jsonString({ minLength: 1 }), port_number: jsonInteger({ minimum: 0 }), type: jsonEnum(["ethernet"] as const), interface: jsonString({ minLength: 1 }) }, {}),
  jsonClosedObject("CloudTapPort", { name: jsonString({ minLength: 1 }), port_number: jsonInteger({ minimum: 0 }), type: jsonEnum(["tap"] as const), interface: jsonString({ minLength: 1 }) }, {}),
  jsonClosedObject(
    "CloudUdpPort",
    { name: jsonString({ minLength: 1 }), port_number: jsonInteger({ minimum: 0 }), type: jsonEnum(["udp"] as const), lport: jsonInteger({ minimum: 1, maximum: 65535 }), rhost: jsonString({ minLength: 1 }), rport: jsonInteger({ minimum: 1, maximum: 65535 }) },
    {},
  ),
] as const);

/** GNS3's HOST_INTERFACE_SCHEMA, as a cloud's `interfaces` list has it. */
export const HostInterfaceEntry = jsonClosedObject("CloudHostInterface", { name: jsonString({ minLength: 1 }), type: jsonEnum(["ethernet", "tap"] as const), special: jsonBoolean }, {});

const remoteConsoleFields = {
  remote_console_host: jsonString(),
  remote_console_port: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
  remote_console_type: jsonEnum(["telnet", "vnc", "spice", "http", "https", "none"] as const),
  remote_console_http_path: jsonString(),
};

/** GNS3's CLOUD_CREATE_SCHEMA. */
export const CloudCreateBody = jsonClosedObject(
  "CloudCreate",
  { name: jsonString({ minLength: 1 }) },
  { node_id: Uuid, ...remoteConsoleFields, ports_mapping: jsonArray(CloudPortEntry), interfaces: jsonArray(HostInterfaceEntry) },
);

/** GNS3's CLOUD_UPDATE_SCHEMA (its object schema, nothing required): a controller sends back every key it was given. */
export const CloudUpdateBody = jsonClosedObject(
  "CloudUpdate",
  {},
  {
    name: jsonString({ minLength: 1 }),
    node_id: Uuid,
    project_id: Uuid,
    ...remoteConsoleFields,
    ports_mapping: jsonArray(CloudPortEntry),
    interfaces: jsonArray(HostInterfaceEntry),
    status: jsonEnum(["started", "stopped", "suspended"] as const),
    node_directory: nullable(jsonString()),
  },
);
