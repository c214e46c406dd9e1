import type { FilterKind } from "./catalogue.js";
import { Corrupter } from "./corrupt.js";
import { distributedDelayMs, frameDelayMs, isSubMillisecond } from "./delay.js";
import { type FilterSettings, bpfLines, filterSettingsEqual, matchLines, queueDisciplineOf } from "./filter-settings.js";
import type { QueueDisciplineSpec } from "../queueing/queue-discipline.js";
import { CorrelatedChance, CorrelatedUniform, type RandomSource, isResumable } from "./random.js";
import { DEFAULT_QUEUE_MS, Shaper } from "./bandwidth.js";
import { GilbertElliott } from "./burst-loss.js";
import { type CapacityLinkState, type CapacityTrace, CapacityTraceLink, type TraceReading, type ValueTrace, ValueTracePlayer, valueAt } from "../traces/trace.js";
import { DEFAULT_TRACE_QUEUE_FRAMES } from "./filter-settings.js";

/**
 * The traces a chain's trace kinds name, resolved (ADR 0103): the data plane looks them up by name
 * and gives their values here, so the chain stays pure.
 */
export interface ChainTraces {
  readonly capacity?: CapacityTrace | undefined;
  readonly delay?: ValueTrace | undefined;
  readonly loss?: ValueTrace | undefined;
}

/** Which way a frame crosses a link end: from the peer into the switch, or from the switch to the peer. */
type FrameDirection = "ingress" | "egress";

/**
 * Why a link end's filters dropped a frame: "suspend" for a suspended link, else the kind that
 * dropped it (only these kinds drop; the others delay, alter or copy). A list, so the metrics'
 * documentation can be checked against it.
 */
export const FILTER_DROP_REASONS = ["suspend", "bpf", "frequency_drop", "packet_loss", "burst_loss", "bandwidth", "codel"] as const satisfies readonly (FilterKind | "suspend" | "codel")[];
export type FilterDropReason = (typeof FILTER_DROP_REASONS)[number];

/** A compiled BPF program set: true when the frame matches (then it is dropped). */
export type BpfMatcher = (frame: Uint8Array) => boolean;

/**
 * The fixed evaluation order (ADR 0030, extended by ADR 0050): whatever the order of the settings'
 * keys, a frame meets suspend, then match (a frame that does not match passes untouched), bpf, frequency_drop, packet_loss, burst_loss, corrupt, duplicate,
 * bandwidth (each copy queues for the rate), reorder (a frame that skips the delay), delay, and the
 * first drop ends the chain.
 */
export const FILTER_CHAIN_ORDER = ["suspend", "match", "bpf", "frequency_drop", "packet_loss", "burst_loss", "corrupt", "duplicate", "bandwidth", "reorder", "delay"] as const;

/**
 * What the chain decided for one frame. The chain reuses one instance: read it before the next
 * call to `process`.
 */
class FilterOutcome {
  /** The filter that dropped the frame, or undefined if it passes. */
  drop: FilterDropReason | undefined = undefined;
  /** The frame to send: the input itself, or a corrupted copy (the input is never changed). */
  frame: Uint8Array = new Uint8Array(0);
  /** How long to hold the frame before sending it, in ms (0 without a delay filter). */
  delayMs = 0;
  /** True when the delay has a fraction of a ms to keep: the line holding the frame wakes to the µs (ADR 0101). */
  precise = false;
  /** Whether corrupt altered this frame. */
  corrupted = false;
  /** 2 when duplicate sends the frame twice: the copy leaves `copyDelayMs` from now. */
  copies: 1 | 2 = 1;
  copyDelayMs = 0;
  /**
   * How long the frame waits in the bandwidth queue before its transmission starts (its sojourn), in
   * ms; −1 when it goes through no queue. Part of `delayMs`; the copy's is `copyQueueWaitMs`.
   */
  queueWaitMs = -1;
  copyQueueWaitMs = -1;
  /**
   * True when reorder let the frame skip the delay: it leaves after its transmission time only,
   * overtaking the frames still held (the caller must not keep it behind them).
   */
  overtakes = false;
  /** True when match left the frame out: no filter acted on it, it keeps no place among the held frames. */
  bypassed = false;
  /**
   * True when the frame (and its copy, `copies`) goes into the bandwidth stage's queue (CoDel,
   * FQ-CoDel: ADR 0100): it leaves at the transmitter's rate, and `afterQueue` gives the rest of its way.
   */
  queued = false;
}

