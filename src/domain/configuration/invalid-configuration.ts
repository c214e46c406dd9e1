/**
 * A configuration value that breaks a rule, as data (ADR 0053): which field, which rule, what was
 * given. Every door words it its own way: the HTTP adapter as a 400, the project-file reader as the
 * reason a project is skipped, the embedding API hands it over as it is.
 */
export type ConfigurationRule =
  | { readonly rule: "required" }
  | { readonly rule: "type"; readonly expected: "string" | "integer" | "number" | "boolean" | "object" | "array" }
  | { readonly rule: "minimum" | "maximum"; readonly limit: number }
  | { readonly rule: "min_length" | "max_length"; readonly limit: number }
  | { readonly rule: "max_items"; readonly limit: number }
  /** A free-form JSON value (a project's variables, its supplier) nested deeper than `limit` levels. */
  | { readonly rule: "max_depth"; readonly limit: number }
  | { readonly rule: "one_of"; readonly choices: readonly string[] }
  /** The same port number twice in one ports_mapping: `first` is the field that had it first. */
  | { readonly rule: "duplicate"; readonly first: string }
  /** A NIO on a port number the node's ports_mapping does not have. */
  | { readonly rule: "port_not_in_mapping" }
  /** A network interface name the kernel would refuse ("/", ":" or white space in it, "." or ".."). */
  | { readonly rule: "interface_name" }
  /** A value that must be unique among its siblings given twice (a cloud's lport, its interface): `first` had it first. */
  | { readonly rule: "duplicate_value"; readonly first: string }
  /** A host that is neither an IPv4 nor an IPv6 address nor a DNS name (a cloud UDP tunnel's rhost). */
  | { readonly rule: "host_address" }
  /** A text that is not the address it must be: an IPv4/IPv6 address with its prefix length, an address, a MAC address. */
  | { readonly rule: "format"; readonly format: "ip_interface" | "ip_address" | "mac_address" }
  | ScheduleRule;

/** What a schedule (ADR 0102) can break beyond the common rules. */
export type ScheduleRule =
  | { readonly rule: "exclusive_minimum"; readonly limit: number }
  | { readonly rule: "min_items"; readonly limit: number }
  | { readonly rule: "unknown_field"; readonly allowed: readonly string[] }
  /** A schedule's first step must begin at 0: before it, nothing would say what runs. */
  | { readonly rule: "first_at_zero" }
  /** A step's time not after the step before it (`after` is that step's field). */
  | { readonly rule: "ascending"; readonly after: string }
  /** A window or step that ends beyond (or a step that begins at) the period. */
  | { readonly rule: "inside_period"; readonly period: string; readonly periodSeconds: number }
  /** A window that begins before the window before it has ended. */
  | { readonly rule: "after_window"; readonly window: string }
  | { readonly rule: "exclusive_with" | "only_with"; readonly other: string };

export interface InvalidConfiguration {
  readonly _tag: "InvalidConfiguration";
  /** Where, in the door's own names: `ports_mapping[3].vlan`, `nios[2].rport`. */
  readonly field: string;
  readonly rule: ConfigurationRule;
  /** What was given (the adapters shorten it when they quote it). */
  readonly got: unknown;
}

export function invalidConfiguration(field: string, rule: ConfigurationRule, got: unknown): InvalidConfiguration {
  return { _tag: "InvalidConfiguration", field, rule, got };
}

/** `parent.key`, or `key` at the top. */
export function fieldOf(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** `parent[index]`. */
export function itemOf(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
