import {
  ETHERTYPE_OFFSET,
  ETH_ADDR_LEN,
  ETH_HEADER_LEN,
  TAGGED_HEADER_LEN,
  TPID_8021Q,
  VID_MASK,
  VID_PRIORITY,
  VID_RESERVED,
  isTagTpid,
  macAt,
  popTag,
  pushTag,
  readU16,
  withOuterVid,
} from "../ethernet/frame.js";
import { MacTable, type MacTableOptions, type MacTableRow } from "./mac-table.js";
import { PortCounters, type SwitchDropReason } from "./port-counters.js";
import type { Port, PortMode } from "./port.js";

const ACCESS = 0;
const DOT1Q = 1;
const QINQ = 2;

/** How the frame's bytes relate to its VLAN after ingress classification. */
const TAG_NONE = 0; // the bytes carry no tag for the VLAN (untagged, or opaque to the port)
const TAG_VLAN = 1; // the outer tag holds the VLAN's VID: reusable as-is towards tagged egress
const TAG_PRIORITY = 2; // the outer tag is priority-only (VID 0): reusable with the VID filled in

/** Live state of one attached port. */
class PortState {
  kind = ACCESS;
  /** access VLAN, dot1q native VLAN, or qinq outer (S-)VLAN: the VLAN of untagged traffic. */
  vlan = 1;
  /** TPID pushed for frames that enter here and leave tagged (0x8100, or the qinq ethertype). */
  pushTpid = TPID_8021Q;
  mode: PortMode;
  readonly counters = new PortCounters();
  constructor(
    readonly portNumber: number,
    mode: PortMode,
  ) {
    this.mode = mode;
    this.apply(mode);
  }

  apply(mode: PortMode): void {
    this.mode = mode;
    switch (mode.kind) {
      case "access":
        this.kind = ACCESS;
        this.vlan = mode.vlan;
        this.pushTpid = TPID_8021Q;
        break;
      case "dot1q":
        this.kind = DOT1Q;
        this.vlan = mode.nativeVlan;
        this.pushTpid = TPID_8021Q;
        break;
      case "qinq":
        this.kind = QINQ;
        this.vlan = mode.outerVlan;
        this.pushTpid = mode.ethertype;
        break;
    }
  }

  /** Whether frames of `vlan` may leave through this port. dot1q trunks carry every VLAN. */
  isMember(vlan: number): boolean {
    return this.kind === DOT1Q || this.vlan === vlan;
  }
}

/**
 * What one `forward` call decided. The fabric reuses a single instance: read it (or copy it with
 * `egressList`) before the next call. Egress frames may be the input buffer itself or shared between
 * several egress ports: treat them as read-only (a filter that alters bytes must copy first).
 */
export class ForwardResult {
  /** Number of egress entries; ports[i] / frames[i] for i < count are valid. */
  count = 0;
  readonly ports: number[] = [];
  readonly frames: Uint8Array[] = [];
  /** Why nothing was sent (count === 0), or undefined. "unattached": the ingress port is not attached (not counted). */
  drop: SwitchDropReason | "unattached" | undefined = undefined;
  /** The VLAN the frame was classified into (undefined if dropped before classification). */
  vlan: number | undefined = undefined;

  reset(): void {
    this.count = 0;
    this.drop = undefined;
    this.vlan = undefined;
  }

  add(port: number, frame: Uint8Array): void {
    this.ports[this.count] = port;
    this.frames[this.count] = frame;
    this.count++;
  }
}

interface EgressFrame {
  readonly port: number;
  readonly frame: Uint8Array;
}

/** A fresh copy of a result's egress entries (for tests and non-hot paths). */
export function egressList(result: ForwardResult): EgressFrame[] {
  const list: EgressFrame[] = [];
  for (let i = 0; i < result.count; i++) list.push({ port: result.ports[i]!, frame: result.frames[i]! });
  return list;
}

type FabricOptions = MacTableOptions;

/**
 * The forwarding plane of one Ethernet switch: an IEEE 802.1Q (and 802.1ad tunnel) learning bridge
 * over the ports that currently have a NIO. Pure: time comes in as `nowMs`, frames as bytes.
 *
 * Ingress classification (docs/adr/0020..0026):
 * - access V: every frame goes into V, its bytes untouched: a tagged frame is carried opaquely, as
 *   Dynamips does, so router sub-interfaces can talk through access ports (ADR 0024).
 * - dot1q native N: a frame tagged with any of the four TPIDs goes into its VID (VID 0 → N, VID 4095
 *   dropped); untagged frames go into N.
 * - qinq outer O: every frame (tagged or not) goes into O, its bytes untouched.
 * Egress: access and qinq ports send the frame as it is in the VLAN without a tag for it (a qinq
 * port therefore delivers exactly what entered the tunnel, customer tag included); a dot1q port sends
 * its native VLAN untagged and every other VLAN tagged (an ingress tag is reused, keeping TPID and
 * PCP; otherwise 0x8100, or the qinq ethertype of the ingress tunnel port, with PCP 0).
 */