/** The way of a frame that left the bandwidth stage's queue: reorder and delay (ADR 0100). */
class AfterQueue {
  delayMs = 0;
  overtakes = false;
  /** The delay has a fraction of a ms, which the line keeps by waking to the µs (ADR 0101). */
  precise = false;
}

/**
 * The chains a new chain replaces, whose state carries over (ADR 0055). `shared` is a chain no
 * direction runs any more: its random stream, corruption pattern position and, for each stage whose
 * settings did not change, the stage's memory (frequency count, previous fates, jitter correlation)
 * go on in the new chain. `ingress` and `egress` are the chains that ran each direction: that
 * direction's transmitter backlog (bandwidth, even at a new rate) and burst-loss state go on.
 */
export interface ChainCarry {
  readonly shared?: FilterChain | undefined;
  readonly ingress?: FilterChain | undefined;
  readonly egress?: FilterChain | undefined;
}

/**
 * What a chain knows, as plain data (structuredClone-able), for a node that moves to another thread
 * (ADR 0069): restored into a chain built there from the same settings, it goes on as this one would
 * have. Times are on the Clock port's scale (epoch ms, the same in every thread of the process).
 */
export interface FilterChainState {
  /** The random stream's position; absent when the chain's source cannot tell it (a test's fake). */
  readonly random?: readonly number[];
  readonly frequencyCounter: number;
  readonly corruptPosition: number;
  /** The correlated jitter's previous variate, when the delay is correlated. */
  readonly jitterMemory?: number;
  /** The previous fate of each correlated yes/no draw. */
  readonly fates: { readonly loses: boolean; readonly corrupts: boolean; readonly duplicates: boolean; readonly reorders: boolean };
  /** When each direction's transmitter is free again (bandwidth). */
  readonly transmitters?: { readonly ingress: number; readonly egress: number };
  /** Whether each direction's burst-loss model is in its bad state. */
  readonly burstBad?: { readonly ingress: boolean; readonly egress: boolean };
  /** Where its replayed traces stand (ADR 0103): each one that has started; a direction's capacity link only once its first frame came. */
  readonly traces?: {
    readonly capacity?: { readonly ingress?: CapacityLinkState; readonly egress?: CapacityLinkState };
    /** When the delay and loss traces started, on the Clock port's scale. */
    readonly delayStartMs?: number;
    readonly lossStartMs?: number;
  };
}

interface FilterChainInput {
  readonly settings: FilterSettings;
  readonly suspend: boolean;
  /** The random source of a chain that carries no shared state over. */
  readonly random: RandomSource;
  /** Required when the settings hold bpf expressions: the compiled matcher of all their lines. */
  readonly bpf?: BpfMatcher | undefined;
  /** Required when the settings hold match expressions: the frames the other filters act on. */
  readonly classify?: BpfMatcher | undefined;
  /** Required when the settings name traces: their values (ADR 0103). */
  readonly traces?: ChainTraces | undefined;
  readonly carry?: ChainCarry;
}

/**
 * The filters of one link end (a NIO), or of one direction of it: one frequency counter, one
 * corruption pattern position, one random source. A change of settings builds a new chain that takes
 * over what the old one knew, stage by stage (ChainCarry). Pure: randomness comes from the injected
 * source; the delay is only computed here, the caller holds the frame (see DepartureScheduler to keep
 * the order).
 */
