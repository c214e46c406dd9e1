/** One sample line of the Prometheus text format: `name{label="value",...} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly samples: readonly Sample[];
  /** Each family's `# TYPE`. */
  readonly types: ReadonlyMap<string, string>;
  /** The value of the one sample of `name` whose labels include `labels`; fails when none or several match. */
  value(name: string, labels?: Readonly<Record<string, string>>): number;
  /** Every sample of `name` whose labels include `labels`. */
  all(name: string, labels?: Readonly<Record<string, string>>): readonly Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
const FAMILY_SUFFIXES = ["_bucket", "_sum", "_count"];

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (m === null) throw new Error(`malformed labels in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}

/**
 * Parses the Prometheus text format 0.0.4 strictly enough to catch a broken exposition: every line
 * is a HELP, a TYPE or a sample, every sample belongs to a family with a TYPE, values are numbers.
 */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment !== null) {
      if (comment[1] === "TYPE") types.set(comment[2]!, comment[3]!);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    // As Prometheus reads them (Go's ParseFloat): NaN and Inf in any case; prom-client writes "Nan".
    const raw = m[3]!.toLowerCase();
    const value = raw === "nan" ? NaN : raw === "+inf" || raw === "inf" ? Infinity : raw === "-inf" ? -Infinity : Number(m[3]);
    if (Number.isNaN(value) && raw !== "nan") throw new Error(`not a number in: ${line}`);
    const name = m[1]!;
    const family = types.has(name) ? name : FAMILY_SUFFIXES.map((s) => (name.endsWith(s) ? name.slice(0, -s.length) : "")).find((f) => types.has(f));
    if (family === undefined) throw new Error(`sample without a TYPE: ${line}`);
    samples.push({ name, labels: parseLabels(m[2] ?? "", line), value });
  }
  const all = (name: string, labels: Readonly<Record<string, string>> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    samples,
    types,
    all,
    value(name, labels = {}) {
      const found = all(name, labels);
      if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
      return found[0]!.value;
    },
  };
}
