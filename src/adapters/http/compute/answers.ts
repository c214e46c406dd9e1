import type * as t from "io-ts";
import * as tt from "io-ts";
import { DROP_REASONS, type DropReason } from "../../../domain/switching/port-counters.js";
import { ETHERTYPE_CHOICES } from "../../../domain/switching/port.js";
import type { ComputeNodeType } from "../../../domain/switching/compute-node.js";
import { jsonArray, jsonClosedObject, jsonEnum, jsonInteger, jsonNumber, jsonObject, jsonOneOf, jsonString, jsonBoolean, nullable } from "../schema.js";
import { CloudPortEntry, HostInterfaceEntry, Uuid } from "./codecs.js";

/**
 * What the compute's switch and hub routes answer, as codecs: the presenters return their types and
 * the OpenAPI document derives its schemas from them (ADR 0076). Closed, as GNS3's keys are exactly
 * these (a controller sends back on its next PUT every key it does not know).
 */
const integer = jsonInteger();
const string = jsonString();

const NodeStatusAnswer = jsonEnum(["started", "stopped", "suspended"] as const);

/** Frames dropped, by reason: a reason appears once a frame was dropped for it. */
export const DropsAnswer = jsonClosedObject(
  "Drops",
  {},
  Object.fromEntries(DROP_REASONS.map((reason) => [reason, jsonInteger({ minimum: 0 })])) as { readonly [R in DropReason]: t.Type<number, number, unknown> },
);

/**
 * How long frames waited in one direction's queue before their transmission started (ADR 0097): summed
 * and counted since the port was attached (two readings give the mean between them), and the largest
 * wait of the last one to two seconds.
 */
const QueueDelayAnswer = jsonClosedObject("QueueDelay", { sum_ms: jsonNumber, frames: jsonInteger({ minimum: 0 }), max_ms: jsonNumber }, {});
/** A port's queue delay each way: `in` the frames it receives from its NIO, `out` the frames it sends to it. */
export const QueueDelaysAnswer = jsonClosedObject("QueueDelays", { in: QueueDelayAnswer, out: QueueDelayAnswer }, {});

/** netemu's counters of one port. */
export const PORT_COUNTERS_FIELDS = { frames_in: integer, bytes_in: integer, frames_out: integer, bytes_out: integer, drops: DropsAnswer, queue_delay: QueueDelaysAnswer };

/** One direction's bandwidth queue (CoDel, FQ-CoDel: ADR 0100): what it holds and did since the port opened. */
const QueueStatisticsAnswer = jsonClosedObject(
  "QueueStatistics",
  {
    discipline: jsonEnum(["codel", "fq_codel"] as const),
    backlog_frames: jsonInteger({ minimum: 0 }),
    backlog_bytes: jsonInteger({ minimum: 0 }),
    codel_drops: jsonInteger({ minimum: 0 }),
    overlimit_drops: jsonInteger({ minimum: 0 }),
    ecn_marks: jsonInteger({ minimum: 0 }),
    sent_frames: jsonInteger({ minimum: 0 }),
    sojourn_mean_ms: jsonNumber,
    sojourn_max_ms: jsonNumber,
    sojourn_last_ms: jsonNumber,
  },
  {},
);
/** Where a direction's replayed traces stand (ADR 0103): each by name, its position in its loop. */
const TracePosition = (name: string, extra: Record<string, t.Mixed>) => jsonClosedObject(name, { trace: jsonString(), position_ms: jsonNumber, ...extra }, {});
const TraceReadingAnswer = jsonClosedObject(
  "TraceReading",
  {},
  { capacity: TracePosition("CapacityTracePosition", { waiting_frames: jsonInteger({ minimum: 0 }) }), delay: TracePosition("DelayTracePosition", { delay_ms: jsonNumber }), loss: TracePosition("LossTracePosition", { loss_percent: jsonNumber }) },
);
/** The queues and traces of a port's directions that ran one: in statistics only then. */
export const OPTIONAL_PORT_COUNTERS_FIELDS = {
  queues: jsonClosedObject("PortQueues", {}, { in: QueueStatisticsAnswer, out: QueueStatisticsAnswer }),
  traces: jsonClosedObject("PortTraces", {}, { in: TraceReadingAnswer, out: TraceReadingAnswer }),
};