export class FilterChain {
  readonly settings: FilterSettings;
  readonly suspend: boolean;
  private readonly random: RandomSource;
  private readonly bpf: BpfMatcher | undefined;
  private readonly classify: BpfMatcher | undefined;
  /** 0: off; −1: drop all; N > 0: drop every Nth frame. */
  private readonly frequency: number;
  private frequencyCounter = 0;
  private readonly lossPercent: number;
  private readonly corruptPercent: number;
  private readonly corrupter: Corrupter;
  private readonly hasDelay: boolean;
  private readonly latencyMs: number;
  private readonly jitterMs: number;
  /** The delay's latency or jitter has a fraction of a ms (ADR 0101). */
  private readonly subMillisecond: boolean;
  private readonly duplicatePercent: number;
  private readonly reorderPercent: number;
  private readonly distribution: "uniform" | "normal" | "pareto";
  private readonly delayRho: number;
  /** The jitter's source: the chain's own, or one correlated frame to frame. */
  private readonly jitterRandom: RandomSource;
  /** The random yes/no of packet_loss, corrupt, duplicate and reorder, each correlated if set. */
  private readonly loses: CorrelatedChance;
  private readonly corrupts: CorrelatedChance;
  private readonly duplicates: CorrelatedChance;
  private readonly reorders: CorrelatedChance;
  /** Per direction: a link's two directions are two transmitters, and lose in bursts of their own. */
  private readonly shapers: Readonly<Record<FrameDirection, Shaper>> | undefined;
  private readonly burstLoss: Readonly<Record<FrameDirection, GilbertElliott>> | undefined;
  /** Per direction, a link replaying capacity_trace's trace (ADR 0103): it stands where bandwidth's shaper does. */
  private readonly traceLinks: Readonly<Record<FrameDirection, CapacityTraceLink>> | undefined;
  /** delay_trace's and loss_trace's traces, played from the first frame (shared by the directions, as the delay is). */
  private readonly delayTrace: ValueTracePlayer | undefined;
  private readonly lossTrace: ValueTracePlayer | undefined;
  private readonly outcome = new FilterOutcome();
  private readonly afterQueueOutcome = new AfterQueue();
  /** The bandwidth stage's queue discipline when it queues frames (CoDel, FQ-CoDel), and its rate; undefined for tail drop. */
  readonly queue: { readonly discipline: Exclude<QueueDisciplineSpec, { kind: "tail_drop" }>; readonly rateKbps: number } | undefined;
  /** True when process() needs the time (a rate limit): the caller may skip reading its clock otherwise. */
  readonly needsTime: boolean;
  /** True when no filter can act: process() is a pass-through. */
  readonly isPassThrough: boolean;

