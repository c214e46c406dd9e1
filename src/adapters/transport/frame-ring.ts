/**
 * One direction of a link between two threads of this process (ADR 0111): a single-writer,
 * single-reader ring of frames in a SharedArrayBuffer. The writer copies a frame in and publishes it
 * with an atomic store of its write position; the reader copies frames out in order and gives their
 * room back with an atomic store of its read position. A reader with nothing to read says so and
 * waits without blocking its loop: on its thread's doorbell (ADR 0112), whose id it leaves in the
 * ring for the writer to ring, or else with Atomics.waitAsync on a signal word the writer bumps. It is
 * woken only when it said it waits: a busy link costs no wake-up per frame.
 *
 * The memory is plain data: the buffer goes to another thread in a message (structured clone shares
 * it), and `FrameRing.of(buffer)` there is the same ring.
 */

/** The header's 32-bit words. Positions are byte counts modulo 2^32; the data region is a power of two. */
const WRITE = 0;
const READ = 1;
const SIGNAL = 2;
const READER_WAITING = 3;
const STATE = 4;
const OVERFLOW_FRAMES = 5;
const OVERFLOW_BYTES = 6;
/** The doorbell of the waiting reader's thread; 0: it waits with Atomics.waitAsync. */
const BELL = 7;
const HEADER_BYTES = 32;

const WRITER_GONE = 1;
const READER_GONE = 2;
/** The most bytes of records copied out at once: a frame kept (a delay line's) keeps its run's copy alive. */
const RUN_BYTES = 64 * 1024;
/** A record length that says: the rest of the region up to its end is unused, go on from its start. */
const WRAP = -1;

/** A record: its length (4 bytes) and the frame, padded to 4 bytes so that every length is aligned. */
const recordBytes = (length: number): number => 4 + ((length + 3) & ~3);

/** Atomics.waitAsync (ES2024; Node has it since 16), typed here: the project compiles against ES2022. */
const waitAsync = (Atomics as unknown as { waitAsync(words: Int32Array, index: number, value: number): { async: true; value: Promise<string> } | { async: false; value: string } }).waitAsync.bind(Atomics);

type RingWrite = "written" | "full" | "gone";

/** Rings the doorbell of that id (the reader's thread's): what the writer's thread can do to wake a reader. */
export type RingBell = (id: number) => void;

export class FrameRing {
  private readonly words: Int32Array;
  private readonly lengths: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly capacity: number;
  /** The write position past the frames staged and not published yet (this writer's own: not shared). */
  private staged: number | undefined;

