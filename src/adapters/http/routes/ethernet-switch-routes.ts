import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { PortAddress } from "../../../application/use-cases/compute/compute-lookup.js";
import type { ApiRouter } from "../api-router.js";
import type { Exchange } from "../exchange.js";
import { DuplicateBody, NioBody, SwitchCreateBody, SwitchUpdateBody } from "../codecs/compute.js";
import { presentNio, presentSwitch } from "../presenters.js";

const NODES = "/v2/compute/projects/{project_id}/ethernet_switch/nodes";
const NODE = `${NODES}/{node_id}`;
export const NIO_ROUTE = `${NODE}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}/nio`;

export function portAddress(x: Exchange): PortAddress {
  return {
    projectId: x.param("project_id"),
    nodeId: x.param("node_id"),
    adapterNumber: x.intParam("adapter_number"),
    portNumber: x.intParam("port_number"),
  };
}

export function registerEthernetSwitchRoutes(api: ApiRouter, uc: UseCases): void {
  api.add("POST", NODES, async (x) => {
    const body = x.decode(SwitchCreateBody);
    if (E.isLeft(body)) return;
    const created = await uc.createSwitch.execute(x.param("project_id"), {
      name: body.right.name,
      nodeId: body.right.node_id,
      console: body.right.console,
      consoleType: body.right.console_type,
      portsMapping: body.right.ports_mapping,
    });
    x.respond(created, 201, (sw) => presentSwitch(sw));
  });

  api.add("GET", NODE, async (x) => {
    const view = await uc.getSwitch.execute(x.param("project_id"), x.param("node_id"));
    x.respond(view, 200, (v) => presentSwitch(v.sw, v.counters));
  });

  /** netemu extension: the learned MAC addresses (GNS3's `mac` console command was never finished). */
  api.add("GET", `${NODE}/mac_table`, async (x) => {
    const table = await uc.getSwitch.macTable(x.param("project_id"), x.param("node_id"));
    x.respond(table, 200, (entries) => entries.map((e) => ({ mac: e.mac, vlan: e.vlan, port_number: e.port, age: e.age })));
  });

  api.add("PUT", NODE, async (x) => {
    const body = x.decode(SwitchUpdateBody);
    if (E.isLeft(body)) return;
    const updated = await uc.updateSwitch.execute(x.param("project_id"), x.param("node_id"), {
      name: body.right.name,
      consoleType: body.right.console_type,
      portsMapping: body.right.ports_mapping,
    });
    x.respond(updated, 200, (sw) => presentSwitch(sw));
  });

  api.add("DELETE", NODE, async (x) => {
    x.respond(await uc.deleteSwitch.execute(x.param("project_id"), x.param("node_id")), 204, () => undefined);
  });

  api.add("POST", `${NODE}/duplicate`, async (x) => {
    const body = x.decode(DuplicateBody);
    if (E.isLeft(body)) return;
    const duplicated = await uc.duplicateSwitch.execute(x.param("project_id"), x.param("node_id"), body.right.destination_node_id);
    x.respond(duplicated, 201, (sw) => presentSwitch(sw));
  });

  for (const action of ["start", "stop", "suspend"]) {
    api.add("POST", `${NODE}/${action}`, async (x) => {
      x.respond(await uc.changeSwitchStatus.execute(x.param("project_id"), x.param("node_id")), 204, () => undefined);
    });
  }

  api.add("POST", NIO_ROUTE, async (x) => {
    const body = x.decode(NioBody);
    if (E.isLeft(body)) return;
    x.respond(await uc.addNio.execute(portAddress(x), body.right), 201, (nio) => presentNio(nio, false));
  });

  api.add("PUT", NIO_ROUTE, async (x) => {
    const body = x.decode(NioBody);
    if (E.isLeft(body)) return;
    x.respond(await uc.updateNio.execute(portAddress(x), body.right), 201, (nio) => presentNio(nio, true));
  });

  api.add("DELETE", NIO_ROUTE, async (x) => {
    x.respond(await uc.removeNio.execute(portAddress(x)), 204, () => undefined);
  });
}