  constructor(input: FilterChainInput) {
    const { settings, suspend } = input;
    const shared = input.carry?.shared;
    this.settings = settings;
    this.suspend = suspend;
    // The random stream goes on with the shared state it drew for.
    this.random = shared?.random ?? input.random;
    const random = this.random;
    const hasBpf = bpfLines(settings).length > 0;
    if (hasBpf && input.bpf === undefined) {
      throw new Error("FilterChain: the settings hold bpf expressions but no compiled matcher was given");
    }
    this.bpf = hasBpf ? input.bpf : undefined;
    const hasMatch = matchLines(settings).length > 0;
    if (hasMatch && input.classify === undefined) {
      throw new Error("FilterChain: the settings hold match expressions but no compiled matcher was given");
    }
    this.classify = hasMatch ? input.classify : undefined;
    this.frequency = settings.frequency_drop?.[0] ?? 0;
    this.frequencyCounter = shared !== undefined && shared.frequency === this.frequency ? shared.frequencyCounter : 0;
    this.lossPercent = settings.packet_loss?.[0] ?? 0;
    this.corruptPercent = settings.corrupt?.[0] ?? 0;
    this.corrupter = shared?.corrupter ?? new Corrupter();
    this.hasDelay = settings.delay !== undefined;
    this.latencyMs = settings.delay?.[0] ?? 0;
    this.jitterMs = settings.delay?.[1] ?? 0;
    this.subMillisecond = isSubMillisecond(this.latencyMs, this.jitterMs);
    this.duplicatePercent = settings.duplicate?.[0] ?? 0;
    // Reordering needs a delay to overtake: without one it has nothing to do.
    this.reorderPercent = this.hasDelay && this.latencyMs + this.jitterMs > 0 ? (settings.reorder?.[0] ?? 0) : 0;
    this.distribution = settings.delay_distribution?.[0] ?? "uniform";
    this.delayRho = (settings.delay_correlation?.[0] ?? 0) / 100;
    const keptJitter = shared !== undefined && shared.delayRho === this.delayRho ? shared.jitterRandom : undefined;
    this.jitterRandom = this.delayRho > 0 ? (keptJitter ?? new CorrelatedUniform(random, this.delayRho)) : random;
    const rho = (c: readonly [number] | undefined): number => (c?.[0] ?? 0) / 100;
    // A yes/no draw keeps its memory of the previous fate while its chance and correlation stay.
    const draw = (percent: number, correlation: number, previous: CorrelatedChance | undefined): CorrelatedChance =>
      previous !== undefined && previous.sameAs(percent, correlation) ? previous : new CorrelatedChance(percent, correlation);
    this.loses = draw(this.lossPercent, rho(settings.loss_correlation), shared?.loses);
    this.corrupts = draw(this.corruptPercent, rho(settings.corrupt_correlation), shared?.corrupts);
    this.duplicates = draw(this.duplicatePercent, rho(settings.duplicate_correlation), shared?.duplicates);
    this.reorders = draw(this.reorderPercent, rho(settings.reorder_correlation), shared?.reorders);
    const bandwidth = settings.bandwidth;
    const queueMs = bandwidth?.[1] ?? DEFAULT_QUEUE_MS;
    const carry = input.carry ?? {};
    const discipline = queueDisciplineOf(settings);
    this.queue = bandwidth === undefined || discipline.kind === "tail_drop" ? undefined : { discipline, rateKbps: bandwidth[0] };
    this.shapers =
      bandwidth === undefined || this.queue !== undefined
        ? undefined
        : {
            ingress: new Shaper(bandwidth[0], queueMs).resumeFrom(carry.ingress?.shapers?.ingress),
            egress: new Shaper(bandwidth[0], queueMs).resumeFrom(carry.egress?.shapers?.egress),
          };
    const g = settings.burst_loss;
    this.burstLoss =
      g === undefined
        ? undefined
        : {
            ingress: new GilbertElliott(g[0], g[1], g[2] ?? 100, g[3] ?? 0).resumeFrom(carry.ingress?.burstLoss?.ingress),
            egress: new GilbertElliott(g[0], g[1], g[2] ?? 100, g[3] ?? 0).resumeFrom(carry.egress?.burstLoss?.egress),
          };
    const traces = input.traces ?? {};
    const need = <A>(kind: string, value: A | undefined): A => {
      if (value === undefined) throw new Error(`FilterChain: the settings name a ${kind} but its trace was not given`);
      return value;
    };
    const capacity = settings.capacity_trace;
    this.traceLinks =
      capacity === undefined
        ? undefined
        : {
            ingress: new CapacityTraceLink(need("capacity_trace", traces.capacity), capacity[1] ?? DEFAULT_TRACE_QUEUE_FRAMES).resumeFrom(carry.ingress?.traceLinks?.ingress),
            egress: new CapacityTraceLink(need("capacity_trace", traces.capacity), capacity[1] ?? DEFAULT_TRACE_QUEUE_FRAMES).resumeFrom(carry.egress?.traceLinks?.egress),
          };
    this.delayTrace = settings.delay_trace === undefined ? undefined : new ValueTracePlayer(need("delay_trace", traces.delay)).resumeFrom(shared?.delayTrace);
    this.lossTrace = settings.loss_trace === undefined ? undefined : new ValueTracePlayer(need("loss_trace", traces.loss)).resumeFrom(shared?.lossTrace);
    this.needsTime = this.shapers !== undefined || this.queue !== undefined || this.traceLinks !== undefined || this.delayTrace !== undefined || this.lossTrace !== undefined;
    this.isPassThrough =
      !suspend &&
      this.bpf === undefined &&
      this.frequency === 0 &&
      this.lossPercent <= 0 &&
      this.corruptPercent <= 0 &&
      this.duplicatePercent <= 0 &&
      this.shapers === undefined &&
      this.queue === undefined &&
      this.burstLoss === undefined &&
      this.traceLinks === undefined &&
      this.delayTrace === undefined &&
      this.lossTrace === undefined &&
      (!this.hasDelay || (this.latencyMs <= 0 && this.jitterMs <= 0));
  }

