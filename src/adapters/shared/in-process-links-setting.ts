/**
 * NETEMU_IN_PROCESS_LINKS (ADR 0105, 0111), read in two adapters: the transport that runs the links (in
 * the main thread and in each data-plane worker) and the configuration, which refuses a value it does not
 * understand before anything starts.
 */

/** Which links pass their frames in memory: none, those within one thread (the default), or those between threads too. */
type InProcessLinksScope = "off" | "thread" | "threads";

/** What NETEMU_IN_PROCESS_LINKS says (unset or empty: within one thread), or that it says nothing understood. */
export function inProcessLinksSetting(value: string | undefined): InProcessLinksScope | "not understood" {
  const v = value?.trim().toLowerCase() ?? "";
  if (v === "" || v === "on" || v === "true" || v === "1" || v === "yes") return "thread";
  if (v === "off" || v === "false" || v === "0" || v === "no") return "off";
  if (v === "threads") return "threads";
  return "not understood";
}

/** The links that run in memory: within a thread unless NETEMU_IN_PROCESS_LINKS=off (or false, 0, no), between threads too with `threads`; `netemu serve` refuses a value it does not understand. */
export function inProcessLinksScope(env: NodeJS.ProcessEnv = process.env): InProcessLinksScope {
  const setting = inProcessLinksSetting(env["NETEMU_IN_PROCESS_LINKS"]);
  return setting === "not understood" ? "thread" : setting;
}
