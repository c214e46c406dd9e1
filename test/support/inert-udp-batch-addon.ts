import type { UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";

/**
 * An addon that opens nothing: for tests of how the batched path is chosen and set up, not of sockets.
 * `overrides` replace its members; `coalescingSet` records each setCoalescing.
 */
export function inertUdpBatchAddon(overrides: Partial<UdpBatchAddon> = {}): UdpBatchAddon & { readonly coalescingSet: number[] } {
  const coalescingSet: number[] = [];
  return {
    open: () => ({}),
    send: () => 0,
    close: () => undefined,
    detach: () => -1,
    adopt: () => ({}),
    openTap: () => ({}),
    openEthernet: () => ({}),
    adoptDevice: () => ({}),
    setCoalescing: (us) => void coalescingSet.push(us),
    coalescing: () => ({ microseconds: coalescingSet.at(-1) ?? 0, parked: 0, ticks: 0 }),
    doorbell: () => 1,
    ring: () => false,
    ...overrides,
    coalescingSet,
  };
}
