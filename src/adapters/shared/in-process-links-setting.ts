/**
 * NETEMU_IN_PROCESS_LINKS (ADR 0105), read in two adapters: the transport that runs the links (in the
 * main thread and in each data-plane worker) and the configuration, which refuses a value it does not
 * understand before anything starts.
 */

/** What NETEMU_IN_PROCESS_LINKS says: on, off, or nothing it understands (unset or empty: on). */
export function inProcessLinksSetting(value: string | undefined): boolean | "not understood" {
  const v = value?.trim().toLowerCase() ?? "";
  if (v === "" || v === "on" || v === "true" || v === "1" || v === "yes") return true;
  if (v === "off" || v === "false" || v === "0" || v === "no") return false;
  return "not understood";
}

/** Whether in-process links run: on unless NETEMU_IN_PROCESS_LINKS=off (or false, 0, no); `netemu serve` refuses a value it does not understand. */
export function inProcessLinksWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return inProcessLinksSetting(env["NETEMU_IN_PROCESS_LINKS"]) !== false;
}