  /** When the direction's tail-drop transmitter is free again; undefined for a chain without one (no rate, or a queue discipline). */
  transmitterFreeAtMs(direction: FrameDirection): number | undefined {
    return this.shapers?.[direction].freeAtMs;
  }

  /**
   * The direction's tail-drop transmitter starts after `atMs` (the backlog of the queue it replaces,
   * ADR 0100): the next frame it admits waits for it. Nothing for a chain without one.
   */
  transmitterBusyUntil(direction: FrameDirection, atMs: number): void {
    const shaper = this.shapers?.[direction];
    if (shaper !== undefined && atMs > shaper.freeAtMs) shaper.freeAtMs = atMs;
  }

  /**
   * Where this chain's traces stand in `direction` at `nowMs` (ADR 0103): each one that has started
   * (its first frame came), by name, with its position in its loop; undefined when none has.
   */
  traceReading(direction: FrameDirection, nowMs: number): TraceReading | undefined {
    const link = this.traceLinks?.[direction];
    const capacityAt = link?.positionMs(nowMs);
    const delayAt = this.delayTrace?.positionMs(nowMs);
    const lossAt = this.lossTrace?.positionMs(nowMs);
    if (capacityAt === undefined && delayAt === undefined && lossAt === undefined) return undefined;
    const s = this.settings;
    return {
      ...(capacityAt === undefined || link === undefined ? {} : { capacity: { name: s.capacity_trace?.[0] as string, positionMs: capacityAt, waitingFrames: link.waiting(nowMs) } }),
      ...(delayAt === undefined ? {} : { delay: { name: s.delay_trace?.[0] as string, positionMs: delayAt, value: valueAt((this.delayTrace as ValueTracePlayer).trace, delayAt) } }),
      ...(lossAt === undefined ? {} : { loss: { name: s.loss_trace?.[0] as string, positionMs: lossAt, value: valueAt((this.lossTrace as ValueTracePlayer).trace, lossAt) } }),
    };
  }

  /** What this chain knows, as plain data (ADR 0069). */
  state(): FilterChainState {
    return {
      ...(isResumable(this.random) ? { random: this.random.position() } : {}),
      frequencyCounter: this.frequencyCounter,
      corruptPosition: this.corrupter.position,
      ...(this.jitterRandom instanceof CorrelatedUniform ? { jitterMemory: this.jitterRandom.memory } : {}),
      fates: { loses: this.loses.memory, corrupts: this.corrupts.memory, duplicates: this.duplicates.memory, reorders: this.reorders.memory },
      ...(this.shapers === undefined ? {} : { transmitters: { ingress: this.shapers.ingress.freeAtMs, egress: this.shapers.egress.freeAtMs } }),
      ...(this.burstLoss === undefined ? {} : { burstBad: { ingress: this.burstLoss.ingress.inBadState, egress: this.burstLoss.egress.inBadState } }),
      ...this.traceState(),
    };
  }

