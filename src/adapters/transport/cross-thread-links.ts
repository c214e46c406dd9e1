import { FrameRing } from "./frame-ring.js";
import type { RingWaiter } from "./ring-wakeups.js";

/**
 * What the threads of this process say to each other about their in-process link ends (ADR 0111), on
 * one BroadcastChannel: an end that opened with no partner in its own thread says so ("open"); the
 * thread holding its partner either answers with its own "open" or, if its end's key is the smaller,
 * makes the pairing ("pair": two rings, one each way, and the two barriers each end sends the other
 * through its socket); either end ending it says "unpair". A message is a hint: the rings' own flags
 * (writer gone, reader gone) are what the ends act on, so a message lost to a thread that went away,
 * or read late, costs no frame that the socket path would not have lost.
 */
export const LINK_CHANNEL = "netemu:in-process-links:1";

/** The room of each direction of a link between two threads: 1 MiB of frames (ADR 0111). */
export const CROSS_THREAD_RING_BYTES = 1 << 20;

/** An end as its key (bind address, lport, rport, peer address) and its incarnation (one per open: a reopened end is another). */
interface EndName {
  readonly key: string;
  readonly incarnation: string;
}

export type LinkMessage =
  | { readonly kind: "open"; readonly key: string; readonly partnerKey: string; readonly incarnation: string }
  | {
      readonly kind: "pair";
      readonly pairing: string;
      readonly maker: EndName;
      readonly taker: EndName;
      /** The ring the maker writes and the taker reads, and the other way. */
      readonly toTaker: SharedArrayBuffer;
      readonly toMaker: SharedArrayBuffer;
      /** What the maker sent the taker through its socket before its first frame in the ring, and what the taker sends back. */
      readonly barrierToTaker: Uint8Array;
      readonly barrierToMaker: Uint8Array;
    }
  | { readonly kind: "unpair"; readonly pairing: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 200;
const isEndName = (v: unknown): v is EndName => isObject(v) && isText(v["key"]) && isText(v["incarnation"]);
const isRing = (v: unknown): v is SharedArrayBuffer => FrameRing.of(v) !== undefined;
const isBarrierBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array && v.length === 32;

/** A message from another thread, or undefined for anything else (another program's use of the channel, a defect). */
export function decodeLinkMessage(m: unknown): LinkMessage | undefined {
  if (!isObject(m)) return undefined;
  switch (m["kind"]) {
    case "open":
      return isText(m["key"]) && isText(m["partnerKey"]) && isText(m["incarnation"]) ? (m as LinkMessage) : undefined;
    case "pair":
      return isText(m["pairing"]) && isEndName(m["maker"]) && isEndName(m["taker"]) && isRing(m["toTaker"]) && isRing(m["toMaker"]) && isBarrierBytes(m["barrierToTaker"]) && isBarrierBytes(m["barrierToMaker"]) ? (m as LinkMessage) : undefined;
    case "unpair":
      return isText(m["pairing"]) ? (m as LinkMessage) : undefined;
    default:
      return undefined;
  }
}

/**
 * What an end's rings are, as it hands them over with its socket (a node moving to another worker,
 * ADR 0069): the end takes them up there and reads on (and, in a pairing, writes on) the same rings,
 * so nothing in flight either way is lost or reordered, and the partner does not notice.
 */
export interface CarriedRings {
  /** The rings it reads, oldest first (an ended pairing's until drained, then the current one's). */
  readonly inbound: readonly SharedArrayBuffer[];
  /** The barrier it still waits for, if any. */
  readonly barrier?: Uint8Array;
  /** The pairing it is in, if any. */
  readonly pairing?: {
    readonly id: string;
    readonly incarnation: string;
    readonly partnerIncarnation: string;
    readonly out: SharedArrayBuffer;
    readonly in: SharedArrayBuffer;
  };
}

/** The most rings an end reads at once: pairings end and start again while the rings of the last ones are drained. */
const MAX_INBOUND = 8;

export function decodeCarriedRings(v: unknown): CarriedRings | undefined {
  if (!isObject(v)) return undefined;
  const inbound = v["inbound"];
  if (!Array.isArray(inbound) || inbound.length > MAX_INBOUND || !inbound.every(isRing)) return undefined;
  if (v["barrier"] !== undefined && !isBarrierBytes(v["barrier"])) return undefined;
  const p = v["pairing"];
  if (p !== undefined && !(isObject(p) && isText(p["id"]) && isText(p["incarnation"]) && isText(p["partnerIncarnation"]) && isRing(p["out"]) && isRing(p["in"]))) return undefined;
  return v as unknown as CarriedRings;
}

/**
 * The rings an end reads, oldest first: a pairing that ended is drained before the one after it. Read
 * up to `framesPerTurn` a turn (the next turn comes through `defer`, setImmediate); when all are empty
 * it waits on the oldest one not finished, through its waiter (ADR 0112), without blocking its loop.
 * Held while the end waits for its barrier, and stopped for good when the end goes.
 */
export class RingReader {
  private readonly rings: FrameRing[] = [];
  private held = false;
  private stopped = false;
  private queued = false;

  constructor(
    private readonly defer: (callback: () => void) => void,
    private readonly waiter: RingWaiter,
    private readonly framesPerTurn: number,
    private readonly deliver: (frame: Uint8Array) => void,
    private readonly overflowed: (frames: number, bytes: number) => void,
  ) {}

  add(ring: FrameRing): void {
    this.rings.push(ring);
    this.pump();
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    this.pump();
  }

  /** Everything waiting, now (a datagram from the peer's socket is about to be given: what the rings hold was sent before it). */
  drainAll(): void {
    if (this.held || this.stopped) return;
    this.read(Infinity);
  }

  /** Reads no more; the rings, oldest first, for whoever takes over. */
  stop(): FrameRing[] {
    this.stopped = true;
    this.waiter.cancel();
    return this.rings.splice(0);
  }

  /** Reads up to `budget` frames; true when a frame was left waiting. */
  private read(budget: number): boolean {
    let left = budget;
    while (this.rings.length > 0 && !this.stopped) {
      const ring = this.rings[0] as FrameRing;
      const dropped = ring.takeOverflow();
      if (dropped.frames > 0) this.overflowed(dropped.frames, dropped.bytes);
      left -= ring.read(left, this.deliver);
      if (ring.waiting) return true;
      // Finished: its writer went and nothing is left in it (a later ring waits behind it).
      if (ring.writerGone) {
        this.rings.shift();
        continue;
      }
      return false;
    }
    return false;
  }

  private readonly pump = (): void => {
    this.queued = false;
    if (this.held || this.stopped) return;
    if (this.read(this.framesPerTurn)) return this.next();
    const oldest = this.rings[0];
    if (oldest === undefined) return this.waiter.cancel();
    if (!this.waiter.wait(oldest, this.woke)) this.next();
  };

  private readonly woke = (): void => {
    if (!this.queued) this.pump();
  };

  private next(): void {
    if (this.queued) return;
    this.queued = true;
    this.defer(this.pump);
  }
}
