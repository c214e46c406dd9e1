import { formatMac } from "../ethernet/frame.js";

const DEFAULT_MAC_AGING_MS = 300_000;
const DEFAULT_MAC_TABLE_CAPACITY = 8192;

export interface MacTableOptions {
  /** Aging time in ms (IEEE 802.1Q default 300 s). 0 disables aging. */
  readonly agingTimeMs?: number;
  /** Maximum number of entries; when full, learning a new address evicts the least recently seen one. */
  readonly capacity?: number;
}

/** One row of the table as shown to users (same shape as the application's MacTableEntry). */
export interface MacTableRow {
  /** "aa:bb:cc:dd:ee:ff" */
  readonly mac: string;
  readonly vlan: number;
  /** Switch port number the address was last seen on. */
  readonly port: number;
  /** Seconds since the address was last seen (whole seconds, rounded down). */
  readonly age: number;
}

/** A table entry; also a node of the intrusive least-recently-seen list. */
class MacEntry {
  prev: MacEntry | undefined = undefined;
  next: MacEntry | undefined = undefined;
  constructor(
    readonly vlan: number,
    readonly mac: number,
    public port: number,
    public lastSeenMs: number,
  ) {}
}

/**
 * The filtering database of an 802.1Q bridge: (VLAN, MAC) → port, with aging and a bounded size.
 *
 * A (VLAN, MAC) pair needs 60 bits, more than a double holds exactly, so the table is two-level:
 * one Map per VLAN keyed by the 48-bit MAC number (no string or bigint per frame). All entries are
 * also on one doubly linked list in last-seen order (oldest first): refreshing is an O(1) move to the
 * tail, eviction at capacity and aging pop from the head. Times come in as `nowMs` and are assumed
 * not to go backwards (if they do, entries just live longer).
 */
export class MacTable {
  readonly agingTimeMs: number;
  readonly capacity: number;
  private readonly byVlan = new Map<number, Map<number, MacEntry>>();
  private head: MacEntry | undefined = undefined;
  private tail: MacEntry | undefined = undefined;
  private count = 0;

  constructor(options: MacTableOptions = {}) {
    const aging = options.agingTimeMs ?? DEFAULT_MAC_AGING_MS;
    const capacity = options.capacity ?? DEFAULT_MAC_TABLE_CAPACITY;
    if (!Number.isFinite(aging) || aging < 0) throw new RangeError(`MAC aging time must be >= 0 ms, got ${aging}`);
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`MAC table capacity must be >= 1, got ${capacity}`);
    this.agingTimeMs = aging;
    this.capacity = capacity;
  }

  get size(): number {
    return this.count;
  }

  /**
   * Records that `mac` was seen in `vlan` on `port` at `nowMs`: creates the entry, refreshes it, or
   * moves it to the new port. The caller does not pass group (multicast/broadcast) addresses.
   */
  learn(vlan: number, mac: number, port: number, nowMs: number): void {
    this.expireHead(nowMs);
    let macs = this.byVlan.get(vlan);
    if (macs === undefined) {
      macs = new Map();
      this.byVlan.set(vlan, macs);
    }
    const entry = macs.get(mac);
    if (entry !== undefined) {
      entry.port = port;
      entry.lastSeenMs = nowMs;
      if (entry !== this.tail) {
        this.unlink(entry);
        this.append(entry);
      }
      return;
    }
    if (this.count >= this.capacity && this.head !== undefined) this.remove(this.head);
    const created = new MacEntry(vlan, mac, port, nowMs);
    macs.set(mac, created);
    this.append(created);
    this.count++;
  }

  /** The port `mac` was learned on in `vlan`, or undefined if unknown or aged out. */
  lookup(vlan: number, mac: number, nowMs: number): number | undefined {
    const entry = this.byVlan.get(vlan)?.get(mac);
    if (entry === undefined) return undefined;
    if (this.isExpired(entry, nowMs)) {
      this.remove(entry);
      return undefined;
    }
    return entry.port;
  }

  /** Forgets (vlan, mac); true if it was there. */
  forget(vlan: number, mac: number): boolean {
    const entry = this.byVlan.get(vlan)?.get(mac);
    if (entry === undefined) return false;
    this.remove(entry);
    return true;
  }

  /** Removes every entry whose (vlan, port) satisfies `predicate`; returns how many went. */
  flushWhere(predicate: (vlan: number, port: number) => boolean): number {
    let removed = 0;
    for (let entry = this.head; entry !== undefined; ) {
      const next = entry.next;
      if (predicate(entry.vlan, entry.port)) {
        this.remove(entry);
        removed++;
      }
      entry = next;
    }
    return removed;
  }

  /** Removes every entry learned on `port` (its NIO was removed). */
  flushPort(port: number): number {
    return this.flushWhere((_vlan, p) => p === port);
  }

  flushAll(): void {
    this.byVlan.clear();
    this.head = undefined;
    this.tail = undefined;
    this.count = 0;
  }

  /** Removes the entries older than the aging time; returns how many went. */
  expire(nowMs: number): number {
    const before = this.count;
    this.expireHead(nowMs);
    return before - this.count;
  }

  /** The live entries, sorted by VLAN then MAC. */
  rows(nowMs: number): MacTableRow[] {
    this.expireHead(nowMs);
    const rows: { vlan: number; mac: number; port: number; age: number }[] = [];
    for (let e = this.head; e !== undefined; e = e.next) {
      rows.push({ vlan: e.vlan, mac: e.mac, port: e.port, age: Math.max(0, Math.floor((nowMs - e.lastSeenMs) / 1000)) });
    }
    rows.sort((a, b) => a.vlan - b.vlan || a.mac - b.mac);
    return rows.map((r) => ({ mac: formatMac(r.mac), vlan: r.vlan, port: r.port, age: r.age }));
  }

  /**
   * Every entry with the time it was last seen, least recently seen first: plain data that `learn`
   * takes back in this order to rebuild the table elsewhere (a node moving to another thread, ADR 0069).
   */
  entries(): { vlan: number; mac: number; port: number; lastSeenMs: number }[] {
    const out: { vlan: number; mac: number; port: number; lastSeenMs: number }[] = [];
    for (let e = this.head; e !== undefined; e = e.next) out.push({ vlan: e.vlan, mac: e.mac, port: e.port, lastSeenMs: e.lastSeenMs });
    return out;
  }

  private isExpired(entry: MacEntry, nowMs: number): boolean {
    return this.agingTimeMs > 0 && nowMs - entry.lastSeenMs >= this.agingTimeMs;
  }

  private expireHead(nowMs: number): void {
    while (this.head !== undefined && this.isExpired(this.head, nowMs)) this.remove(this.head);
  }

  private remove(entry: MacEntry): void {
    const macs = this.byVlan.get(entry.vlan);
    if (macs !== undefined) {
      macs.delete(entry.mac);
      if (macs.size === 0) this.byVlan.delete(entry.vlan);
    }
    this.unlink(entry);
    this.count--;
  }

  private append(entry: MacEntry): void {
    entry.prev = this.tail;
    entry.next = undefined;
    if (this.tail === undefined) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
  }

  private unlink(entry: MacEntry): void {
    if (entry.prev === undefined) this.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) this.tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
  }
}
