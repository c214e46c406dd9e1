/**
 * netem's granularity for the values users type (ADR 0101): chances to 0.01 %, times to 1 µs, rates to
 * 1 bit/s. A numeric filter parameter is one of four quantities, told by its catalogue unit (so a
 * parameter added later with one of these units gets its granularity without being listed here):
 *
 * - `percent` (unit "%"): a number of % with at most 2 decimals, or a text "0.5%";
 * - `time` (unit "ms"): a number of ms with at most 3 decimals, or a text with its unit: "500us", "1.5ms", "2s";
 * - `rate` (unit "kbit/s"): a number of kbit/s with at most 3 decimals, or a text with a unit as tc reads it;
 * - `count` (any other unit): a whole number, as GNS3's catalogue says.
 *
 * A text is turned into the number in the catalogue's unit (`"500us"` → 0.5 ms, `"10mbit"` → 10000
 * kbit/s): what is kept, compared and answered is that number, so an integer GNS3 client reads back what
 * it sent. A text without a unit is refused, not guessed: tc reads a bare rate as bytes/s and a bare
 * time as µs, where netemu's numbers are kbit/s and ms.
 */
type Quantity = "count" | "percent" | "time" | "rate";

/** The quantity of a parameter, from its catalogue unit. */
export function quantityOf(unit: string): Quantity {
  switch (unit) {
    case "%":
      return "percent";
    case "ms":
      return "time";
    case "kbit/s":
      return "rate";
    default:
      return "count";
  }
}

/** How many decimals of the catalogue's unit a quantity takes: 0.01 %, 0.001 ms (1 µs), 0.001 kbit/s (1 bit/s). */
const QUANTITY_DECIMALS: Readonly<Record<Quantity, number>> = { count: 0, percent: 2, time: 3, rate: 3 };

/** The finest step of a quantity, as a user reads it (the messages say it). */
export const QUANTITY_STEP: Readonly<Record<Quantity, string>> = { count: "1", percent: "0.01 %", time: "0.001 ms, 1 µs", rate: "0.001 kbit/s, 1 bit/s" };

/** What a quantity's text looks like, for the messages: the units it takes, with examples. */
export const QUANTITY_TEXT: Readonly<Record<Quantity, string>> = {
  count: "a whole number",
  percent: "a number of %, or a text such as 0.5%",
  time: "a number of ms, or a time with its unit: us, ms or s (500us, 1.5ms, 2s)",
  rate: "a number of kbit/s, or a rate with its unit: bit, kbit, mbit, gbit, or bytes/s as bps, kbps, mbps, gbps (kibit, mibit, gibit, kibps, mibps, gibps for powers of 1024), e.g. 10mbit",
};

/** Texts of each quantity, as examples. */
export const QUANTITY_EXAMPLE: Readonly<Record<Exclude<Quantity, "count">, string>> = { percent: "0.5%", time: "500us, 1.5ms, 2s", rate: "10mbit, 512kbit, 1mbps" };

/**
 * Time units as tc reads them (tc's get_time: s, sec, secs, ms, msec, msecs, us, usec, usecs), with µs:
 * how many µs one is.
 */
const TIME_UNITS: ReadonlyMap<string, bigint> = new Map([
  ["s", 1_000_000n],
  ["sec", 1_000_000n],
  ["secs", 1_000_000n],
  ["ms", 1_000n],
  ["msec", 1_000n],
  ["msecs", 1_000n],
  ["us", 1n],
  ["usec", 1n],
  ["usecs", 1n],
  ["µs", 1n],
]);

/**
 * Rate units as tc reads them (tc's get_rate table, compared without case as tc's strcasecmp does):
 * bits per second in bit, kbit, mbit, gbit (powers of 1000) and kibit, mibit, gibit (powers of 1024);
 * BYTES per second in bps, kbps, mbps, gbps and kibps, mibps, gibps. How many bit/s one is.
 */
const RATE_UNITS: ReadonlyMap<string, bigint> = new Map([
  ["bit", 1n],
  ["kbit", 1_000n],
  ["mbit", 1_000_000n],
  ["gbit", 1_000_000_000n],
  ["kibit", 1_024n],
  ["mibit", 1_048_576n],
  ["gibit", 1_073_741_824n],
  ["bps", 8n],
  ["kbps", 8_000n],
  ["mbps", 8_000_000n],
  ["gbps", 8_000_000_000n],
  ["kibps", 8n * 1_024n],
  ["mibps", 8n * 1_048_576n],
  ["gibps", 8n * 1_073_741_824n],
]);

/** Any case of each letter, as tc compares rate units (JSON Schema's patterns take no flags). */
const anyCase = (word: string): string => [...word].map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch)).join("");