  private traceState(): Pick<FilterChainState, "traces"> {
    const ingress = this.traceLinks?.ingress.state();
    const egress = this.traceLinks?.egress.state();
    const delayStartMs = this.delayTrace?.startedAtMs;
    const lossStartMs = this.lossTrace?.startedAtMs;
    const capacity = ingress === undefined && egress === undefined ? undefined : { ...(ingress === undefined ? {} : { ingress }), ...(egress === undefined ? {} : { egress }) };
    if (capacity === undefined && delayStartMs === undefined && lossStartMs === undefined) return {};
    return { traces: { ...(capacity === undefined ? {} : { capacity }), ...(delayStartMs === undefined ? {} : { delayStartMs }), ...(lossStartMs === undefined ? {} : { lossStartMs }) } };
  }

  /**
   * Takes up what a chain of the same settings knew elsewhere (its `state()`); a part this chain has
   * no stage for, or that is not of the right kind, is left as this chain started it.
   */
  resume(state: FilterChainState): void {
    if (state.random !== undefined && isResumable(this.random)) this.random.resumeAt(state.random);
    if (Number.isInteger(state.frequencyCounter) && state.frequencyCounter >= 0 && state.frequencyCounter < Math.max(1, this.frequency)) this.frequencyCounter = state.frequencyCounter;
    this.corrupter.position = state.corruptPosition;
    if (state.jitterMemory !== undefined && this.jitterRandom instanceof CorrelatedUniform) this.jitterRandom.memory = state.jitterMemory;
    const fates = state.fates;
    if (typeof fates === "object" && fates !== null) {
      this.loses.memory = fates.loses;
      this.corrupts.memory = fates.corrupts;
      this.duplicates.memory = fates.duplicates;
      this.reorders.memory = fates.reorders;
    }
    if (this.shapers !== undefined && state.transmitters !== undefined) {
      this.shapers.ingress.freeAtMs = Number(state.transmitters.ingress);
      this.shapers.egress.freeAtMs = Number(state.transmitters.egress);
    }
    if (this.burstLoss !== undefined && state.burstBad !== undefined) {
      this.burstLoss.ingress.inBadState = state.burstBad.ingress;
      this.burstLoss.egress.inBadState = state.burstBad.egress;
    }
    const traces = state.traces;
    if (typeof traces === "object" && traces !== null) {
      // Each trace goes on from where it stood (ADR 0103); one this chain does not replay is left out.
      const capacity = traces.capacity;
      if (this.traceLinks !== undefined && typeof capacity === "object" && capacity !== null) {
        if (capacity.ingress !== undefined) this.traceLinks.ingress.takeUp(capacity.ingress);
        if (capacity.egress !== undefined) this.traceLinks.egress.takeUp(capacity.egress);
      }
      if (traces.delayStartMs !== undefined) this.delayTrace?.takeUp(traces.delayStartMs);
      if (traces.lossStartMs !== undefined) this.lossTrace?.takeUp(traces.lossStartMs);
    }
  }

  /** Whether this chain runs exactly these settings (by value) and suspend flag. */
  runs(settings: FilterSettings, suspend: boolean): boolean {
    return this.suspend === suspend && filterSettingsEqual(this.settings, settings);
  }

