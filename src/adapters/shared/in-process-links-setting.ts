/**
 * NETEMU_IN_PROCESS_LINKS (ADR 0105, 0111, 0112), read in two adapters: the transport that runs the links
 * (in the main thread and in each data-plane worker) and the configuration, which refuses a value it does
 * not understand before anything starts.
 */

/**
 * Which links pass their frames in memory: none; those within one thread; those between threads too
 * (rings woken by the addon's doorbells, or by Atomics.waitAsync where it is missing); or, the default,
 * between threads where the doorbells are there and within one thread otherwise.
 */
type InProcessLinksSetting = "off" | "thread" | "threads" | "on";

/** What NETEMU_IN_PROCESS_LINKS says (unset or empty: on), or that it says nothing understood. */
export function inProcessLinksSetting(value: string | undefined): InProcessLinksSetting | "not understood" {
  const v = value?.trim().toLowerCase() ?? "";
  if (v === "" || v === "on" || v === "true" || v === "1" || v === "yes") return "on";
  if (v === "off" || v === "false" || v === "0" || v === "no") return "off";
  if (v === "thread" || v === "threads") return v;
  return "not understood";
}

/** The values a user may give, for the refusal of any other. */
export const IN_PROCESS_LINKS_VALUES = "on, off, thread or threads";

/**
 * The links that run in memory: "on" unless NETEMU_IN_PROCESS_LINKS says otherwise; `netemu serve`
 * refuses a value it does not understand, and the transport takes one as the default.
 * `doorbells`: whether this process's threads can wake each other through the addon (what "on" needs
 * for links between threads), asked only when it matters.
 */
export function inProcessLinksScope(env: NodeJS.ProcessEnv, doorbells: () => boolean): "off" | "thread" | "threads" {
  const setting = inProcessLinksSetting(env["NETEMU_IN_PROCESS_LINKS"]);
  if (setting === "off" || setting === "thread" || setting === "threads") return setting;
  return doorbells() ? "threads" : "thread";
}
