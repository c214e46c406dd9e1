/** netemu's filter kinds as the page offers them (the same kinds as `netemu impair` and PUT /v2/netemu/impairments). */
export interface KindField {
  readonly kind: string;
  readonly label: string;
  /** What the values are, in order, as the input's hint. */
  readonly hint: string;
  /** A text kind takes its input whole; the others a comma-separated list of numbers, or values with units (ADR 0101). */
  readonly text: boolean;
}

export const KIND_FIELDS: readonly KindField[] = [
  { kind: "delay", label: "Delay", hint: "latency ms, jitter ms (to 0.001, or 500us, 1.5ms, 2s)", text: false },
  { kind: "packet_loss", label: "Packet loss", hint: "chance % (to 0.01)", text: false },
  { kind: "frequency_drop", label: "Frequency drop", hint: "every Nth frame (-1: all)", text: false },
  { kind: "corrupt", label: "Corrupt", hint: "chance % (to 0.01)", text: false },
  { kind: "bpf", label: "BPF drop", hint: "pcap-filter expression", text: true },
  { kind: "bandwidth", label: "Bandwidth", hint: "rate kbit/s or 10mbit, 512kbit, queue ms", text: false },
  { kind: "burst_loss", label: "Burst loss (Gilbert-Elliott)", hint: "p %, r %, loss when bad %, loss when good %", text: false },
  { kind: "duplicate", label: "Duplicate", hint: "chance % (to 0.01)", text: false },
  { kind: "reorder", label: "Reorder", hint: "chance % (to 0.01)", text: false },
  { kind: "delay_distribution", label: "Delay distribution", hint: "uniform, normal or pareto", text: true },
  { kind: "delay_correlation", label: "Delay correlation", hint: "%", text: false },
  { kind: "loss_correlation", label: "Packet loss correlation", hint: "%", text: false },
  { kind: "corrupt_correlation", label: "Corrupt correlation", hint: "%", text: false },
  { kind: "duplicate_correlation", label: "Duplicate correlation", hint: "%", text: false },
  { kind: "reorder_correlation", label: "Reorder correlation", hint: "%", text: false },
  { kind: "match", label: "Match (pcap-filter)", hint: "expression the impairments apply to", text: true },
  { kind: "queue_discipline", label: "Queue discipline", hint: "tail_drop, codel or fq_codel [target 5ms interval 100ms ...]", text: true },
  { kind: "capacity_trace", label: "Capacity trace (Mahimahi)", hint: "uploaded trace name, queue frames", text: false },
  { kind: "delay_trace", label: "Delay trace", hint: "uploaded trace name", text: false },
  { kind: "loss_trace", label: "Loss trace", hint: "uploaded trace name", text: false },
];

/**
 * One input's text as the kind's values: `50, 5` → [50, 5], `0.5` → [0.5]; a value with its unit
 * (`500us`, `10mbit`, `0.5%`) is sent as text, which netemu reads (ADR 0101); empty → none (the kind is left out).
 */
export function valuesOf(field: KindField, input: string): unknown[] | undefined {
  const trimmed = input.trim();
  if (trimmed === "") return undefined;
  if (field.text) return [trimmed];
  // Not numbers are sent as they are: netemu's refusal names the kind and what it takes.
  return trimmed.split(/[\s,]+/).map((v) => (/^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v));
}

/** The values of a kind as the input shows them. */
export function textOf(values: readonly unknown[] | undefined): string {
  return values === undefined ? "" : values.map(String).join(", ");
}
