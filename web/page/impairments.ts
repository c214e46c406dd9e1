/** netemu's filter kinds as the page offers them (the same kinds as `netemu impair` and PUT /v2/netemu/impairments). */
export interface KindField {
  readonly kind: string;
  readonly label: string;
  /** What the values are, in order, as the input's hint. */
  readonly hint: string;
  /** A text kind takes its input whole; the others a comma-separated list of integers. */
  readonly text: boolean;
}

export const KIND_FIELDS: readonly KindField[] = [
  { kind: "delay", label: "Delay", hint: "latency ms, jitter ms", text: false },
  { kind: "packet_loss", label: "Packet loss", hint: "chance %", text: false },
  { kind: "frequency_drop", label: "Frequency drop", hint: "every Nth frame (-1: all)", text: false },
  { kind: "corrupt", label: "Corrupt", hint: "chance %", text: false },
  { kind: "bpf", label: "BPF drop", hint: "pcap-filter expression", text: true },
  { kind: "bandwidth", label: "Bandwidth", hint: "rate kbit/s, queue ms", text: false },
  { kind: "burst_loss", label: "Burst loss (Gilbert-Elliott)", hint: "p %, r %, loss when bad %, loss when good %", text: false },
  { kind: "duplicate", label: "Duplicate", hint: "chance %", text: false },
  { kind: "reorder", label: "Reorder", hint: "chance %", text: false },
  { kind: "delay_distribution", label: "Delay distribution", hint: "uniform, normal or pareto", text: true },
  { kind: "delay_correlation", label: "Delay correlation", hint: "%", text: false },
  { kind: "loss_correlation", label: "Packet loss correlation", hint: "%", text: false },
  { kind: "corrupt_correlation", label: "Corrupt correlation", hint: "%", text: false },
  { kind: "duplicate_correlation", label: "Duplicate correlation", hint: "%", text: false },
  { kind: "reorder_correlation", label: "Reorder correlation", hint: "%", text: false },
  { kind: "match", label: "Match (pcap-filter)", hint: "expression the impairments apply to", text: true },
  { kind: "queue_discipline", label: "Queue discipline", hint: "tail_drop, codel or fq_codel [target 5ms interval 100ms ...]", text: true },
];

/** One input's text as the kind's values: `50, 5` → [50, 5]; empty → none (the kind is left out). */
export function valuesOf(field: KindField, input: string): unknown[] | undefined {
  const trimmed = input.trim();
  if (trimmed === "") return undefined;
  if (field.text) return [trimmed];
  // Not numbers are sent as they are: netemu's refusal names the kind and what it takes.
  return trimmed.split(/[\s,]+/).map((v) => (/^-?\d+$/.test(v) ? Number.parseInt(v, 10) : v));
}

/** The values of a kind as the input shows them. */
export function textOf(values: readonly unknown[] | undefined): string {
  return values === undefined ? "" : values.map(String).join(", ");
}
