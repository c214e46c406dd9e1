import type { TraceReading } from "../../../domain/traces/trace.js";
import type { ComputeProject } from "../../../domain/topology/project.js";
import { renderSchedule } from "../../../domain/filters/schedule.js";
import { renderFilterSettings } from "../../../domain/filters/filter-settings.js";
import { type ComputeNode, nodeKindName } from "../../../domain/switching/compute-node.js";
import type { Nio } from "../../../domain/switching/nio.js";
import type { HostStatistics, NetworkInterface } from "../../../application/ports/host.js";
import type { ComputeNotification } from "../../../application/ports/notifications.js";
import type { PortCounters, QueueDelayReading } from "../../../application/ports/data-plane.js";
import type { NetworkPorts } from "../../../application/use-cases/compute/list-network-ports.js";
import type * as t from "io-ts";
import { DROP_REASONS, type DropReason } from "../../../domain/switching/port-counters.js";
import type { NetworkInterfaceAnswer, NetworkPortsAnswer, StatisticsAnswer, ComputeNodeAnswer, ComputeProjectAnswer, DropsAnswer, QueueDelaysAnswer, EthernetHubAnswer, EthernetSwitchAnswer, VpcsAnswer, CloudAnswer, LinuxHostAnswer, NioAddedAnswer, NioUpdatedAnswer, PortStatisticsAnswer, OPTIONAL_PORT_COUNTERS_FIELDS } from "./answers.js";
import type { PortQueueStatistics, QueueStatistics } from "../../../domain/queueing/queue-statistics.js";
import type { EthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import type { EthernetHub } from "../../../domain/switching/ethernet-hub.js";
import type { VpcsNode } from "../../../domain/switching/host-node.js";
import type { CloudNode } from "../../../domain/switching/cloud-node.js";
import type { NetemuHostNode } from "../../../domain/switching/netemu-host-node.js";
import { HOST_INSIDE_OFFSET } from "../../../domain/switching/node-kind.js";

/** Wire shapes of GNS3 2.2's compute answers, field for field. */
export function presentComputeProject(p: ComputeProject): t.TypeOf<typeof ComputeProjectAnswer> {
  return { name: p.name, project_id: p.projectId, variables: p.variables };
}

/** POST answers a UDP NIO without filters/suspend, as GNS3 does. */
export function presentAddedNio(nio: Nio): t.TypeOf<typeof NioAddedAnswer> {
  if (nio.type === "nio_null") return { type: "nio_null" };
  if (nio.type === "nio_tap") return { tap_device: nio.tapDevice, type: nio.type };
  if (nio.type === "nio_ethernet") return { ethernet_device: nio.ethernetDevice, type: nio.type };
  return { lport: nio.lport, rhost: nio.rhost, rport: nio.rport, type: nio.type };
}

/** PUT echoes the NIO's filters and suspend, with netemu's direction-specific filters when the NIO has any. */
export function presentUpdatedNio(nio: Nio): t.TypeOf<typeof NioUpdatedAnswer> {
  // GNS3's bodies of these kinds have nothing to change: a PUT echoes the NIO as POST answered it.
  if (nio.type === "nio_null") return { type: "nio_null" };
  if (nio.type === "nio_tap") return { tap_device: nio.tapDevice, type: nio.type };
  if (nio.type === "nio_ethernet") return { ethernet_device: nio.ethernetDevice, type: nio.type };
  return {
    lport: nio.lport,
    rhost: nio.rhost,
    rport: nio.rport,
    type: nio.type,
    filters: renderFilterSettings(nio.filters),
    ...(nio.filtersIn === undefined ? {} : { filters_in: renderFilterSettings(nio.filtersIn) }),
    ...(nio.filtersOut === undefined ? {} : { filters_out: renderFilterSettings(nio.filtersOut) }),
    // netemu's schedules (ADR 0102), as set; the step each runs now is in /metrics.
    ...(nio.scheduleIn === undefined ? {} : { schedule_in: renderSchedule(nio.scheduleIn.schedule) }),
    ...(nio.scheduleOut === undefined ? {} : { schedule_out: renderSchedule(nio.scheduleOut.schedule) }),
    suspend: nio.suspend,
  };
}

/** A port's drops by reason, the reasons netemu counts (DROP_REASONS) and no other key. */
function presentDrops(drops: Readonly<Record<string, number>>): t.TypeOf<typeof DropsAnswer> {
  const out: Partial<Record<DropReason, number>> = {};
  for (const reason of DROP_REASONS) {
    const n = drops[reason];
    if (n !== undefined) out[reason] = n;
  }
  return out;
}

/** A port's queue delay each way (ADR 0097), `in` and `out` as the NIO's `filters_in` and `filters_out`. */
export function presentQueueDelay(q: PortCounters["queueDelay"]): t.TypeOf<typeof QueueDelaysAnswer> {
  const one = (r: QueueDelayReading) => ({ sum_ms: r.sumMs, frames: r.frames, max_ms: r.maxMs });
  return { in: one(q.ingress), out: one(q.egress) };
}

/** netemu's per-port counters, as `ports_statistics` entries carry them (snake_case, as GNS3's keys). */
export function presentCounters(c: PortCounters): { frames_in: number; bytes_in: number; frames_out: number; bytes_out: number; drops: t.TypeOf<typeof DropsAnswer>; queue_delay: t.TypeOf<typeof QueueDelaysAnswer>; queues?: PresentedQueues; traces?: PresentedTraces } {
  return { frames_in: c.framesIn, bytes_in: c.bytesIn, frames_out: c.framesOut, bytes_out: c.bytesOut, drops: presentDrops(c.drops), queue_delay: presentQueueDelay(c.queueDelay), ...(c.queues === undefined ? {} : { queues: presentQueues(c.queues) }), ...(c.traces === undefined ? {} : { traces: presentTraces(c.traces) }) };
}

type PresentedTraces = t.TypeOf<typeof OPTIONAL_PORT_COUNTERS_FIELDS.traces>;

/** Where a port's replayed traces stand (ADR 0103), `in` and `out` as queue_delay names the directions. */
function presentTraces(x: NonNullable<PortCounters["traces"]>): PresentedTraces {
  const one = (r: TraceReading) => ({
    ...(r.capacity === undefined ? {} : { capacity: { trace: r.capacity.name, position_ms: r.capacity.positionMs, waiting_frames: r.capacity.waitingFrames } }),
    ...(r.delay === undefined ? {} : { delay: { trace: r.delay.name, position_ms: r.delay.positionMs, delay_ms: r.delay.value } }),
    ...(r.loss === undefined ? {} : { loss: { trace: r.loss.name, position_ms: r.loss.positionMs, loss_percent: r.loss.value } }),
  });
  return { ...(x.ingress === undefined ? {} : { in: one(x.ingress) }), ...(x.egress === undefined ? {} : { out: one(x.egress) }) };
}

type PresentedQueues = t.TypeOf<typeof OPTIONAL_PORT_COUNTERS_FIELDS.queues>;

/** A port's bandwidth queues (ADR 0100), snake_case; the mean sojourn over the frames sent. */
function presentQueues(q: PortQueueStatistics): PresentedQueues {
  const one = (s: QueueStatistics) => ({
    discipline: s.discipline,
    backlog_frames: s.backlogFrames,
    backlog_bytes: s.backlogBytes,
    codel_drops: s.codelDrops,
    overlimit_drops: s.overlimitDrops,
    ecn_marks: s.ecnMarks,
    sent_frames: s.sentFrames,
    sojourn_mean_ms: s.sentFrames === 0 ? 0 : s.sojournSumMs / s.sentFrames,
    sojourn_max_ms: s.sojournMaxMs,
    sojourn_last_ms: s.lastSojournMs,
  });
  // `in` and `out`, as queue_delay names the directions (ADR 0097).
  return { ...(q.ingress === undefined ? {} : { in: one(q.ingress) }), ...(q.egress === undefined ? {} : { out: one(q.egress) }) };
}

export function presentPortStatistics(counters: ReadonlyMap<number, PortCounters>): t.TypeOf<typeof PortStatisticsAnswer>[] {
  return [...counters.entries()].sort(([a], [b]) => a - b).map(([port, c]) => ({ port_number: port, ...presentCounters(c) }));
}

/**
 * A switch or hub as its compute route answers it: exactly GNS3's keys (a controller sends back on
 * its next PUT every key it does not know), a switch's console besides. `ports_statistics` is a netemu
 * extension, only in GET answers (counters given), which a GNS3 controller never reads.
 */
export function presentComputeNode(node: ComputeNode, counters?: ReadonlyMap<number, PortCounters>): ComputeNodeAnswer {
  switch (node.nodeType) {
    case "ethernet_switch":
      return presentSwitch(node, counters);
    case "ethernet_hub":
      return presentHub(node, counters);
    case "vpcs":
      return presentVpcs(node, counters);
    case "cloud":
      return presentCloud(node, counters);
    case "netemu_host":
      return presentLinuxHost(node, counters);
  }
}

function nodeFields(node: ComputeNode, counters: ReadonlyMap<number, PortCounters> | undefined) {
  const statistics = counters !== undefined && counters.size > 0 ? { ports_statistics: presentPortStatistics(counters) } : {};
  return { name: node.name, node_id: node.nodeId, project_id: node.projectId, status: node.status, ...statistics };
}

export function presentSwitch(node: EthernetSwitch, counters?: ReadonlyMap<number, PortCounters>): EthernetSwitchAnswer {
  return { ...nodeFields(node, counters), ports_mapping: [...node.portsMapping], console: node.console, console_type: node.consoleType };
}

export function presentHub(node: EthernetHub, counters?: ReadonlyMap<number, PortCounters>): EthernetHubAnswer {
  return { ...nodeFields(node, counters), ports_mapping: [...node.portsMapping] };
}

/** A VPCS node: GNS3's keys, its inside tunnel never shown (it is netemu's uBridge, ADR 0081). */
export function presentVpcs(node: VpcsNode, counters?: ReadonlyMap<number, PortCounters>): VpcsAnswer {
  const linkPorts = counters === undefined ? undefined : new Map([...counters].filter(([port]) => port < HOST_INSIDE_OFFSET));
  return { ...nodeFields(node, linkPorts), node_directory: node.directory, console: node.console, console_type: node.consoleType, command_line: node.commandLine };
}

/** A cloud: GNS3's keys, its inside ends never shown; `interfaces` when the route has the host's list. */
export function presentCloud(node: CloudNode, counters?: ReadonlyMap<number, PortCounters>, interfaces?: readonly NetworkInterface[]): CloudAnswer {
  const linkPorts = counters === undefined ? undefined : new Map([...counters].filter(([port]) => port < HOST_INSIDE_OFFSET));
  const r = node.remoteConsole;
  return {
    ...nodeFields(node, linkPorts),
    ports_mapping: node.portsMapping.map((p) => ({ ...p })),
    remote_console_host: r.host,
    remote_console_port: r.port,
    remote_console_type: r.type,
    remote_console_http_path: r.httpPath,
    node_directory: node.directory,
    ...(interfaces === undefined ? {} : { interfaces: interfaces.map((i) => ({ name: i.name, type: i.type, special: i.special })) }),
  };
}

/** A Linux host: its interfaces and gateway as given, its inside TAP ports never shown (ADR 0087). */
export function presentLinuxHost(node: NetemuHostNode, counters?: ReadonlyMap<number, PortCounters>): LinuxHostAnswer {
  const linkPorts = counters === undefined ? undefined : new Map([...counters].filter(([port]) => port < HOST_INSIDE_OFFSET));
  return {
    ...nodeFields(node, linkPorts),
    ports_mapping: [...node.portsMapping],
    interfaces: node.interfaces.map((i) => ({ ...i })),
    gateway: node.gateway,
    node_directory: node.directory,
  };
}

/**
 * A notification as GNS3's compute sends it on its websocket and project stream. node.updated
 * carries the node exactly as POST and PUT answer it (no counters): the controller stores every
 * key it does not know and sends it back on the next PUT.
 */
export function presentNotification(n: ComputeNotification): Record<string, unknown> {
  switch (n.kind) {
    case "node.updated":
      return { action: "node.updated", event: presentComputeNode(n.node), project_id: n.node.projectId };
    case "peer_unreachable":
      return {
        action: "log.warning",
        event: { message: `${nodeKindName(n.node.nodeType)} ${n.node.name} port ${n.portNumber}: the peer ${n.peer} is unreachable (${n.reason})` },
        project_id: n.node.projectId,
      };
    case "device_failed":
      return {
        action: "log.warning",
        event: { message: `${nodeKindName(n.node.nodeType)} ${n.node.name} port ${n.portNumber}: its device ${n.device} failed (${n.reason})` },
        project_id: n.node.projectId,
      };
    case "node.restored":
      return { action: "log.info", event: { message: `${nodeKindName(n.node.nodeType)} ${n.node.name}: taken back by its restarted data plane worker` }, project_id: n.node.projectId };
    case "capture_failed":
      return {
        action: "log.error",
        event: { message: `${nodeKindName(n.node.nodeType)} ${n.node.name} port ${n.portNumber}: the capture to ${n.filePath} stopped: ${n.reason}` },
        project_id: n.node.projectId,
      };
    case "log": {
      const message = { action: `log.${n.severity}`, event: { message: n.message } };
      return n.projectId === undefined ? message : { ...message, project_id: n.projectId };
    }
  }
}

export function presentPing(load: { readonly cpuUsagePercent: number; readonly memoryUsagePercent: number }): Record<string, unknown> {
  return { action: "ping", event: { cpu_usage_percent: load.cpuUsagePercent, memory_usage_percent: load.memoryUsagePercent } };
}

export function presentInterface(i: NetworkInterface): NetworkInterfaceAnswer {
  return { id: i.id, ip_address: i.ipAddress, mac_address: i.macAddress, name: i.name, netmask: i.netmask, special: i.special, type: i.type };
}

export function presentStatistics(s: HostStatistics): StatisticsAnswer {
  return {
    cpu_usage_percent: s.cpuUsagePercent,
    disk_usage_percent: s.diskUsagePercent,
    load_average_percent: [...s.loadAveragePercent],
    memory_free: s.memoryFree,
    memory_total: s.memoryTotal,
    memory_usage_percent: s.memoryUsagePercent,
    memory_used: s.memoryUsed,
    swap_free: s.swapFree,
    swap_total: s.swapTotal,
    swap_usage_percent: s.swapUsagePercent,
    swap_used: s.swapUsed,
  };
}

/**
 * GNS3's port manager: console and UDP ranges and the ports in use. netemu opens no console, so
 * its console range is every port a client may give a switch (the controller demands two numbers).
 */
export function presentNetworkPorts(p: NetworkPorts): NetworkPortsAnswer {
  return { console_port_range: [1, 65535], console_ports: [...p.consolePorts], udp_port_range: [...p.udpPortRange], udp_ports: [...p.udpPorts] };
}


