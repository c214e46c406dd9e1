const CHUNK_BYTES = 16 * 1024;
/** A larger frame (a jumbo frame) is copied into a buffer of its own: a chunk would waste too much of itself. */
const LARGEST_IN_CHUNK = CHUNK_BYTES / 4;

/**
 * Copies of frames a holder keeps (a delay line, a bandwidth queue), laid one after the other in
 * chunks of its own (ADR 0072): an ArrayBuffer per frame costs about 1 µs for a 1,400 B frame, a copy
 * into a chunk about 0.1. A chunk goes once none of its copies is held any more.
 */
export class FrameChunks {
  private chunk: Uint8Array | undefined = undefined;
  private used = 0;

  copy(frame: Uint8Array): Uint8Array {
    const length = frame.byteLength;
    // `slice` is not used: on a Buffer it gives another view.
    if (length > LARGEST_IN_CHUNK) return new Uint8Array(frame);
    if (this.chunk === undefined || this.used + length > CHUNK_BYTES) {
      this.chunk = new Uint8Array(CHUNK_BYTES);
      this.used = 0;
    }
    // Not `subarray`: its species lookup costs more than the copy.
    const copy = new Uint8Array(this.chunk.buffer, this.used, length);
    copy.set(frame);
    this.used += length;
    return copy;
  }

  /** Lets the chunk being filled go (its holder closed): the copies still referenced keep their own. */
  release(): void {
    this.chunk = undefined;
  }
}
