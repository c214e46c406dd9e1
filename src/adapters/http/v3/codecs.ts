import * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import { MAX_VLAN, MIN_VLAN } from "../../../domain/switching/port.js";
import { asOneOf, jsonArray, jsonBoolean, jsonClosedObject, jsonEnum, jsonInteger, jsonObject, jsonString, nullable } from "../schema.js";
import { Uuid } from "../compute/codecs.js";
import type { V3ValidationDetail } from "./error-mapping.js";

/**
 * The bodies a GNS3 3.0.6 controller sends its computes, as 3.0.6's pydantic schemas read them
 * (schemas/compute/*.py): unknown keys are ignored, never refused (every switch and hub create
 * carries `"builtin": true`), so each object is open (ADR 0066).
 */
const open = { additional: true } as const;

export const V3ProjectCreateBody = jsonClosedObject(
  "V3ProjectCreate",
  { name: jsonString() },
  { project_id: Uuid, path: nullable(jsonString()), variables: nullable(jsonArray(jsonClosedObject("V3Variable", { name: jsonString() }, { value: jsonString() }, open))) },
  open,
);

export const V3ProjectUpdateBody = jsonClosedObject(
  "V3ProjectUpdate",
  {},
  { variables: nullable(jsonArray(jsonClosedObject("V3Variable", { name: jsonString() }, { value: jsonString() }, open))) },
  open,
);

/** 3.0.6's ethertypes: no "" (2.2's "default"), 0x8100 when left out. */
const V3_ETHERTYPES = ["0x8100", "0x88A8", "0x9100", "0x9200"] as const;

const V3SwitchPort = jsonClosedObject(
  "V3EthernetSwitchPort",
  {
    name: jsonString(),
    port_number: jsonInteger({ minimum: 0 }),
    type: jsonEnum(["access", "dot1q", "qinq"] as const),
    vlan: jsonInteger({ minimum: MIN_VLAN, maximum: MAX_VLAN }),
  },
  { ethertype: jsonEnum(V3_ETHERTYPES) },
  open,
);

const V3HubPort = jsonClosedObject("V3EthernetHubPort", { name: jsonString(), port_number: jsonInteger({ minimum: 0 }) }, {}, open);

const switchFields = {
  node_id: Uuid,
  usage: nullable(jsonString()),
  ports_mapping: nullable(jsonArray(V3SwitchPort)),
  console: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
  console_type: nullable(jsonEnum(["telnet", "none"] as const)),
};

export const V3SwitchCreateBody = jsonClosedObject("V3EthernetSwitchCreate", { name: jsonString() }, switchFields, open);
export const V3SwitchUpdateBody = jsonClosedObject("V3EthernetSwitchUpdate", {}, { name: nullable(jsonString()), ...switchFields }, open);

const hubFields = { node_id: Uuid, usage: nullable(jsonString()), ports_mapping: nullable(jsonArray(V3HubPort)) };
export const V3HubCreateBody = jsonClosedObject("V3EthernetHubCreate", { name: jsonString() }, hubFields, open);
export const V3HubUpdateBody = jsonClosedObject("V3EthernetHubUpdate", {}, { name: nullable(jsonString()), ...hubFields }, open);

/** 3.0.6's `suspend: Optional[int]` takes the controller's `false` too (pydantic reads a bool as an int). */
const IntOrBool = asOneOf(
  new t.Type<number | boolean, number | boolean, unknown>(
    "integer | boolean",
    (u): u is number | boolean => typeof u === "boolean" || (typeof u === "number" && Number.isInteger(u)),
    (u, c) => (typeof u === "boolean" || (typeof u === "number" && Number.isInteger(u)) ? t.success(u) : t.failure(u, c, `${JSON.stringify(u)} is not an integer or a boolean`)),
    t.identity,
  ),
  [jsonInteger(), jsonBoolean],
);

/** The one NIO a 3.0.6 switch or hub takes (schemas.UDPNIO). */
export const V3UdpNioBody = jsonClosedObject(
  "V3UdpNio",
  {
    type: jsonEnum(["nio_udp"] as const),
    lport: jsonInteger({ minimum: 1, maximum: 65535 }),
    rhost: jsonString(),
    rport: jsonInteger({ minimum: 1, maximum: 65535 }),
  },
  // filters: the controller sends {} (switch and hub ends never get filters, link.py _get_filter_node).
  { suspend: nullable(IntOrBool), filters: jsonObject },
  open,
);

/** A 3.0.6 UDP NIO as the v2 NIO routes read it: pydantic reads the controller's `suspend: false` as an int, so any value is a boolean here. */
export const v3UdpNio = (b: t.TypeOf<typeof V3UdpNioBody>) =>
  E.right({ type: "nio_udp", lport: b.lport, rhost: b.rhost, rport: b.rport, filters: b.filters, suspend: b.suspend === undefined || b.suspend === null ? undefined : Boolean(b.suspend) });

export const V3CaptureBody = jsonClosedObject(
  "V3NodeCapture",
  { capture_file_name: jsonString(), data_link_type: jsonEnum(["DLT_ATM_RFC1483", "DLT_EN10MB", "DLT_FRELAY", "DLT_C_HDLC", "DLT_PPP_SERIAL"] as const) },
  {},
  open,
);

/** 3.0.6's VPCSCreate and VPCSUpdate (`schemas/compute/vpcs_nodes.py`): pydantic's, open and nullable. */
const vpcsFields = {
  node_id: Uuid,
  usage: nullable(jsonString()),
  console: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
  console_type: nullable(jsonEnum(["telnet", "none"] as const)),
  startup_script: nullable(jsonString()),
};
export const V3VpcsCreateBody = jsonClosedObject("V3VpcsCreate", { name: jsonString() }, vpcsFields, open);
export const V3VpcsUpdateBody = jsonClosedObject("V3VpcsUpdate", {}, { name: nullable(jsonString()), ...vpcsFields }, open);

export const V3DuplicateBody = jsonClosedObject("V3Duplicate", { destination_node_id: Uuid }, {}, open);

/**
 * 3.0.6's check_ethertype: an ethertype other than 0x8100 only on a qinq port. The entries with
 * 3.x's default made explicit (pydantic fills it), or the 422 detail of the first offending entry.
 */
export function v3PortsMapping(
  ports: readonly t.TypeOf<typeof V3SwitchPort>[],
): { readonly ok: true; readonly ports: t.TypeOf<typeof V3SwitchPort>[] } | { readonly ok: false; readonly detail: V3ValidationDetail } {
  const out: t.TypeOf<typeof V3SwitchPort>[] = [];
  for (const [i, p] of ports.entries()) {
    const ethertype = p.ethertype ?? "0x8100";
    if (ethertype !== "0x8100" && p.type !== "qinq") {
      return { ok: false, detail: { type: "value_error", loc: ["body", "ports_mapping", i], msg: "Value error, Ethertype is only for QinQ port type", input: p } };
    }
    out.push({ name: p.name, port_number: p.port_number, type: p.type, vlan: p.vlan, ethertype });
  }
  return { ok: true, ports: out };
}
