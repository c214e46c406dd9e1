import type * as t from "io-ts";
import { DELAY_DISTRIBUTIONS, FILTER_CATALOGUE, type FilterKind, type IntParameter, NETEMU_FILTER_CATALOGUE } from "../../domain/filters/catalogue.js";
import { MINIMUM_VALUES } from "../../domain/filters/filter-settings.js";
import { ETHERTYPE_CHOICES, MAX_VLAN, MIN_VLAN } from "../../domain/switching/port.js";
import { CONFIGURATION_LIMITS } from "../../domain/configuration/limits.js";
import { QUANTITY_EXAMPLE, QUANTITY_PATTERN, QUANTITY_STEP, QUANTITY_TEXT, quantityOf } from "../../domain/filters/quantity.js";
import { scheduleCodec } from "./lab-schedule-format.js";
import { anyOf, bool, constant, int, jsonSchemaOf, list, map, num, object, oneOfValues, str, tagged, tuple } from "./lab-codec-kit.js";

/**
 * The lab file format (ADR 0084, docs/labs.md): the codecs a lab file is decoded with, and the JSON Schema
 * for editors generated from them. What the codecs cannot say (references between nodes and links, a
 * gateway outside its subnet, a port used twice) parse-lab.ts checks after them.
 */

/** The kinds of node a lab holds: GNS3's node types, and netemu's own Linux host. */
const LAB_NODE_KINDS = ["ethernet_switch", "ethernet_hub", "vpcs", "cloud", "host"] as const;
type LabNodeKind = (typeof LAB_NODE_KINDS)[number];

