import type { ScheduleNow } from "./schedules.js";

/** What the page reads from netemu: the answers of /v2/netemu/labs and /v2/netemu/labs/{id}/counters (ADR 0094). */

export type NodeType = "ethernet_switch" | "ethernet_hub" | "vpcs" | "cloud" | "netemu_host" | "remote";

export interface LabPort {
  readonly port_number: number;
  readonly name: string;
  readonly connected: boolean;
}

export interface LabNode {
  readonly node_id: string;
  readonly name: string;
  readonly node_type: NodeType;
  readonly status: "started" | "stopped" | "suspended";
  readonly ports: readonly LabPort[];
  readonly x?: number;
  readonly y?: number;
}

export interface PortEnd {
  readonly node_id: string;
  readonly port_number: number;
}

export interface Lab {
  readonly project_id: string;
  readonly name: string;
  readonly held_by_controller: boolean;
  readonly nodes: readonly LabNode[];
  /** link_id: the controller link, in a project of netemu's own (ADR 0098). */
  readonly links: readonly { readonly a: PortEnd; readonly b: PortEnd; readonly link_id?: string }[];
  /** Ports whose NIO sends to no port here: the peer's address (a node on another compute, an emulator). */
  readonly remote_links: readonly RemoteLink[];
}

export interface RemoteLink {
  readonly a: PortEnd;
  readonly peer: { readonly host: string; readonly port: number };
}

type Filters = Readonly<Record<string, readonly unknown[]>>;

/**
 * A link of netemu's controller as GET /v2/projects/{p}/links/{l} answers it: GNS3's filters both ways, and
 * each end's one-way filters (ADR 0051) or schedule (ADR 0102) of what its node sends, with the schedule's
 * active step (`schedule_now`, in a GET only: a PUT's answer is GNS3's link).
 */
export interface ControllerLink {
  readonly link_id: string;
  readonly filters: Filters;
  readonly nodes: readonly ControllerLinkEnd[];
}

export interface ControllerLinkEnd {
  readonly node_id: string;
  readonly adapter_number: number;
  readonly port_number: number;
  readonly filters?: Filters;
  readonly schedule?: object;
  readonly schedule_now?: ScheduleNow;
}

export interface PortCounters {
  readonly node_id: string;
  readonly port_number: number;
  readonly frames_in: number;
  readonly bytes_in: number;
  readonly frames_out: number;
  readonly bytes_out: number;
  readonly drops: Readonly<Record<string, number>>;
  /** How long frames waited in the port's queue each way (ADR 0097): `in` received from its peer, `out` sent to it; absent until a frame went through either. */
  readonly queue_delay?: { readonly in: QueueDelay; readonly out: QueueDelay };
}

/** One direction's queue: waits summed and counted since the port was attached, and the largest of the last one to two seconds. */
export interface QueueDelay {
  readonly sum_ms: number;
  readonly frames: number;
  readonly max_ms: number;
}

export interface LabCounters {
  readonly project_id: string;
  readonly at_ms: number;
  readonly ports: readonly PortCounters[];
  readonly mac_table_entries: readonly { readonly node_id: string; readonly entries: number }[];
  readonly unanswered: readonly string[];
}

export interface Impairment {
  readonly node_id: string;
  readonly port_number: number;
  readonly filters_in: Readonly<Record<string, readonly unknown[]>>;
  readonly filters_out: Readonly<Record<string, readonly unknown[]>>;
  /** Each direction's schedule and its active step (ADR 0102), when it has one. */
  readonly schedule_in?: object;
  readonly schedule_out?: object;
  readonly schedule_in_now?: ScheduleNow;
  readonly schedule_out_now?: ScheduleNow;
}

export interface MacEntry {
  readonly mac: string;
  readonly vlan: number;
  readonly port_number: number;
  readonly age: number;
}

/** A refusal netemu answered: its message, as the API's error body says it. */
export class Refused extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: "same-origin", headers: body === undefined ? {} : { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const answer = await fetch(path, init);
  if (!answer.ok) {
    let message = `${answer.status} ${answer.statusText}`;
    try {
      message = ((await answer.json()) as { message?: string }).message ?? message;
    } catch {
      // not JSON: the status line says it
    }
    throw new Refused(answer.status, message);
  }
  return answer.status === 204 ? (undefined as T) : ((await answer.json()) as T);
}

export const api = {
  labs: () => call<Lab[]>("GET", "/v2/netemu/labs"),
  counters: (projectId: string) => call<LabCounters>("GET", `/v2/netemu/labs/${projectId}/counters`),
  impairments: (projectId: string) => call<Impairment[]>("GET", `/v2/netemu/impairments?project=${encodeURIComponent(projectId)}`),
  /** Some fields of a port's impairment (`filters_in`, `schedule_out`, ...): a direction left out keeps what it has (ADR 0102). */
  putImpairment: (projectId: string, nodeId: string, port: number, fields: Readonly<Record<string, object>>) =>
    call<Impairment>("PUT", "/v2/netemu/impairments", { project: projectId, node: nodeId, port: String(port), ...fields }),
  controllerLink: (projectId: string, linkId: string) => call<ControllerLink>("GET", `/v2/projects/${projectId}/links/${linkId}`),
  /**
   * One end's one-way filters or schedule (what its node sends over the link), as any client of the controller
   * sets them: PUT on the link, that end only. Fixed filters end a schedule, a schedule clears the fixed filters (ADR 0102).
   */
  setLinkEnd: (projectId: string, linkId: string, end: { node_id: string; adapter_number: number; port_number: number }, fields: { readonly filters: object } | { readonly schedule: object }) =>
    call<ControllerLink>("PUT", `/v2/projects/${projectId}/links/${linkId}`, { nodes: [{ node_id: end.node_id, adapter_number: end.adapter_number, port_number: end.port_number, ...fields }] }),
  macTable: (projectId: string, nodeId: string) => call<MacEntry[]>("GET", `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${nodeId}/mac_table`),
  portPath: (projectId: string, node: LabNode, port: number) => `/v2/compute/projects/${projectId}/${node.node_type}/nodes/${node.node_id}/adapters/0/ports/${port}`,
  startCapture: (path: string, fileName: string) => call<{ pcap_file_path: string }>("POST", `${path}/start_capture`, { capture_file_name: fileName, data_link_type: "DLT_EN10MB" }),
  stopCapture: (path: string) => call<void>("POST", `${path}/stop_capture`, {}),
};
