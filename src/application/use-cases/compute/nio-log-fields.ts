import type { Nio } from "../../../domain/switching/nio.js";
import type { PortAddress } from "./compute-lookup.js";

/** What the operator's log says of a NIO on a port: where it is, its socket and peer, its filters. */
export function nioLogFields(at: PortAddress, nio: Nio | undefined): Record<string, unknown> {
  const where = { projectId: at.projectId, nodeId: at.nodeId, adapter: at.adapterNumber, port: at.portNumber };
  if (nio === undefined) return where;
  if (nio.type !== "nio_udp") return { ...where, type: nio.type };
  const oneWay = { ...(nio.filtersIn === undefined ? {} : { filtersIn: nio.filtersIn }), ...(nio.filtersOut === undefined ? {} : { filtersOut: nio.filtersOut }) };
  return { ...where, type: nio.type, lport: nio.lport, peer: `${nio.rhost}:${nio.rport}`, filters: nio.filters, ...oneWay, suspend: nio.suspend };
}