export const PortStatisticsAnswer = jsonClosedObject("PortStatistics", { port_number: integer, ...PORT_COUNTERS_FIELDS }, OPTIONAL_PORT_COUNTERS_FIELDS);

export const SwitchPortAnswer = jsonClosedObject(
  "EthernetSwitchPortAnswer",
  { name: string, port_number: integer, type: jsonEnum(["access", "dot1q", "qinq"] as const) },
  { vlan: integer, ethertype: jsonEnum(ETHERTYPE_CHOICES) },
);
export const HubPortAnswer = jsonClosedObject("EthernetHubPortAnswer", { name: string, port_number: integer }, {});

const nodeFields = { name: string, node_id: Uuid, project_id: Uuid, status: NodeStatusAnswer };
/** netemu's counters per port, in GET answers only (ports with a NIO). */
const statistics = { ports_statistics: jsonArray(PortStatisticsAnswer) };

export const EthernetSwitchAnswer = jsonClosedObject(
  "EthernetSwitch",
  { ...nodeFields, ports_mapping: jsonArray(SwitchPortAnswer), console: nullable(jsonInteger({ nullable: true })), console_type: jsonEnum(["telnet", "none"] as const) },
  statistics,
);
export const EthernetHubAnswer = jsonClosedObject("EthernetHub", { ...nodeFields, ports_mapping: jsonArray(HubPortAnswer) }, statistics);

/** A VPCS node as GNS3 2.2's compute answers it (VPCS_OBJECT_SCHEMA), netemu's counters in GET answers. */
export const VpcsAnswer = jsonClosedObject(
  "Vpcs",
  { ...nodeFields, node_directory: string, console: nullable(jsonInteger({ nullable: true })), console_type: jsonEnum(["telnet", "none"] as const), command_line: string },
  statistics,
);

/**
 * A cloud as GNS3 2.2's compute answers it (CLOUD_OBJECT_SCHEMA). `interfaces` (the host's, for the
 * GUI's port dialog) is in the answers of its own routes; a node.updated and a duplicate leave it out,
 * and the controller keeps the list it had.
 */
export const CloudAnswer = jsonClosedObject(
  "Cloud",
  {
    ...nodeFields,
    ports_mapping: jsonArray(CloudPortEntry),
    remote_console_host: string,
    remote_console_port: nullable(jsonInteger({ nullable: true })),
    remote_console_type: jsonEnum(["telnet", "vnc", "spice", "http", "https", "none"] as const),
    remote_console_http_path: string,
    node_directory: string,
  },
  { ...statistics, interfaces: jsonArray(HostInterfaceEntry) },
);

/** One interface of a Linux host as its properties give it back. */
export const HostInterfaceAnswer = jsonClosedObject("LinuxHostInterface", { name: string }, { address: string, mac: string });
/** netemu's Linux host (ADR 0087): its interfaces (a port each, named as the interface) and gateway. */
export const LinuxHostAnswer = jsonClosedObject(
  "LinuxHost",
  { ...nodeFields, ports_mapping: jsonArray(HubPortAnswer), interfaces: jsonArray(HostInterfaceAnswer), gateway: nullable(jsonString()), node_directory: string },
  statistics,
);

export type EthernetSwitchAnswer = t.TypeOf<typeof EthernetSwitchAnswer>;
export type EthernetHubAnswer = t.TypeOf<typeof EthernetHubAnswer>;
export type VpcsAnswer = t.TypeOf<typeof VpcsAnswer>;
export type CloudAnswer = t.TypeOf<typeof CloudAnswer>;
export type LinuxHostAnswer = t.TypeOf<typeof LinuxHostAnswer>;
export type ComputeNodeAnswer = EthernetSwitchAnswer | EthernetHubAnswer | VpcsAnswer | CloudAnswer | LinuxHostAnswer;

