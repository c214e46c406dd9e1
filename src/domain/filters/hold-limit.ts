/**
 * What a port's delay lines hold, counted against the port's bound and, through its parent, against
 * the bound of every port of the same thread (ADR 0072). A frame is held only when every bound
 * still has room for it: one that does not fit is not held (the caller drops and counts it).
 */
export class HoldBudget {
  private heldFrames = 0;
  private heldBytes = 0;

  constructor(
    /**
     * How much may be held at once: frames, and bytes (the Ethernet frames' own length). A bound in
     * frames alone lets jumbo frames take gigabytes; one in bytes alone lets minimum-size frames cost
     * their bookkeeping many times over.
     */
    readonly limit: { readonly frames: number; readonly bytes: number },
    private readonly parent?: HoldBudget,
  ) {}

  get frames(): number {
    return this.heldFrames;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** Holds a frame of `bytes` when this budget and its parents have room for it; false when not. */
  take(bytes: number): boolean {
    if (this.heldFrames + 1 > this.limit.frames || this.heldBytes + bytes > this.limit.bytes) return false;
    if (this.parent !== undefined && !this.parent.take(bytes)) return false;
    this.heldFrames++;
    this.heldBytes += bytes;
    return true;
  }

  /** A held frame of `bytes` left (sent, dropped or handed over). */
  give(bytes: number): void {
    this.heldFrames--;
    this.heldBytes -= bytes;
    this.parent?.give(bytes);
  }
}
