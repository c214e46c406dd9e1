import type { InvalidConfiguration } from "../../domain/configuration/invalid-configuration.js";
import { pythonRepr } from "./python-repr.js";
import { scheduleRuleWords } from "./schedule-messages.js";

/** What was given, as GNS3's schema messages quote it (Python's repr), cut short when long. */
function quoted(got: unknown): string {
  if (typeof got === "object" && got !== null) return Array.isArray(got) ? "an array" : "an object";
  const text = pythonRepr(got);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const FORMAT_WORDS = {
  ip_interface: "an IPv4 or IPv6 address with its prefix length (10.0.0.1/24, fd00::1/64)",
  ip_address: "an IPv4 or IPv6 address",
  mac_address: "a unicast MAC address (02:00:00:00:00:01)",
} as const;

/** The 400 message for a configuration value that breaks a rule: the field, then the rule in jsonschema's words. */
export function configurationMessage(e: InvalidConfiguration): string {
  const r = e.rule;
  const what = ((): string => {
    switch (r.rule) {
      case "required":
        return "is required";
      case "type":
        return `${quoted(e.got)} is not of type '${r.expected}'`;
      case "minimum":
        return `${quoted(e.got)} is less than the minimum of ${r.limit}`;
      case "maximum":
        return `${quoted(e.got)} is greater than the maximum of ${r.limit}`;
      case "min_length":
        return r.limit === 1 ? `${quoted(e.got)} should be non-empty` : `${quoted(e.got)} is shorter than ${r.limit} characters`;
      case "max_length":
        return `is longer than ${r.limit} characters`;
      case "max_items":
        return `has ${quoted(e.got)} items, more than the ${r.limit} netemu allows`;
      case "max_depth":
        return `is nested deeper than ${r.limit} levels`;
      case "one_of":
        return `${quoted(e.got)} is not one of [${r.choices.map((c) => pythonRepr(c)).join(", ")}]`;
      case "duplicate":
        return `${typeof e.got === "number" ? "port number " : ""}${quoted(e.got)} is already given by ${r.first}`;
      case "port_not_in_mapping":
        return `port ${quoted(e.got)} is not in ports_mapping`;
      case "interface_name":
        return `${quoted(e.got)} is not a network interface name (no '/', ':' or white space, not '.' or '..')`;
      case "duplicate_value":
        return `${quoted(e.got)} is already given by ${r.first}`;
      case "host_address":
        return `${quoted(e.got)} is not an IPv4 or IPv6 address or a host name`;
      case "format":
        return `${quoted(e.got)} is not ${FORMAT_WORDS[r.format]}`;
      default:
        return scheduleRuleWords(r, quoted(e.got));
    }
  })();
  return `${e.field}: ${what}`;
}
