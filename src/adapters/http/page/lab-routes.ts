import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { LabView } from "../../../application/use-cases/compute/list-labs.js";
import { type LabCounters, READ_LAB_COUNTERS_REFUSALS } from "../../../application/use-cases/compute/read-lab-counters.js";
import { COMPUTE_NODE_TYPES } from "../../../domain/switching/compute-node.js";
import { DROP_REASONS } from "../../../domain/switching/port-counters.js";
import type { ApiRouter } from "../api-router.js";
import { QueueDelaysAnswer } from "../compute/answers.js";
import { presentQueueDelay } from "../compute/presenters.js";
import { json, list, route } from "../route.js";
import { jsonArray, jsonBoolean, jsonClosedObject, jsonEnum, jsonInteger, jsonNumber, jsonString } from "../schema.js";

/** A port's drops by reason: each reason netemu counts, present once it dropped a frame (docs/metrics.md lists them). */
const DropsByReason = jsonClosedObject("DropsByReason", {}, Object.fromEntries(DROP_REASONS.map((reason) => [reason, jsonInteger({ minimum: 0 })])));

const PortEnd = jsonClosedObject("LabPortEnd", { node_id: jsonString(), port_number: jsonInteger() }, {});

/** A lab as netemu's page draws it (ADR 0094): nodes with their ports, and the links read from the NIOs, also those to a peer elsewhere (ADR 0098). */
const LabAnswer = jsonClosedObject(
  "Lab",
  {
    project_id: jsonString(),
    name: jsonString(),
    held_by_controller: jsonBoolean,
    nodes: jsonArray(
      jsonClosedObject(
        "LabNode",
        {
          node_id: jsonString(),
          name: jsonString(),
          node_type: jsonEnum(COMPUTE_NODE_TYPES),
          status: jsonEnum(["started", "stopped", "suspended"] as const),
          ports: jsonArray(jsonClosedObject("LabNodePort", { port_number: jsonInteger(), name: jsonString(), connected: jsonBoolean }, {})),
        },
        { x: jsonNumber, y: jsonNumber },
      ),
    ),
    // link_id: the controller link of a project of netemu's own, where a host end's one-way filters are set (ADR 0098).
    links: jsonArray(jsonClosedObject("LabLink", { a: PortEnd, b: PortEnd }, { link_id: jsonString() })),
    // A port whose NIO sends to no port here: its peer is on another compute or an emulator, known by its address (ADR 0098).
    remote_links: jsonArray(jsonClosedObject("LabRemoteLink", { a: PortEnd, peer: jsonClosedObject("LabRemotePeer", { host: jsonString(), port: jsonInteger({ minimum: 1, maximum: 65_535 }) }, {}) }, {})),
  },
  {},
);

/** A lab's counters in one reading: every port's, each switch's MAC table size, the nodes that did not answer. */
const LabCountersAnswer = jsonClosedObject(
  "LabCounters",
  {
    project_id: jsonString(),
    at_ms: jsonNumber,
    ports: jsonArray(
      jsonClosedObject(
        "LabPortCounters",
        {
          node_id: jsonString(),
          port_number: jsonInteger(),
          frames_in: jsonInteger(),
          bytes_in: jsonInteger(),
          frames_out: jsonInteger(),
          bytes_out: jsonInteger(),
          drops: DropsByReason,
        },
        // Only for a port whose queue a frame went through (ADR 0097): most ports have none, and a
        // 1,000-node lab's reading stays its size.
        { queue_delay: QueueDelaysAnswer },
      ),
    ),
    mac_table_entries: jsonArray(jsonClosedObject("MacTableSize", { node_id: jsonString(), entries: jsonInteger({ minimum: 0 }) }, {})),
    unanswered: jsonArray(jsonString()),
  },
  {},
);

function presentLab(lab: LabView) {
  return {
    project_id: lab.projectId,
    name: lab.name,
    held_by_controller: lab.heldByController,
    nodes: lab.nodes.map((n) => ({
      node_id: n.nodeId,
      name: n.name,
      node_type: n.nodeType,
      status: n.status,
      ports: n.ports.map((p) => ({ port_number: p.portNumber, name: p.name, connected: p.connected })),
      ...(n.position === undefined ? {} : { x: n.position.x, y: n.position.y }),
    })),
    links: lab.wires.map((w) => ({ a: { node_id: w.a.nodeId, port_number: w.a.portNumber }, b: { node_id: w.b.nodeId, port_number: w.b.portNumber }, ...(w.linkId === undefined ? {} : { link_id: w.linkId }) })),
    remote_links: lab.remoteWires.map((r) => ({ a: { node_id: r.a.nodeId, port_number: r.a.portNumber }, peer: { host: r.peer.host, port: r.peer.port } })),
  };
}

function presentCounters(c: LabCounters) {
  return {
    project_id: c.projectId,
    at_ms: c.atMs,
    ports: c.ports.map((p) => ({
      node_id: p.nodeId,
      port_number: p.portNumber,
      frames_in: p.counters.framesIn,
      bytes_in: p.counters.bytesIn,
      frames_out: p.counters.framesOut,
      bytes_out: p.counters.bytesOut,
      drops: { ...p.counters.drops },
      ...(p.counters.queueDelay.ingress.frames + p.counters.queueDelay.egress.frames === 0 ? {} : { queue_delay: presentQueueDelay(p.counters.queueDelay) }),
    })),
    mac_table_entries: [...c.macTableEntries].map(([nodeId, entries]) => ({ node_id: nodeId, entries })),
    unanswered: [...c.unanswered],
  };
}

/** What netemu's page reads (ADR 0094), netemu's segment of /v2 as the impairments are. */
const LAB_ROUTES = {
  list: route({
    name: "netemu.labs.list",
    method: "GET",
    path: "/v2/netemu/labs",
    refusals: [],
    run: async (uc) => E.right(await uc.listLabs.execute()),
    answer: list(200, LabAnswer, presentLab),
  }),
  counters: route({
    name: "netemu.labs.counters",
    method: "GET",
    path: "/v2/netemu/labs/{project_id}/counters",
    refusals: READ_LAB_COUNTERS_REFUSALS,
    run: (uc, { params }) => uc.readLabCounters.execute({ projectId: params.project_id }),
    answer: json(200, LabCountersAnswer, presentCounters),
  }),
};

export function registerLabRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of [LAB_ROUTES.list, LAB_ROUTES.counters]) api.addRoute(value, uc);
}