export class EthernetSwitchFabric {
  private readonly table: MacTable;
  private readonly ports = new Map<number, PortState>();
  /** Attached ports in ascending port number: the flooding order. */
  private order: PortState[] = [];
  private readonly result = new ForwardResult();

  // Per-frame scratch (fields, not closures, to keep forward() allocation-free).
  private frame: Uint8Array = new Uint8Array(0);
  private tagState = TAG_NONE;
  private vlan = 0;
  private pushTpid = TPID_8021Q;
  private untaggedForm: Uint8Array | undefined = undefined;
  private taggedForm: Uint8Array | undefined = undefined;

  constructor(options: FabricOptions = {}) {
    this.table = new MacTable(options);
  }

  /** Attaches a port (its NIO was added) or changes the mode of an attached one. */
  setPort(portNumber: number, mode: PortMode): void {
    const existing = this.ports.get(portNumber);
    if (existing === undefined) {
      this.ports.set(portNumber, new PortState(portNumber, mode));
      this.rebuildOrder();
      return;
    }
    const before = { kind: existing.kind, vlan: existing.vlan };
    existing.apply(mode);
    if (before.kind === existing.kind && before.vlan === existing.vlan) return;
    // Forget what no longer holds: VLANs the port left, the VLAN its untagged traffic used to go
    // into, and everything when it becomes or stops being a tunnel port (classification changed).
    const kindChanged = before.kind !== existing.kind && (before.kind === QINQ || existing.kind === QINQ);
    this.table.flushWhere(
      (vlan, port) =>
        port === portNumber &&
        (kindChanged || !existing.isMember(vlan) || (vlan === before.vlan && before.vlan !== existing.vlan)),
    );
  }

  /** Detaches a port (its NIO was removed) and forgets the addresses learned on it. */
  removePort(portNumber: number): void {
    if (!this.ports.delete(portNumber)) return;
    this.rebuildOrder();
    this.table.flushPort(portNumber);
  }

  /**
   * Applies a new ports_mapping live: attached ports found in it take their new mode (flushing the
   * entries that no longer hold); attached ports missing from it are detached.
   */
  updatePorts(mapping: readonly Port[]): void {
    const byNumber = new Map(mapping.map((p) => [p.portNumber, p.mode] as const));
    for (const portNumber of [...this.ports.keys()]) {
      const mode = byNumber.get(portNumber);
      if (mode === undefined) this.removePort(portNumber);
      else this.setPort(portNumber, mode);
    }
  }

  hasPort(portNumber: number): boolean {
    return this.ports.has(portNumber);
  }

  attachedPorts(): number[] {
    return this.order.map((p) => p.portNumber);
  }

  modeOf(portNumber: number): PortMode | undefined {
    return this.ports.get(portNumber)?.mode;
  }

  /** The live counters of an attached port (the data plane adds its filter drops and sends). */
  counters(portNumber: number): PortCounters | undefined {
    return this.ports.get(portNumber)?.counters;
  }

  macTable(nowMs: number): MacTableRow[] {
    return this.table.rows(nowMs);
  }

  /** What the switch learned, least recently seen first, as plain data (a node moving to another thread, ADR 0069). */
  learnedEntries(): { vlan: number; mac: number; port: number; lastSeenMs: number }[] {
    return this.table.entries();
  }

  /**
   * Learns again what `learnedEntries` gave elsewhere, in its order, so the least recently seen still
   * ages out first: an entry on a port not attached here, or out of range, is left out.
   */
  relearn(entries: readonly { vlan: number; mac: number; port: number; lastSeenMs: number }[]): void {
    for (const e of entries) {
      if (!Number.isInteger(e.vlan) || e.vlan < 0 || e.vlan > 4095 || !Number.isInteger(e.mac) || e.mac < 0 || e.mac > 0xffff_ffff_ffff) continue;
      if (!this.ports.has(e.port) || !Number.isFinite(e.lastSeenMs)) continue;
      this.table.learn(e.vlan, e.mac, e.port, e.lastSeenMs);
    }
  }