  /**
   * Runs one frame through the chain, in `direction` at `nowMs` (the rate limit and burst loss keep
   * state per direction; the other filters share theirs); returns the chain's reused outcome.
   */
  process(frame: Uint8Array, direction: FrameDirection = "ingress", nowMs = 0): FilterOutcome {
    const o = this.outcome;
    o.drop = undefined;
    o.frame = frame;
    o.delayMs = 0;
    o.precise = false;
    o.corrupted = false;
    o.copies = 1;
    o.copyDelayMs = 0;
    o.queueWaitMs = -1;
    o.copyQueueWaitMs = -1;
    o.overtakes = false;
    o.bypassed = false;
    o.queued = false;
    if (this.isPassThrough) return o;
    if (this.suspend) {
      o.drop = "suspend";
      return o;
    }
    // Classified: the filters act on the matching frames only; the others pass untouched.
    if (this.classify !== undefined && !this.classify(frame)) {
      o.bypassed = true;
      return o;
    }
    if (this.bpf !== undefined && this.bpf(frame)) {
      o.drop = "bpf";
      return o;
    }
    if (this.frequency !== 0 && this.frequencyDrops()) {
      o.drop = "frequency_drop";
      return o;
    }
    if (this.lossPercent > 0 && this.loses.next(this.random)) {
      o.drop = "packet_loss";
      return o;
    }
    if (this.burstLoss !== undefined && this.burstLoss[direction].loses(this.random)) {
      o.drop = "burst_loss";
      return o;
    }
    // loss_trace is packet_loss at the trace's chance of the moment (ADR 0103).
    if (this.lossTrace !== undefined && this.random.next() * 100 < this.lossTrace.valueAt(nowMs)) {
      o.drop = "packet_loss";
      return o;
    }
    if (this.corruptPercent > 0 && this.corrupts.next(this.random)) {
      const corrupted = this.corrupter.corrupt(frame);
      o.corrupted = corrupted !== frame;
      o.frame = corrupted;
    }
    const twice = this.duplicatePercent > 0 && this.duplicates.next(this.random);
    if (this.queue !== undefined) {
      o.queued = true;
      if (twice) o.copies = 2;
      return o;
    }
    let queuedMs = 0;
    let copyQueuedMs = 0;
    const shaper: Shaper | CapacityTraceLink | undefined = this.shapers?.[direction] ?? this.traceLinks?.[direction];
    if (shaper !== undefined) {
      const admitted = shaper.admit(o.frame.length, nowMs);
      if (admitted === undefined) {
        o.drop = "bandwidth";
        return o;
      }
      queuedMs = admitted;
      o.queueWaitMs = shaper.lastWaitMs;
      // The copy queues behind the original; a full queue drops the copy only.
      copyQueuedMs = twice ? (shaper.admit(o.frame.length, nowMs) ?? -1) : -1;
      if (copyQueuedMs >= 0) o.copyQueueWaitMs = shaper.lastWaitMs;
    }
    if (twice && copyQueuedMs >= 0) o.copies = 2;
    if (this.reorderPercent > 0 && this.reorders.next(this.random)) o.overtakes = true;
    const traced = this.delayTrace === undefined || o.overtakes ? 0 : this.delayTrace.valueAt(nowMs);
    const latencyMs = o.overtakes ? 0 : this.drawLatencyMs() + traced;
    o.delayMs = queuedMs + latencyMs;
    o.precise = (this.subMillisecond && latencyMs > 0) || !Number.isInteger(traced);
    if (o.copies === 2) o.copyDelayMs = copyQueuedMs + latencyMs;
    return o;
  }

  /**
   * The stages after bandwidth (reorder, delay) for a frame that left the bandwidth stage's queue
   * (ADR 0100); returns a reused object: read it before the next call.
   */
  afterQueue(nowMs = 0): AfterQueue {
    const a = this.afterQueueOutcome;
    a.overtakes = this.reorderPercent > 0 && this.reorders.next(this.random);
    const traced = this.delayTrace === undefined || a.overtakes ? 0 : this.delayTrace.valueAt(nowMs);
    a.delayMs = a.overtakes ? 0 : this.drawLatencyMs() + traced;
    a.precise = (this.subMillisecond && a.delayMs > 0) || !Number.isInteger(traced);
    return a;
  }

  /** The delay stage's hold for one frame: its latency with jitter drawn from its distribution. */
  private drawLatencyMs(): number {
    if (!this.hasDelay) return 0;
    return this.distribution === "uniform" ? frameDelayMs(this.latencyMs, this.jitterMs, this.jitterRandom) : distributedDelayMs(this.latencyMs, this.jitterMs, this.distribution, this.jitterRandom);
  }

  private frequencyDrops(): boolean {
    const n = this.frequency;
    if (n === -1) return true;
    if (n < 0) return false; // out of the validated range; uBridge also passes everything
    this.frequencyCounter++;
    if (this.frequencyCounter >= n) {
      this.frequencyCounter = 0;
      return true;
    }
    return false;
  }
}

