import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { NodeCreateBody, NodeUpdateBody } from "../codecs/controller.js";
import { presentNode } from "../presenters.js";

const NODES = "/v2/projects/{project_id}/nodes";
const NODE = `${NODES}/{node_id}`;

export function registerControllerNodeRoutes(api: ApiRouter, uc: UseCases, consoleHost: string): void {
  const present = (node: Parameters<typeof presentNode>[0]) => presentNode(node, consoleHost);

  api.add("POST", NODES, async (x) => {
    const body = x.decode(NodeCreateBody);
    if (E.isLeft(body)) return;
    const b = body.right;
    const created = await uc.createNode.execute(x.param("project_id"), {
      name: b.name,
      nodeType: b.node_type,
      computeId: b.compute_id,
      nodeId: b.node_id,
      portsMapping: b.properties?.ports_mapping,
      consoleType: b.console_type,
      x: b.x,
      y: b.y,
      z: b.z,
      locked: b.locked,
      label: b.label,
      symbol: b.symbol,
    });
    x.respond(created, 201, present);
  });

  api.add("GET", NODES, async (x) => {
    x.respond(await uc.listNodes.execute(x.param("project_id")), 200, (nodes) => nodes.map(present));
  });

  api.add("GET", NODE, async (x) => {
    x.respond(await uc.getNode.execute(x.param("project_id"), x.param("node_id")), 200, present);
  });

  api.add("PUT", NODE, async (x) => {
    const body = x.decode(NodeUpdateBody);
    if (E.isLeft(body)) return;
    const b = body.right;
    const updated = await uc.updateNode.execute(x.param("project_id"), x.param("node_id"), {
      name: b.name,
      x: b.x,
      y: b.y,
      z: b.z,
      locked: b.locked,
      label: b.label,
      symbol: b.symbol,
      consoleType: b.console_type,
      portsMapping: b.properties?.ports_mapping,
    });
    x.respond(updated, 200, present);
  });

  api.add("DELETE", NODE, async (x) => {
    x.respond(await uc.deleteNode.execute(x.param("project_id"), x.param("node_id")), 204, () => undefined);
  });
}
