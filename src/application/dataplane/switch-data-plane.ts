import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { EthernetSwitchFabric } from "../../domain/switching/forwarding.js";
import { PortCounters as LivePortCounters, type DropReason } from "../../domain/switching/port-counters.js";
import { type EthernetSwitch, portOf } from "../../domain/switching/ethernet-switch.js";
import { portFromMapping } from "../../domain/switching/port.js";
import type { Nio } from "../../domain/switching/nio.js";
import { FilterChain } from "../../domain/filters/filter-chain.js";
import { bpfLines } from "../../domain/filters/filter-settings.js";
import type { DataPlane, MacTableEntry, PortCounters } from "../ports/data-plane.js";
import type { UdpEndpoint, UdpTransport } from "../ports/udp-transport.js";
import type { CaptureSink, CaptureWriter } from "../ports/capture-sink.js";
import type { Clock, Logger } from "../ports/system.js";
import type { RandomSourceFactory, Timers } from "../ports/timers.js";
import type { BpfCompiler } from "../ports/bpf-compiler.js";
import { TOKENS } from "../ports/tokens.js";
import type { NetemuError } from "../errors.js";
import { DelayLine } from "./delay-line.js";

/** The largest UDP payload over IPv4: a frame that grew past it (a pushed tag) cannot be sent. */
const MAX_UDP_PAYLOAD = 65_507;

export interface DataPlaneOptions {
  /** MAC address aging, ms (802.1Q default 300 s). */
  readonly macAgingMs: number;
  /** MAC table size per switch; the oldest entry goes when it is full. */
  readonly macTableCapacity: number;
}

export const DEFAULT_DATA_PLANE_OPTIONS: DataPlaneOptions = { macAgingMs: 300_000, macTableCapacity: 8192 };

/** One live switch port: its NIO's socket, its filter chain, its delay lines and capture. */
class LivePort {
  endpoint: UdpEndpoint | undefined;
  /** The fabric's counters of this port (set once the port is attached). */
  counters: LivePortCounters | undefined;
  chain: FilterChain;
  capture: { writer: CaptureWriter; path: string } | undefined;
  /** Frames received on the port, waiting out its delay before they reach the switch. */
  readonly ingressDelay: DelayLine;
  /** Frames the switch sent to the port, waiting out its delay before they leave. */
  readonly egressDelay: DelayLine;

  constructor(
    readonly portNumber: number,
    public nio: Nio,
    chain: FilterChain,
    makeLine: (deliver: (frame: Uint8Array) => void) => DelayLine,
    toSwitch: (frame: Uint8Array) => void,
    toWire: (frame: Uint8Array) => void,
  ) {
    this.chain = chain;
    this.ingressDelay = makeLine(toSwitch);
    this.egressDelay = makeLine(toWire);
  }
}

class LiveSwitch {
  readonly ports = new Map<number, LivePort>();
  constructor(readonly fabric: EthernetSwitchFabric) {}
}

/**
 * The switches' frame path. A frame received on port P: P's counters, P's filter chain (drop, or
 * corrupt, or hold for its delay), P's capture, then the 802.1Q fabric; each egress port Q: Q's
 * filter chain, Q's delay, Q's capture, Q's socket. So a link end's filters act on both directions,
 * and captures see frames after the filters.
 */
@injectable()
export class SwitchDataPlane implements DataPlane {
  private readonly switches = new Map<string, LiveSwitch>();
  private readonly bpfCache = new Map<string, ReturnType<BpfCompiler>>();

