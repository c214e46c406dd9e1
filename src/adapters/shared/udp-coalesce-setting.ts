/**
 * NETEMU_UDP_COALESCE_US (ADR 0110), read in two adapters: the batched transport, which sets its
 * thread's receive coalescing (in the main thread and in each data-plane worker), and the
 * configuration, which refuses a value it does not understand before anything starts.
 */

/** The most microseconds a frame may be held for coalescing: the addon's own limit. */
const UDP_COALESCE_MAX_US = 1000;

/** What NETEMU_UDP_COALESCE_US says: the interval in µs (0: off, also when unset or empty), or why it is not one. */
export function udpCoalesceSetting(value: string | undefined): number | { readonly notUnderstood: string } {
  const v = value?.trim().toLowerCase() ?? "";
  if (v === "" || v === "off") return 0;
  if (!/^\d+$/.test(v)) return { notUnderstood: `NETEMU_UDP_COALESCE_US must be a whole number of microseconds from 0 to ${UDP_COALESCE_MAX_US}, or off; got "${value}"` };
  const us = Number(v);
  if (us > UDP_COALESCE_MAX_US) return { notUnderstood: `NETEMU_UDP_COALESCE_US is at most ${UDP_COALESCE_MAX_US} µs (a frame may wait that long), got ${us}` };
  return us;
}

/** The interval the batched path coalesces receives with: 0 (off) unless NETEMU_UDP_COALESCE_US says; `netemu serve` refuses a value it does not understand. */
export function udpCoalesceMicroseconds(env: NodeJS.ProcessEnv = process.env): number {
  const setting = udpCoalesceSetting(env["NETEMU_UDP_COALESCE_US"]);
  return typeof setting === "number" ? setting : 0;
}