/** Node names: no colon (an endpoint is `node:port`), no space at either end. */
export const NODE_NAME = /^[^:\s](?:[^:]{0,253}[^:\s])?$/;
const IPV4 = String.raw`(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
export const IPV4_ADDRESS = new RegExp(`^${IPV4}$`);
export const IPV4_INTERFACE = new RegExp(`^${IPV4}/(?:3[0-2]|[12]?\\d)$`);
/** An endpoint: a node's name, a colon, a port (its name, `eN`, or its number). */
const ENDPOINT = /^[^:\s](?:[^:]*[^:\s])?:\S(?:.*\S)?$/;

const position = {
  x: int({ description: "Where the node is drawn in the GNS3 GUI (default: laid out on a grid)." }),
  y: int({ description: "Where the node is drawn in the GNS3 GUI." }),
};

const SwitchPort = object(
  "SwitchPort",
  { port: int({ minimum: 0, maximum: CONFIGURATION_LIMITS.maxPortNumber, description: "The port number (links name it eN or N)." }) },
  {
    name: str({ minLength: 1, description: "The port's name (default EthernetN)." }),
    type: oneOfValues(["access", "dot1q", "qinq"] as const, "access (untagged, default), dot1q (an 802.1Q trunk) or qinq (an 802.1ad tunnel)."),
    vlan: int({ minimum: MIN_VLAN, maximum: MAX_VLAN, description: "access: the port's VLAN; dot1q: the native VLAN; qinq: the outer VLAN (default 1)." }),
    ethertype: oneOfValues(ETHERTYPE_CHOICES.filter((e) => e !== ""), "qinq: the outer tag's ethertype (default 0x8100)."),
  },
  "One switch port, as GNS3's ports_mapping entry.",
);

const EthernetSwitch = object(
  "EthernetSwitch",
  { kind: constant("ethernet_switch") },
  {
    ports: anyOf(
      [int({ minimum: 1, maximum: CONFIGURATION_LIMITS.portsPerNode }), list(SwitchPort, { minItems: 1, maxItems: CONFIGURATION_LIMITS.portsPerNode })],
      "a number of access ports in VLAN 1, or a list of ports",
      "A number of access ports in VLAN 1 (Ethernet0..N-1), or each port's settings (default: 8 access ports in VLAN 1).",
    ),
    ...position,
  },
  "An 802.1Q learning switch run by netemu.",
);

const EthernetHub = object(
  "EthernetHub",
  { kind: constant("ethernet_hub") },
  { ports: int({ minimum: 1, maximum: CONFIGURATION_LIMITS.portsPerNode, description: "How many ports, Ethernet0..N-1 (default 8)." }), ...position },
  "A hub run by netemu: every frame goes out of every other port.",
);

const Vpcs = object(
  "Vpcs",
  { kind: constant("vpcs") },
  {
    address: str({ pattern: IPV4_INTERFACE, patternText: "an IPv4 address with its prefix length, e.g. 10.0.0.1/24", description: "The PC's IPv4 address and prefix length." }),
    gateway: str({ pattern: IPV4_ADDRESS, patternText: "an IPv4 address, e.g. 10.0.0.254", description: "The PC's default gateway (needs address)." }),
    startup_script: str({ description: "More VPCS commands run at start, one per line (after the address)." }),
    ...position,
  },
  "A VPCS simulated PC (one port, e0), run by netemu; its console is telnet.",
);

const UdpTunnel = object(
  "UdpTunnel",
  {
    name: str({ minLength: 1, description: "The port's name (links name it so)." }),
    lport: int({ minimum: 1, maximum: 65535, description: "The local UDP port netemu receives on." }),
    rhost: str({ minLength: 1, description: "The remote host frames are sent to." }),
    rport: int({ minimum: 1, maximum: 65535, description: "The remote UDP port." }),
  },
  { port: int({ minimum: 0, maximum: CONFIGURATION_LIMITS.maxPortNumber, description: "The port number (default: its place in the list)." }) },
  "A UDP tunnel port: frames to and from rhost:rport, one per datagram.",
);

const Cloud = object(
  "Cloud",
  { kind: constant("cloud"), ports: list(UdpTunnel, { minItems: 1, maxItems: CONFIGURATION_LIMITS.portsPerNode }) },
  position,
  "A GNS3 Cloud with UDP tunnel ports: anything outside (an emulator, a container, another host) joins the lab.",
);

const HostInterface = object(
  "HostInterface",
  { name: str({ pattern: /^[A-Za-z][A-Za-z0-9_.-]{0,14}$/, patternText: "a Linux interface name (at most 15 characters), e.g. eth0", description: "The interface's name in the host (links name it so)." }) },
  { address: str({ pattern: IPV4_INTERFACE, patternText: "an IPv4 address with its prefix length, e.g. 10.0.0.1/24", description: "Its IPv4 address and prefix length." }) },
  "A network interface of a Linux host.",
);

const Host = object(
  "Host",
  { kind: constant("host") },
  {
    interfaces: list(HostInterface, { minItems: 1, maxItems: 64, description: "Its interfaces (default: one, eth0, without an address)." }),
    gateway: str({ pattern: IPV4_ADDRESS, patternText: "an IPv4 address, e.g. 10.0.0.254", description: "The default route's gateway." }),
    ...position,
  },
  "netemu's Linux host: a network namespace with a real TCP/IP stack (root only).",
);

export const LabNodeCodec = tagged(
  "kind",
  { ethernet_switch: EthernetSwitch, ethernet_hub: EthernetHub, vpcs: Vpcs, cloud: Cloud, host: Host },
  "A node: its kind and that kind's settings.",
);

/**
 * One numeric parameter: a count is a whole number; a %, ms or kbit/s a number with decimals or a text
 * with its unit (`0.5%`, `500us`, `10mbit`), whose granularity the domain's parse checks (ADR 0101).
 */
function parameterValue(p: IntParameter): t.Mixed {
  const quantity = quantityOf(p.unit);
  if (quantity === "count") return int({ minimum: p.minimum, maximum: p.maximum, description: `${p.name} (${p.unit})` });
  const step = `to ${QUANTITY_STEP[quantity]}`;
  return anyOf(
    [
      num({ minimum: p.minimum, maximum: p.maximum, description: `${p.name} (${p.unit}, ${step})` }),
      str({ pattern: QUANTITY_PATTERN[quantity], patternText: QUANTITY_TEXT[quantity], description: `${p.name} with its unit (${QUANTITY_EXAMPLE[quantity]})` }),
    ],
    QUANTITY_TEXT[quantity],
  );
}

/** One filter kind's values: a single value may be written without the list (`delay: 50`). */
function filterValues(kind: FilterKind, description: string, parameters: readonly { readonly type: string }[]): t.Type<unknown> {
  if (kind === "bpf" || kind === "match") {
    return anyOf([str(), list(str(), { maxItems: CONFIGURATION_LIMITS.filterLines })], "a pcap-filter expression or a list of them", description);
  }
  if (kind === "queue_discipline") {
    return anyOf([str(), list(str(), { maxItems: CONFIGURATION_LIMITS.filterLines })], "a queue discipline in tc's words (fq_codel target 5ms)", description);
  }
  if (kind === "capacity_trace" || kind === "delay_trace" || kind === "loss_trace") {
    // An uploaded trace's name (ADR 0103); capacity_trace may add its queue bound in frames.
    const name = str({ description: "an uploaded trace's name" });
    return kind === "capacity_trace" ? anyOf([name, list(anyOf([str(), num({ minimum: 1, maximum: 100_000 })], "a trace name or a queue bound"), { maxItems: 2 })], "a trace name, or [name, queue frames]", description) : anyOf([name, list(str(), { maxItems: 1 })], "a trace name", description);
  }
  if (kind === "delay_distribution") {
    const one = oneOfValues(DELAY_DISTRIBUTIONS);
    return anyOf([one, tuple([one], 1)], "a distribution name", description);
  }
  const ints = (parameters as readonly IntParameter[]).map((p) => parameterValue(p));
  const minimum = MINIMUM_VALUES[kind] ?? ints.length;
  const branches: t.Mixed[] = minimum === 1 ? [ints[0] as t.Mixed, tuple(ints, 1)] : [tuple(ints, minimum)];
  return anyOf(branches, minimum === 1 ? "a number or a list of numbers" : "a list of numbers", description);
}

const filterDescription = (d: { readonly name: string; readonly description: string; readonly parameters: readonly { readonly name: string }[] }): string =>
  `${d.name}: ${d.description} (${d.parameters.map((p) => p.name).join(", ")}). 0 (or "") turns it off.`;

/** Every filter kind of the catalogue, by its name: the names `netemu impair` and the API use. */
export const FiltersCodec = object(
  "Filters",
  {},
  Object.fromEntries([...FILTER_CATALOGUE, ...NETEMU_FILTER_CATALOGUE].map((d) => [d.type, filterValues(d.type, filterDescription(d), d.parameters)])),
  "Filter kinds and their values, as GNS3's and netemu's link filters (README, Filters).",
);

const ScheduleCodec = scheduleCodec(FiltersCodec);

const LinkStyle = object(
  "LinkStyle",
  {},
  {
    color: str({ pattern: /^#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?$/, patternText: "a colour such as #ff0000", description: "The line's colour in the GNS3 GUI." }),
    width: int({ minimum: 0, maximum: 100, description: "The line's width." }),
    type: int({ minimum: 0, maximum: 6, description: "The line's Qt pen style (1 solid, 2 dashes, ...)." }),
  },
  "How the GNS3 GUI draws the link.",
);

const Endpoint = str({ pattern: ENDPOINT, patternText: "an endpoint node:port, e.g. sw1:e0", description: "node:port, the port by name (Ethernet0, eth0), as eN or as its number." });

export const LabLinkCodec = object(
  "Link",
  { endpoints: tuple([Endpoint, Endpoint], 2, "The link's two ends, a and b.") },
  {
    filters: FiltersCodec,
    a_to_b: FiltersCodec,
    b_to_a: FiltersCodec,
    // The same directions as a function of time (ADR 0102), instead of a_to_b / b_to_a.
    a_to_b_schedule: ScheduleCodec,
    b_to_a_schedule: ScheduleCodec,
    suspend: bool("A suspended link carries nothing (default false)."),
    style: LinkStyle,
  },
  "A link between two node ports; filters act both ways, a_to_b and b_to_a (netemu's one-way impairments) on one direction each.",
);

export const LabCodec = object(
  "Lab",
  {
    name: str({ minLength: 1, pattern: /^[^/\\\n]+$/, patternText: "a project name (no slash or line break)", description: "The lab's name: the netemu project's name." }),
    nodes: map(NODE_NAME, "a node name (no colon, no space at either end)", LabNodeCodec, "The nodes, by name."),
  },
  {
    links: list(LabLinkCodec, { maxItems: CONFIGURATION_LIMITS.linksPerProject, description: "The links between node ports." }),
    traces: map(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/, "a trace name (letters, digits, '.', '_', '-')", str({ minLength: 1, description: "The trace file's path, relative to the lab file." }), "Traces the lab's filters name (ADR 0103), each uploaded from its file when the lab is deployed."),
  },
  "A netemu lab: nodes and the links between them (docs/labs.md).",
);

export type RawLab = t.TypeOf<typeof LabCodec>;
export type RawLink = t.TypeOf<typeof LabLinkCodec>;

/** Parts of the schema written once under $defs: a link's three filter objects. */
const SHARED = new Map<t.Mixed, string>([[FiltersCodec, "Filters"], [ScheduleCodec, "Schedule"]]);

/** The JSON Schema of a lab file, shipped as schemas/lab.schema.json (a test checks the file is this). */
export function labJsonSchema(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "netemu lab",
    ...jsonSchemaOf(LabCodec, SHARED),
    // A shared part refers to the others (a schedule's filters are the Filters), never to itself.
    $defs: Object.fromEntries([...SHARED].map(([codec, name]) => [name, jsonSchemaOf(codec, new Map([...SHARED].filter(([other]) => other !== codec)))])),
  };
}

/** The schema file's text: what `npm run schema:lab` writes and the test compares. */
export function labSchemaText(): string {
  return `${JSON.stringify(labJsonSchema(), null, 2)}\n`;
}