/**
 * What a text of each quantity looks like, as a pattern without flags (for a lab file's JSON Schema and
 * the API's OpenAPI document): a number, then one of the units. A sign is let through, so that "-5ms" is
 * refused as out of range, with its bounds, rather than as unreadable; the decimals and bounds are checked
 * where the text is read.
 */
export const QUANTITY_PATTERN: Readonly<Record<Exclude<Quantity, "count">, RegExp>> = {
  percent: /^[+-]?\d+(\.\d+)?\s*%$/,
  time: new RegExp(`^[+-]?\\d+(\\.\\d+)?\\s*(${[...TIME_UNITS.keys()].join("|")})$`),
  rate: new RegExp(`^[+-]?\\d+(\\.\\d+)?\\s*(${[...RATE_UNITS.keys()].map(anyCase).join("|")})$`),
};

/** Why a value is not a quantity, as data; the adapters word it. */
type QuantityProblem =
  /** Not a number or a text (null, a boolean, a list), or a number that is not finite (NaN, Infinity). */
  | { readonly problem: "not_a_number" }
  /** A whole-number parameter given a fraction or a text. */
  | { readonly problem: "not_an_integer" }
  /** A text that is not a number with one of the quantity's units: `unit` is the word found, if any. */
  | { readonly problem: "not_a_quantity"; readonly unit?: string }
  /** Finer than the quantity's step: more decimals than it takes, or a text below 1 µs (1 bit/s). */
  | { readonly problem: "too_fine" }
  /** Read, but outside the parameter's bounds: `value` in the catalogue's unit. */
  | { readonly problem: "out_of_range"; readonly read: number };

const NUMBER_WITH_UNIT = /^([+-]?)(\d+)(?:\.(\d+))?\s*([a-zA-Zµ%/]*)$/;

/** The number of a value given in the catalogue's unit, if it has no more decimals than `decimals`. */
function withinDecimals(v: number, decimals: number): boolean {
  return Number(v.toFixed(decimals)) === v;
}

/**
 * A text `12.5<unit>` as an exact count of the quantity's finest step (hundredths of %, µs, bit/s),
 * or why not. Exact: the digits are read as decimal integers, never through a binary fraction.
 */
function readText(text: string, quantity: Exclude<Quantity, "count">): { steps: bigint } | QuantityProblem {
  const m = NUMBER_WITH_UNIT.exec(text.trim());
  if (m === null) return { problem: "not_a_quantity" };
  const [, sign, whole, fraction = "", rawUnit = ""] = m as unknown as [string, string, string, string | undefined, string | undefined];
  const unit = quantity === "rate" ? rawUnit.toLowerCase() : rawUnit;
  let perUnit: bigint | undefined;
  if (quantity === "percent") perUnit = unit === "%" ? 100n : undefined;
  else if (quantity === "time") perUnit = TIME_UNITS.get(unit);
  else perUnit = RATE_UNITS.get(unit);
  if (perUnit === undefined) return unit === "" ? { problem: "not_a_quantity" } : { problem: "not_a_quantity", unit: rawUnit };
  const scale = 10n ** BigInt(fraction.length);
  const scaled = BigInt(whole + fraction) * perUnit;
  if (scaled % scale !== 0n) return { problem: "too_fine" };
  const steps = scaled / scale;
  return { steps: sign === "-" ? -steps : steps };
}

/** How many of a quantity's finest steps make one of the catalogue's unit. */
const STEPS_PER_UNIT: Readonly<Record<Exclude<Quantity, "count">, number>> = { percent: 1, time: 1_000, rate: 1_000 };

/**
 * A parameter's value, given as a number in the catalogue's unit or (except counts) as a text with a
 * unit, checked against the quantity's granularity and the parameter's bounds: the number in the
 * catalogue's unit, or what is wrong with it.
 */
export function readQuantity(value: unknown, quantity: Quantity, minimum: number, maximum: number): { readonly problem?: undefined; readonly value: number } | QuantityProblem {
  let v: number;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { problem: quantity === "count" ? "not_an_integer" : "not_a_number" };
    if (quantity === "count") {
      if (!Number.isInteger(value)) return { problem: "not_an_integer" };
    } else if (!withinDecimals(value, QUANTITY_DECIMALS[quantity])) return { problem: "too_fine" };
    v = value;
  } else if (typeof value === "string") {
    if (quantity === "count") return { problem: "not_an_integer" };
    const read = readText(value, quantity);
    if ("problem" in read) return read;
    // Percent steps are hundredths: scaled back through the decimals, so 0.29 is the double of "0.29".
    const steps = Number(read.steps);
    v = quantity === "percent" ? steps / 100 : steps / STEPS_PER_UNIT[quantity];
    // -0 is 0.
    v = v === 0 ? 0 : v;
  } else return { problem: quantity === "count" ? "not_an_integer" : "not_a_number" };
  if (v < minimum || v > maximum) return { problem: "out_of_range", read: v };
  return { value: v };
}
