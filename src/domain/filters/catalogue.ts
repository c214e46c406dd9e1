/**
 * The link filter kinds: GNS3's five, in GNS3's order, with the exact names, descriptions and
 * parameter bounds its `available_filters` publishes (controller/link.py FILTERS in 2.2.59), then
 * netemu's own impairments in the same shape (ADR 0050).
 */
const GNS3_FILTER_KINDS = ["frequency_drop", "packet_loss", "delay", "corrupt", "bpf"] as const;
const NETEMU_FILTER_KINDS = ["bandwidth", "burst_loss", "duplicate", "reorder", "delay_distribution", "delay_correlation", "loss_correlation", "corrupt_correlation", "duplicate_correlation", "reorder_correlation", "match", "queue_discipline", "capacity_trace", "delay_trace", "loss_trace"] as const;
export const FILTER_KINDS = [...GNS3_FILTER_KINDS, ...NETEMU_FILTER_KINDS] as const;
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

/**
 * netemu's impairments beyond GNS3's five, described so that a GNS3 filter dialog renders them as it
 * renders the five (every int parameter has a minimum, a maximum and a unit). Listed in
 * `available_filters` only when the server is told to (GNS3 clients see GNS3's five by default).
 */
export const NETEMU_FILTER_CATALOGUE: readonly FilterDescriptor[] = [
  {
    type: "bandwidth",
    name: "Bandwidth",
    description:
      "Limit each direction to this rate in kbit/s, counting whole Ethernet frames. Frames that would wait longer than the queue (ms, 50 if left out) are dropped",
    parameters: [
      { name: "Rate", type: "int", minimum: 8, maximum: 10_000_000, unit: "kbit/s" },
      { name: "Queue", type: "int", minimum: 1, maximum: 10_000, unit: "ms" },
    ],
  },
  {
    type: "burst_loss",
    name: "Burst loss (Gilbert-Elliott)",
    description:
      "Lose frames in bursts, as netem's gemodel: each frame the link goes bad with chance p and good again with chance r; a frame is lost with the loss chance of the state it is in (bad 100 %, good 0 % if left out)",
    parameters: [
      { name: "p (good to bad)", type: "int", minimum: 0, maximum: 100, unit: "%" },
      { name: "r (bad to good)", type: "int", minimum: 1, maximum: 100, unit: "%" },
      { name: "Loss when bad", type: "int", minimum: 0, maximum: 100, unit: "%" },
      { name: "Loss when good", type: "int", minimum: 0, maximum: 100, unit: "%" },
    ],
  },
  {
    type: "duplicate",
    name: "Duplicate",
    description: "The percentage represents the chance for a frame to be sent twice",
    parameters: [{ name: "Chance", type: "int", minimum: 0, maximum: 100, unit: "%" }],
  },
  {
    type: "reorder",
    name: "Reorder",
    description: "With a delay, the percentage of frames sent without it, overtaking the delayed ones (as netem's reorder)",
    parameters: [{ name: "Chance", type: "int", minimum: 0, maximum: 100, unit: "%" }],
  },
  {
    type: "delay_distribution",
    name: "Delay distribution",
    description: "How the delay's jitter is drawn: uniform (GNS3's, within +/- jitter), normal or pareto (jitter is the standard deviation, as netem's)",
    parameters: [{ name: "Distribution", type: "text" }],
  },
  {
    type: "delay_correlation",
    name: "Delay correlation",
    description: "How much each frame's jitter follows the previous frame's, in % (the jitter keeps its distribution)",
    parameters: [{ name: "Correlation", type: "int", minimum: 0, maximum: 99, unit: "%" }],
  },
  {
    type: "loss_correlation",
    name: "Packet loss correlation",
    description: "How much packet loss follows the previous frame's fate, in % (its rate stays the chance set)",
    parameters: [{ name: "Correlation", type: "int", minimum: 0, maximum: 99, unit: "%" }],
  },
  {
    type: "corrupt_correlation",
    name: "Corrupt correlation",
    description: "How much corruption follows the previous frame's fate, in % (its rate stays the chance set)",
    parameters: [{ name: "Correlation", type: "int", minimum: 0, maximum: 99, unit: "%" }],
  },
  {
    type: "duplicate_correlation",
    name: "Duplicate correlation",
    description: "How much duplication follows the previous frame's fate, in % (its rate stays the chance set)",
    parameters: [{ name: "Correlation", type: "int", minimum: 0, maximum: 99, unit: "%" }],
  },
  {
    type: "reorder_correlation",
    name: "Reorder correlation",
    description: "How much reordering follows the previous frame's fate, in % (its rate stays the chance set)",
    parameters: [{ name: "Correlation", type: "int", minimum: 0, maximum: 99, unit: "%" }],
  },
  {
    type: "match",
    name: "Match (pcap-filter)",
    description: "Apply this link end's filters only to the frames matching one of these pcap-filter expressions, one per line; the other frames pass untouched",
    parameters: [{ name: "Expressions", type: "text" }],
  },
  {
    type: "queue_discipline",
    name: "Queue discipline",
    description:
      "How bandwidth's queue drops, in tc's words: tail_drop (the default, bounded by the queue in ms), codel or fq_codel, with their parameters (e.g. fq_codel target 5ms interval 100ms limit 10240 memory_limit 32mb flows 1024 quantum 1514 ecn). Needs bandwidth",
    parameters: [{ name: "Discipline", type: "text" }],
  },
  {
    type: "capacity_trace",
    name: "Capacity trace",
    description:
      "This direction's capacity follows an uploaded trace in Mahimahi's format (one line per 1,500-byte delivery opportunity, in ms, looping), from the first frame; frames wait in a queue of this many frames (1,000 if left out), tail drop. Replaces bandwidth",
    parameters: [
      { name: "Trace", type: "text" },
      { name: "Queue", type: "int", minimum: 1, maximum: 100_000, unit: "frames" },
    ],
  },
  {
    type: "delay_trace",
    name: "Delay trace",
    description: "Adds to each frame the delay an uploaded `<ms> <delay ms>` trace gives at that time (from the first frame, piecewise constant, looping at a lone last timestamp)",
    parameters: [{ name: "Trace", type: "text" }],
  },
  {
    type: "loss_trace",
    name: "Loss trace",
    description: "Loses each frame with the chance (%) an uploaded `<ms> <loss %>` trace gives at that time (from the first frame, piecewise constant, looping at a lone last timestamp)",
    parameters: [{ name: "Trace", type: "text" }],
  },
];

/** The values `delay_distribution` takes. */
export const DELAY_DISTRIBUTIONS = ["uniform", "normal", "pareto"] as const;
export type DelayDistribution = (typeof DELAY_DISTRIBUTIONS)[number];

export function isFilterKind(name: string): name is FilterKind {
  return (FILTER_KINDS as readonly string[]).includes(name);
}

export function descriptorOf(kind: FilterKind): FilterDescriptor {
  const found = FILTER_CATALOGUE.find((d) => d.type === kind) ?? NETEMU_FILTER_CATALOGUE.find((d) => d.type === kind);
  if (found === undefined) throw new Error(`no descriptor for ${kind}`);
  return found;
}