  constructor(
    @inject(TOKENS.UdpTransport) private readonly transport: UdpTransport,
    @inject(TOKENS.CaptureSink) private readonly captureSink: CaptureSink,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Timers) private readonly timers: Timers,
    @inject(TOKENS.RandomSourceFactory) private readonly randomness: RandomSourceFactory,
    @inject(TOKENS.BpfCompiler) private readonly compileBpf: BpfCompiler,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(TOKENS.DataPlaneOptions) private readonly options: DataPlaneOptions,
  ) {}

  private switchFor(nodeId: string): LiveSwitch {
    let live = this.switches.get(nodeId);
    if (live === undefined) {
      live = new LiveSwitch(new EthernetSwitchFabric({ agingTimeMs: this.options.macAgingMs, capacity: this.options.macTableCapacity }));
      this.switches.set(nodeId, live);
    }
    return live;
  }

  private buildChain(nio: Nio): E.Either<NetemuError, FilterChain> {
    const random = this.randomness.create();
    if (nio.type !== "nio_udp") return E.right(new FilterChain({ settings: {}, suspend: false, random }));
    const lines = bpfLines(nio.filters);
    if (lines.length === 0) return E.right(new FilterChain({ settings: nio.filters, suspend: nio.suspend, random }));
    const key = lines.join("\n");
    let compiled = this.bpfCache.get(key);
    if (compiled === undefined) {
      compiled = this.compileBpf(lines);
      if (this.bpfCache.size > 256) this.bpfCache.clear();
      this.bpfCache.set(key, compiled);
    }
    if (E.isLeft(compiled)) return E.left({ _tag: "InvalidFilterSettings", message: compiled.left });
    return E.right(new FilterChain({ settings: nio.filters, suspend: nio.suspend, random, bpf: compiled.right }));
  }

  async attach(sw: EthernetSwitch, portNumber: number, nio: Nio): Promise<E.Either<NetemuError, void>> {
    const port = portOf(sw, portNumber);
    if (port === undefined) return E.left({ _tag: "PortNotFound", portNumber, switchName: sw.name });
    const chain = this.buildChain(nio);
    if (E.isLeft(chain)) return chain;
    const live = this.switchFor(sw.nodeId);
    const makeLine = (deliver: (frame: Uint8Array) => void) => new DelayLine(this.clock, this.timers, deliver);
    const livePort = new LivePort(
      portNumber,
      nio,
      chain.right,
      makeLine,
      (frame) => this.intoSwitch(live, livePort, frame),
      (frame) => this.ontoWire(livePort, frame),
    );
    if (nio.type === "nio_udp") {
      const opened = await this.transport.open({
        lport: nio.lport,
        rhost: nio.rhost,
        rport: nio.rport,
        onFrame: (frame) => this.received(live, livePort, frame),
      });
      if (E.isLeft(opened)) {
        if (live.ports.size === 0) this.switches.delete(sw.nodeId);
        return E.left({ _tag: "UdpConnectionFailed", rhost: nio.rhost, rport: nio.rport, reason: opened.left });
      }
      livePort.endpoint = opened.right;
    }
    live.ports.set(portNumber, livePort);
    live.fabric.setPort(portNumber, port.mode);
    livePort.counters = live.fabric.counters(portNumber);
    return E.right(undefined);
  }

  /** A datagram from the port's peer. */
  private received(live: LiveSwitch, port: LivePort, frame: Uint8Array): void {
    const counters = port.counters;
    if (counters === undefined) return;
    const outcome = port.chain.process(frame);
    if (outcome.drop !== undefined) {
      counters.countInDropped(frame.length, outcome.drop);
      return;
    }
    if (outcome.delayMs > 0) {
      // The switch counts it as received when it takes it in, once its delay is over.
      port.ingressDelay.push(outcome.frame, outcome.delayMs);
      return;
    }
    this.intoSwitch(live, port, outcome.frame);
  }

  private intoSwitch(live: LiveSwitch, port: LivePort, frame: Uint8Array): void {
    const nowMs = this.clock.nowMs();
    port.capture?.writer.write(frame, nowMs);
    const result = live.fabric.forward(port.portNumber, frame, nowMs);
    for (let i = 0; i < result.count; i++) {
      const egress = live.ports.get(result.ports[i] as number);
      if (egress !== undefined) this.towardsPort(egress, result.frames[i] as Uint8Array);
    }
  }

  /** A frame the switch sends to a port: that port's filters, then its delay, capture and socket. */
  private towardsPort(port: LivePort, frame: Uint8Array): void {
    const outcome = port.chain.process(frame);
    if (outcome.drop !== undefined) {
      port.counters?.countEgressDrop(outcome.drop as DropReason);
      return;
    }
    if (outcome.delayMs > 0) port.egressDelay.push(outcome.frame, outcome.delayMs);
    else this.ontoWire(port, outcome.frame);
  }

  private ontoWire(port: LivePort, frame: Uint8Array): void {
    if (frame.length > MAX_UDP_PAYLOAD) {
      port.counters?.countEgressDrop("oversize");
      return;
    }
    port.capture?.writer.write(frame, this.clock.nowMs());
    if (port.endpoint === undefined) {
      port.counters?.countEgressDrop("nio_null");
      return;
    }
    port.endpoint.send(frame);
    port.counters?.countOut(frame.length);
  }

  async detach(nodeId: string, portNumber: number): Promise<void> {
    const live = this.switches.get(nodeId);
    const port = live?.ports.get(portNumber);
    if (live === undefined || port === undefined) return;
    live.ports.delete(portNumber);
    live.fabric.removePort(portNumber);
    port.ingressDelay.close();
    port.egressDelay.close();
    await this.closeCapture(port);
    await port.endpoint?.close();
    if (live.ports.size === 0) this.switches.delete(nodeId);
  }

  reconfigure(nodeId: string, portNumber: number, nio: Nio): E.Either<NetemuError, void> {
    const port = this.switches.get(nodeId)?.ports.get(portNumber);
    if (port === undefined) return E.right(undefined);
    const chain = this.buildChain(nio);
    if (E.isLeft(chain)) return chain;
    port.chain = chain.right;
    port.nio = nio;
    return E.right(undefined);
  }

  remap(sw: EthernetSwitch): void {
    this.switches.get(sw.nodeId)?.fabric.updatePorts(sw.portsMapping.map(portFromMapping));
  }

  async removeSwitch(nodeId: string): Promise<void> {
    const live = this.switches.get(nodeId);
    if (live === undefined) return;
    for (const portNumber of [...live.ports.keys()]) await this.detach(nodeId, portNumber);
    this.switches.delete(nodeId);
  }

  counters(nodeId: string): ReadonlyMap<number, PortCounters> {
    const live = this.switches.get(nodeId);
    const out = new Map<number, PortCounters>();
    if (live === undefined) return out;
    for (const portNumber of live.ports.keys()) {
      const c: LivePortCounters | undefined = live.fabric.counters(portNumber);
      if (c === undefined) continue;
      const s = c.snapshot();
      out.set(portNumber, { framesIn: s.framesIn, bytesIn: s.bytesIn, framesOut: s.framesOut, bytesOut: s.bytesOut, drops: s.drops });
    }
    return out;
  }

  macTable(nodeId: string): readonly MacTableEntry[] {
    return this.switches.get(nodeId)?.fabric.macTable(this.clock.nowMs()) ?? [];
  }

  async startCapture(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<NetemuError, void>> {
    const port = this.switches.get(nodeId)?.ports.get(portNumber);
    if (port === undefined) return E.left({ _tag: "PortNotAllocated", portNumber });
    if (port.capture !== undefined) return E.left({ _tag: "CaptureAlreadyActive", portNumber });
    const opened = await this.captureSink.open(filePath);
    if (E.isLeft(opened)) return E.left({ _tag: "BadRequest", message: `Cannot write the capture file ${filePath}: ${opened.left}` });
    port.capture = { writer: opened.right, path: filePath };
    return E.right(undefined);
  }

  async stopCapture(nodeId: string, portNumber: number): Promise<void> {
    const port = this.switches.get(nodeId)?.ports.get(portNumber);
    if (port !== undefined) await this.closeCapture(port);
  }

  private async closeCapture(port: LivePort): Promise<void> {
    const capture = port.capture;
    port.capture = undefined;
    await capture?.writer.close();
  }

  isCapturing(nodeId: string, portNumber: number): boolean {
    return this.captureFile(nodeId, portNumber) !== undefined;
  }

  captureFile(nodeId: string, portNumber: number): string | undefined {
    return this.switches.get(nodeId)?.ports.get(portNumber)?.capture?.path;
  }

  async close(): Promise<void> {
    for (const nodeId of [...this.switches.keys()]) await this.removeSwitch(nodeId);
    this.logger.debug("data plane closed");
  }
}
