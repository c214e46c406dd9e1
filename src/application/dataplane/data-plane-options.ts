import type { IntakeBudget } from "./fair-intake.js";

export interface DataPlaneOptions {
  /** MAC address aging, ms (802.1Q default 300 s). */
  readonly macAgingMs: number;
  /** MAC table size per switch; the oldest entry goes when it is full. */
  readonly macTableCapacity: number;
  /**
   * Frames and bytes (the frames' own length) the delays of one port may hold at once, both
   * directions together; a frame beyond either is dropped (`delay_limit`, ADR 0072).
   */
  readonly heldFramesPerPort: number;
  readonly heldBytesPerPort: number;
  /** The same, for every port of one data-plane thread together (a worker, or the main thread without workers). */
  readonly heldFramesPerWorker: number;
  readonly heldBytesPerWorker: number;
  /** The work one port may make its thread do per turn, and what it may hold past it (ADR 0075). */
  readonly intake?: IntakeBudget;
}

/**
 * Per port, 64 MiB: half a second of a 1 Gbit/s link (netem's default `limit` of 1,000 packets is
 * 12 ms of it); per thread, four such ports. 65,536 frames bound the bookkeeping of small frames.
 */
export const DEFAULT_DATA_PLANE_OPTIONS: DataPlaneOptions = {
  macAgingMs: 300_000,
  macTableCapacity: 8192,
  heldFramesPerPort: 65_536,
  heldBytesPerPort: 64 * 1024 * 1024,
  heldFramesPerWorker: 262_144,
  heldBytesPerWorker: 256 * 1024 * 1024,
};