/** The answer codec of a node type's routes. */
export const NODE_ANSWERS: { readonly [K in ComputeNodeType]: t.Mixed & { readonly _A: ComputeNodeAnswer } } = {
  ethernet_switch: EthernetSwitchAnswer,
  ethernet_hub: EthernetHubAnswer,
  vpcs: VpcsAnswer,
  cloud: CloudAnswer,
  netemu_host: LinuxHostAnswer,
};

const udpNio = { type: tt.literal("nio_udp"), lport: integer, rhost: string, rport: integer };
const NioNullAnswer = jsonClosedObject("NioNull", { type: tt.literal("nio_null") }, {});
const NioTapAnswer = jsonClosedObject("NioTap", { type: tt.literal("nio_tap"), tap_device: string }, {});
const NioEthernetAnswer = jsonClosedObject("NioEthernet", { type: tt.literal("nio_ethernet"), ethernet_device: string }, {});

/** POST's answer: GNS3's NIO without filters or suspend. */
export const NioAddedAnswer = jsonOneOf("NioAdded", [jsonClosedObject("NioUdp", udpNio, {}), NioTapAnswer, NioEthernetAnswer, NioNullAnswer]);
/** PUT's answer: the NIO echoed with its filters, netemu's one-way ones when it has any (ADR 0051). */
export const NioUpdatedAnswer = jsonOneOf("NioUpdated", [
  jsonClosedObject("NioUdpWithFilters", { ...udpNio, filters: jsonObject, suspend: jsonBoolean }, { filters_in: jsonObject, filters_out: jsonObject, schedule_in: jsonObject, schedule_out: jsonObject }),
  NioTapAnswer,
  NioEthernetAnswer,
  NioNullAnswer,
]);

export const CaptureStartedAnswer = jsonClosedObject("CaptureStarted", { pcap_file_path: string }, {});

/** netemu's MAC table of a switch: each learned address, its VLAN and port, and its age in seconds. */
export const MacTableAnswer = jsonArray(jsonClosedObject("MacTableEntry", { mac: string, vlan: integer, port_number: integer, age: jsonInteger({ minimum: 0 }) }, {}));

/** A compute project as GNS3's compute answers it: `variables` as the controller gave them (any JSON, null when none). */
export const ComputeProjectAnswer = jsonClosedObject("ComputeProject", { name: string, project_id: Uuid, variables: tt.unknown }, {});

/** The compute host's statistics, interfaces and ports, as GNS3's compute answers them. */
const integers = jsonArray(jsonInteger());
export const NetworkPortsAnswer = jsonClosedObject("NetworkPorts", { console_port_range: integers, console_ports: integers, udp_port_range: integers, udp_ports: integers }, {});
export const NetworkInterfaceAnswer = jsonClosedObject(
  "NetworkInterface",
  { id: jsonString(), ip_address: jsonString(), mac_address: jsonString(), name: jsonString(), netmask: jsonString(), special: jsonBoolean, type: jsonEnum(["ethernet", "tap"] as const) },
  {},
);
export const StatisticsAnswer = jsonClosedObject(
  "ComputeStatistics",
  {
    cpu_usage_percent: jsonNumber,
    disk_usage_percent: jsonNumber,
    load_average_percent: jsonArray(jsonNumber),
    memory_free: jsonNumber,
    memory_total: jsonNumber,
    memory_usage_percent: jsonNumber,
    memory_used: jsonNumber,
    swap_free: jsonNumber,
    swap_total: jsonNumber,
    swap_usage_percent: jsonNumber,
    swap_used: jsonNumber,
  },
  {},
);
export type StatisticsAnswer = t.TypeOf<typeof StatisticsAnswer>;
export type NetworkInterfaceAnswer = t.TypeOf<typeof NetworkInterfaceAnswer>;
export type NetworkPortsAnswer = t.TypeOf<typeof NetworkPortsAnswer>;

