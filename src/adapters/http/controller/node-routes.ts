import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { NodeAction } from "../../../application/use-cases/controller/control-node.js";
import type { NodePortEntry } from "../../../domain/topology/node.js";
import { type ApiRouter, withBody } from "../api-router.js";
import type { Exchange, Rejected } from "../exchange.js";
import { HubProperties, NodeCreateBody, NodeUpdateBody, SwitchProperties, VpcsProperties } from "./codecs.js";
import { presentLink, presentNode, presentNodeDetail } from "./presenters.js";

const NODES = "/v2/projects/{project_id}/nodes";
const NODE_ACTIONS: readonly NodeAction[] = ["start", "stop", "suspend", "reload"];
const NODE = `${NODES}/{node_id}`;

/** The ports_mapping of a node's properties, checked as its node type has them (a hub's entries have no type). */
function portsOf(x: Exchange, nodeType: string, properties: Record<string, unknown> | undefined): E.Either<Rejected, readonly NodePortEntry[] | undefined> {
  // A VPCS has one fixed port: its properties say nothing of ports.
  if (properties === undefined || nodeType === "vpcs") return E.right(undefined);
  const decoded = nodeType === "ethernet_hub" ? x.decode(HubProperties, properties) : x.decode(SwitchProperties, properties);
  return E.isLeft(decoded) ? decoded : E.right(decoded.right.ports_mapping);
}

export function registerControllerNodeRoutes(api: ApiRouter, uc: UseCases, consoleHost: string): void {
  const present = (node: Parameters<typeof presentNode>[0]) => presentNode(node, consoleHost);

  api.add("controller.node.create", "POST", NODES, withBody(NodeCreateBody, async (x, b) => {
    const ports = portsOf(x, b.node_type, b.properties);
    if (E.isLeft(ports)) return;
    const vpcs = b.node_type === "vpcs" && b.properties !== undefined ? x.decode(VpcsProperties, b.properties) : E.right(undefined);
    if (E.isLeft(vpcs)) return;
    const created = await uc.createNode.execute({
      projectId: x.param("project_id"),
      name: b.name,
      nodeType: b.node_type,
      computeId: b.compute_id,
      nodeId: b.node_id,
      portsMapping: ports.right,
      consoleType: b.console_type,
      console: b.console,
      startupScript: vpcs.right?.startup_script ?? undefined,
      x: b.x,
      y: b.y,
      z: b.z,
      locked: b.locked,
      label: b.label,
      symbol: b.symbol,
    });
    x.respond(created, 201, present);
  }));

  api.add("controller.node.list", "GET", NODES, async (x) => {
    x.respondList(await uc.listNodes.execute({ projectId: x.param("project_id") }), 200, present);
  });

  api.add("controller.node.get", "GET", NODE, async (x) => {
    x.respond(await uc.getNode.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id") }), 200, (node) => presentNodeDetail(node, consoleHost));
  });

  // The plain link objects (no counters): gns3fy builds its Link models from them, which take no other keys.
  api.add("controller.node.links", "GET", `${NODE}/links`, async (x) => {
    x.respondList(await uc.listNodeLinks.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id") }), 200, presentLink);
  });

  api.add("controller.node.update", "PUT", NODE, withBody(NodeUpdateBody, async (x, b) => {
    let portsMapping: readonly NodePortEntry[] | undefined;
    if (b.properties !== undefined) {
      // Which entries fit depends on the node's type, known once the node is found.
      const node = await uc.getNode.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id") });
      if (E.isLeft(node)) return x.fail(node.left);
      const ports = portsOf(x, node.right.node.nodeType, b.properties);
      if (E.isLeft(ports)) return;
      portsMapping = ports.right;
    }
    const updated = await uc.updateNode.execute({
      projectId: x.param("project_id"),
      nodeId: x.param("node_id"),
      name: b.name,
      x: b.x,
      y: b.y,
      z: b.z,
      locked: b.locked,
      label: b.label,
      symbol: b.symbol,
      consoleType: b.console_type,
      console: b.console,
      portsMapping,
    });
    x.respond(updated, 200, present);
  }));

  api.add("controller.node.delete", "DELETE", NODE, async (x) => {
    x.respond(await uc.deleteNode.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id") }), 204, () => undefined);
  });

  for (const action of NODE_ACTIONS) {
    api.add(`controller.nodes.${action}`, "POST", `${NODES}/${action}`, async (x) => {
      x.respond(await uc.controlAllNodes.execute({ projectId: x.param("project_id"), action }), 204, () => undefined);
    });
    api.add(`controller.node.${action}`, "POST", `${NODE}/${action}`, async (x) => {
      x.respond(await uc.controlNode.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id"), action }), 200, present);
    });
  }
}