  flushMacTable(): void {
    this.table.flushAll();
  }

  flushPort(portNumber: number): number {
    return this.table.flushPort(portNumber);
  }

  get macTableSize(): number {
    return this.table.size;
  }

  /**
   * Switches one frame received on `ingressPort`. Returns the fabric's reused result: the egress
   * (port, bytes) pairs, or a drop reason. Counts framesIn / framesForwarded / drops on the ingress
   * port and framesOffered on each egress port.
   */
  forward(ingressPort: number, frame: Uint8Array, nowMs: number): ForwardResult {
    const r = this.result;
    r.reset();
    const ingress = this.ports.get(ingressPort);
    if (ingress === undefined) {
      r.drop = "unattached";
      return r;
    }
    const counters = ingress.counters;
    counters.framesIn++;
    counters.bytesIn += frame.length;
    const length = frame.length;
    if (length < ETH_HEADER_LEN) return this.dropped(counters, "runt");

    // 1. Ingress classification.
    let vlan = ingress.vlan;
    let tagState = TAG_NONE;
    // Only trunks read tags: access and qinq ports carry whatever they receive in their VLAN (ADR 0024).
    if (ingress.kind === DOT1Q) {
      const ethertype = readU16(frame, ETHERTYPE_OFFSET);
      if (isTagTpid(ethertype)) {
        if (length < TAGGED_HEADER_LEN) return this.dropped(counters, "runt");
        const vid = readU16(frame, ETHERTYPE_OFFSET + 2) & VID_MASK;
        if (vid === VID_PRIORITY) tagState = TAG_PRIORITY;
        else if (vid === VID_RESERVED) return this.dropped(counters, "vlan");
        else {
          vlan = vid;
          tagState = TAG_VLAN;
        }
      }
    }
    r.vlan = vlan;
    this.frame = frame;
    this.vlan = vlan;
    this.tagState = tagState;
    this.pushTpid = ingress.pushTpid;
    this.untaggedForm = undefined;
    this.taggedForm = undefined;

    // 2. Learning (group source addresses are never learned).
    if ((frame[ETH_ADDR_LEN]! & 1) === 0) this.table.learn(vlan, macAt(frame, ETH_ADDR_LEN), ingressPort, nowMs);

    // 3. Forwarding decision.
    if ((frame[0]! & 1) === 0) {
      const dst = macAt(frame, 0);
      const known = this.table.lookup(vlan, dst, nowMs);
      if (known !== undefined) {
        if (known === ingressPort) return this.dropped(counters, "no_route");
        const egress = this.ports.get(known);
        if (egress !== undefined && egress.isMember(vlan)) {
          this.emit(egress);
          counters.framesForwarded++;
          return r;
        }
        this.table.forget(vlan, dst); // stale: flood instead
      }
    }
    const order = this.order;
    for (let i = 0; i < order.length; i++) {
      const egress = order[i]!;
      if (egress !== ingress && egress.isMember(vlan)) this.emit(egress);
    }
    if (r.count === 0) return this.dropped(counters, "no_route");
    counters.framesForwarded++;
    return r;
  }

  /** Adds `egress` to the result with the frame rewritten for it (untagged or tagged form, built once). */
  private emit(egress: PortState): void {
    let out: Uint8Array;
    if (egress.kind === DOT1Q && egress.vlan !== this.vlan) out = this.tagged();
    else out = this.untagged();
    egress.counters.framesOffered++;
    this.result.add(egress.portNumber, out);
  }

  private untagged(): Uint8Array {
    if (this.untaggedForm === undefined) {
      this.untaggedForm = this.tagState === TAG_NONE ? this.frame : popTag(this.frame);
    }
    return this.untaggedForm;
  }

  private tagged(): Uint8Array {
    if (this.taggedForm === undefined) {
      switch (this.tagState) {
        case TAG_VLAN:
          this.taggedForm = this.frame;
          break;
        case TAG_PRIORITY:
          this.taggedForm = withOuterVid(this.frame, this.vlan);
          break;
        default:
          this.taggedForm = pushTag(this.frame, this.pushTpid, this.vlan & VID_MASK);
      }
    }
    return this.taggedForm;
  }

  private dropped(counters: PortCounters, reason: SwitchDropReason): ForwardResult {
    counters.countIngressDrop(reason);
    this.result.count = 0;
    this.result.drop = reason;
    return this.result;
  }

  private rebuildOrder(): void {
    this.order = [...this.ports.values()].sort((a, b) => a.portNumber - b.portNumber);
  }
}