  private constructor(
    readonly buffer: SharedArrayBuffer,
    private readonly bell: RingBell | undefined,
  ) {
    this.capacity = buffer.byteLength - HEADER_BYTES;
    this.words = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.lengths = new Int32Array(buffer, HEADER_BYTES, this.capacity / 4);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES, this.capacity);
  }

  /** A ring of `capacityBytes` of records (a power of two from 4 KiB to 1 GiB); `bell` wakes a reader waiting on a doorbell. */
  static create(capacityBytes: number, bell?: RingBell): FrameRing {
    if (!Number.isInteger(capacityBytes) || capacityBytes < 4096 || capacityBytes > 1 << 30 || (capacityBytes & (capacityBytes - 1)) !== 0) {
      throw new RangeError(`a frame ring holds a power of two of bytes from 4096 to 2^30, not ${capacityBytes}`);
    }
    return new FrameRing(new SharedArrayBuffer(HEADER_BYTES + capacityBytes), bell);
  }

  /** The ring another thread made, from its buffer; undefined for anything that is not one. */
  static of(buffer: unknown, bell?: RingBell): FrameRing | undefined {
    if (!(buffer instanceof SharedArrayBuffer)) return undefined;
    const capacity = buffer.byteLength - HEADER_BYTES;
    if (capacity < 4096 || (capacity & (capacity - 1)) !== 0) return undefined;
    return new FrameRing(buffer, bell);
  }

  /**
   * Copies `frame` in for the reader and publishes it. "full": no room (the frame is dropped and
   * counted for the reader, as a full socket buffer drops it); "gone": the reader closed, nothing is written.
   */
  write(frame: Uint8Array): RingWrite {
    const written = this.stage(frame);
    this.publish();
    return written;
  }

  /**
   * Copies `frame` in, for the reader to see at the next `publish()`: the frames a writer sends in one
   * turn are published, and their reader woken, once (as a turn's datagrams leave in one sendmmsg).
   */
  stage(frame: Uint8Array): RingWrite {
    if ((Atomics.load(this.words, STATE) & READER_GONE) !== 0) return "gone";
    const need = recordBytes(frame.length);
    let write = this.staged ?? Atomics.load(this.words, WRITE) >>> 0;
    const free = this.capacity - ((write - (Atomics.load(this.words, READ) >>> 0)) >>> 0);
    let at = write & (this.capacity - 1);
    // A record never wraps: the tail of the region is skipped when it is too short for it.
    const skip = this.capacity - at < need ? this.capacity - at : 0;
    if (need > this.capacity || free < skip + need) {
      Atomics.add(this.words, OVERFLOW_FRAMES, 1);
      Atomics.add(this.words, OVERFLOW_BYTES, frame.length);
      return "full";
    }
    if (skip > 0) {
      this.lengths[at >> 2] = WRAP;
      write = (write + skip) >>> 0;
      at = 0;
    }
    this.lengths[at >> 2] = frame.length;
    this.bytes.set(frame, at + 4);
    this.staged = (write + need) >>> 0;
    return "written";
  }

  /** Makes the staged frames the reader's, and wakes it if it waits. */
  publish(): void {
    if (this.staged === undefined) return;
    // The store publishes the records (Atomics are sequentially consistent): the reader that loads
    // this position sees the bytes written before it.
    Atomics.store(this.words, WRITE, this.staged | 0);
    this.staged = undefined;
    this.signal();
  }

  private signal(): void {
    Atomics.add(this.words, SIGNAL, 1);
    if (Atomics.exchange(this.words, READER_WAITING, 0) !== 1) return;
    // The reader stored its doorbell before it said it waits: the one loaded here is the waiting reader's.
    const bell = Atomics.load(this.words, BELL);
    if (bell !== 0 && this.bell !== undefined) this.bell(bell);
    else Atomics.notify(this.words, SIGNAL);
  }

  /** Whether a frame waits to be read. */
  get waiting(): boolean {
    return Atomics.load(this.words, WRITE) !== Atomics.load(this.words, READ);
  }

  /**
   * Gives up to `max` frames to `deliver`, oldest first, each a copy of its own; says how many. A run
   * of records that lie together (at most RUN_BYTES) is copied out at once and its frames given as
   * views of the copy (as the batched path gives views of its receive pool, ADR 0107): one copy and
   * one allocation a run, a view a frame.
   */
  read(max: number, deliver: (frame: Uint8Array) => void): number {
    let read = Atomics.load(this.words, READ) >>> 0;
    const write = Atomics.load(this.words, WRITE) >>> 0;
    let given = 0;
    while (read !== write && given < max) {
      const start = read & (this.capacity - 1);
      // Always followed by a record (the writer publishes both at once), whose store below covers it.
      if (this.lengths[start >> 2] === WRAP) {
        read = (read + this.capacity - start) >>> 0;
        continue;
      }
      // The run: records up to the write position, the region's end, a wrap, RUN_BYTES or `max` frames.
      const room = Math.min(this.capacity - start, (write - read) >>> 0);
      let end = start;
      let frames = 0;
      while (end - start < room && given + frames < max && end - start < RUN_BYTES) {
        const length = this.lengths[end >> 2] as number;
        if (length === WRAP) break;
        end += recordBytes(length);
        frames++;
      }
      const run = this.bytes.slice(start, end);
      read = (read + (end - start)) >>> 0;
      // Room given back before the frames are handled: the writer may go on meanwhile.
      Atomics.store(this.words, READ, read | 0);
      const lengths = new Int32Array(run.buffer, 0, (end - start) >> 2);
      for (let at = 0; at < end - start; ) {
        const length = lengths[at >> 2] as number;
        deliver(new Uint8Array(run.buffer, at + 4, length));
        at += recordBytes(length);
      }
      given += frames;
    }
    return given;
  }

  /** The frames dropped for want of room since the last call, and their bytes. */
  takeOverflow(): { frames: number; bytes: number } {
    return { frames: Atomics.exchange(this.words, OVERFLOW_FRAMES, 0), bytes: Atomics.exchange(this.words, OVERFLOW_BYTES, 0) };
  }

  /**
   * Resolves when a frame may be waiting or the writer went away; undefined when one is waiting already.
   * Never blocks the loop, and keeps no loop alive. Not to be relied on alone: under load Node 20 loses
   * such a wake-up now and then (the notify is made, the promise never settles), so a reader also looks
   * on a timer of its own (RingReader).
   */
  whenWritten(): Promise<unknown> | undefined {
    const seen = Atomics.load(this.words, SIGNAL);
    if (this.waiting || this.writerGone) return undefined;
    Atomics.store(this.words, BELL, 0);
    Atomics.store(this.words, READER_WAITING, 1);
    const wait = waitAsync(this.words, SIGNAL, seen);
    return wait.async ? wait.value : Promise.resolve(wait.value);
  }

  /**
   * Says the reader waits on the doorbell `bell` (its thread's): the writer rings it at its next write
   * or when it goes. False when a frame waits already, or the writer went: read, do not wait. Asking
   * again while waiting is harmless (a ring may have come for another ring of the same thread).
   */
  awaitBell(bell: number): boolean {
    Atomics.store(this.words, BELL, bell);
    Atomics.store(this.words, READER_WAITING, 1);
    // Looked at after saying it waits: a frame published before is seen here, one after rings.
    return !(this.waiting || this.writerGone);
  }

  /** The writer will write no more (its end closed, or the pairing ended): the reader drains what is left and lets go. */
  closeWriter(): void {
    this.publish();
    Atomics.or(this.words, STATE, WRITER_GONE);
    this.signal();
  }

  /** The reader reads no more (its end closed): the writer's next write says "gone". */
  closeReader(): void {
    Atomics.or(this.words, STATE, READER_GONE);
  }

  get writerGone(): boolean {
    return (Atomics.load(this.words, STATE) & WRITER_GONE) !== 0;
  }
}
