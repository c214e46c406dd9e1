/**
 * The five link filter kinds, in GNS3's order, with the exact names, descriptions and parameter
 * bounds its `available_filters` publishes (controller/link.py FILTERS in 2.2.59).
 */
export const FILTER_KINDS = ["frequency_drop", "packet_loss", "delay", "corrupt", "bpf"] as const;
export type FilterKind = (typeof FILTER_KINDS)[number];

export interface IntParameter {
  readonly name: string;
  readonly type: "int";
  readonly minimum: number;
  readonly maximum: number;
  readonly unit: string;
}
export interface TextParameter {
  readonly name: string;
  readonly type: "text";
}
export type FilterParameter = IntParameter | TextParameter;

export interface FilterDescriptor {
  readonly type: FilterKind;
  readonly name: string;
  readonly description: string;
  readonly parameters: readonly FilterParameter[];
}

export const FILTER_CATALOGUE: readonly FilterDescriptor[] = [
  {
    type: "frequency_drop",
    name: "Frequency drop",
    description:
      "It will drop everything with a -1 frequency, drop every Nth packet with a positive frequency, or drop nothing",
    parameters: [{ name: "Frequency", type: "int", minimum: -1, maximum: 32767, unit: "th packet" }],
  },
  {
    type: "packet_loss",
    name: "Packet loss",
    description: "The percentage represents the chance for a packet to be lost",
    parameters: [{ name: "Chance", type: "int", minimum: 0, maximum: 100, unit: "%" }],
  },
  {
    type: "delay",
    name: "Delay",
    description: "Delay packets in milliseconds. You can add jitter in milliseconds (+/-) of the delay",
    parameters: [
      { name: "Latency", type: "int", minimum: 0, maximum: 32767, unit: "ms" },
      { name: "Jitter (-/+)", type: "int", minimum: 0, maximum: 32767, unit: "ms" },
    ],
  },
  {
    type: "corrupt",
    name: "Corrupt",
    description: "The percentage represents the chance for a packet to be corrupted",
    parameters: [{ name: "Chance", type: "int", minimum: 0, maximum: 100, unit: "%" }],
  },
  {
    type: "bpf",
    name: "Berkeley Packet Filter (BPF)",
    description: "This filter will drop any packet matching a BPF expression. Put one expression per line",
    parameters: [{ name: "Filters", type: "text" }],
  },
];

export function isFilterKind(name: string): name is FilterKind {
  return (FILTER_KINDS as readonly string[]).includes(name);
}

export function descriptorOf(kind: FilterKind): FilterDescriptor {
  const found = FILTER_CATALOGUE.find((d) => d.type === kind);
  if (found === undefined) throw new Error(`no descriptor for ${kind}`);
  return found;
}
