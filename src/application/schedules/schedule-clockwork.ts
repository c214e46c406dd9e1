import { inject, injectable } from "tsyringe";
import type { Impairment } from "../../domain/switching/impairment-overlay.js";
import { type ArmedSchedule, type ScheduleState, scheduleStateAt } from "../../domain/filters/schedule.js";
import { NO_FILTERS } from "../../domain/filters/filter-settings.js";
import type { Clock, Logger } from "../ports/system.js";
import type { Timers } from "../ports/timers.js";
import type { DataPlane } from "../ports/data-plane.js";
import { TOKENS } from "../ports/tokens.js";

type ScheduleDirection = "in" | "out";

/** A port of a live node, by ids: where a schedule's first frame is kept. */
type PortOfNode = { readonly nodeId: string; readonly portNumber: number };

/** An impairment as answers show it: with where each scheduled direction is now (ADR 0102). */
export type ImpairmentNow = Impairment & { readonly stateIn?: ScheduleState; readonly stateOut?: ScheduleState };

/** One scheduled direction of a live port: what the metrics show (ADR 0102). */
export interface LiveScheduleStep {
  readonly projectId: string;
  readonly projectName: string;
  readonly nodeId: string;
  readonly nodeName: string;
  readonly portNumber: number;
  readonly portName: string;
  readonly direction: ScheduleDirection;
  readonly step: number;
  readonly nextAtMs: number | undefined;
}

/** How often a schedule waiting for its first frame looks at its port's counters: the bound on how late its t=0 is. */
const FIRST_FRAME_POLL_MS = 50;

/**
 * The time side of schedules (ADR 0102): which step each scheduled direction runs now, and an alarm
 * per node at the time its next step begins. The schedule itself is a pure value (domain); this holds
 * only what time makes: the alarms, the first-frame times the data plane showed, the steps live now.
 * When an alarm rings, `onDue`'s handler re-syncs the node through the one path every change takes
 * (ImpairmentOverlay.of, DataPlane.sync), so a change of step is reconciled by value like any other
 * change of filters (ADR 0055): queues, held frames and counters are kept.
 */
@injectable()
export class ScheduleClockwork {
  /** Keyed `node|port|direction|setAt`: a schedule set again waits for a first frame again. */
  private readonly firstFrames = new Map<string, number>();
  private readonly alarms = new Map<string, { readonly handle: unknown; readonly atMs: number }>();
  private readonly watches = new Map<string, { handle: unknown; baseline: Map<number, number> }>();
  private readonly live = new Map<string, readonly LiveScheduleStep[]>();
  private due: (nodeId: string) => void = () => undefined;

  constructor(
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Timers) private readonly timers: Timers,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  /** Who re-syncs a node when its next step begins (ScheduleResync). */
  onDue(handler: (nodeId: string) => void): void {
    this.due = handler;
  }

  private key(port: PortOfNode, direction: ScheduleDirection, armed: ArmedSchedule): string {
    return `${port.nodeId}|${port.portNumber}|${direction}|${armed.setAtMs}`;
  }

  /**
   * Where one scheduled direction of a port is now: a controller link end's schedule (ADR 0102) runs as
   * its NIO's way out, so its state is the one that NIO's port runs, first frame included.
   */
  stateAt(port: PortOfNode, direction: ScheduleDirection, armed: ArmedSchedule): ScheduleState {
    return scheduleStateAt(armed, this.clock.nowMs(), this.firstFrames.get(this.key(port, direction, armed)));
  }

  /** Each scheduled direction's state now (for answers); a direction without a schedule is left out. */
  stateOf(i: Impairment): { readonly in?: ScheduleState; readonly out?: ScheduleState } {
    const state = (direction: ScheduleDirection, armed: ArmedSchedule | undefined) => (armed === undefined ? undefined : this.stateAt(i, direction, armed));
    const stateIn = state("in", i.scheduleIn);
    const stateOut = state("out", i.scheduleOut);
    return { ...(stateIn === undefined ? {} : { in: stateIn }), ...(stateOut === undefined ? {} : { out: stateOut }) };
  }

  /** The impairment with each scheduled direction's state now. */
  now(i: Impairment): ImpairmentNow {
    const states = this.stateOf(i);
    return Object.freeze({ ...i, ...(states.in === undefined ? {} : { stateIn: states.in }), ...(states.out === undefined ? {} : { stateOut: states.out }) });
  }

  /**
   * The node's impairments as they act now (each scheduled direction's active step in place of its
   * schedule), for the ports that have a NIO; arms the node's alarm for the next step, and watches the
   * ports whose schedules wait for a first frame. Called at every sync of the node.
   */
  activeNow(nodeId: string, impairments: readonly Impairment[], livePorts: ReadonlySet<number>): readonly Impairment[] {
    const now = this.clock.nowMs();
    let next: number | undefined;
    const steps: LiveScheduleStep[] = [];
    const waiting = new Set<number>();
    const active = impairments.map((i) => {
      if (i.scheduleIn === undefined && i.scheduleOut === undefined) return i;
      const states = this.stateOf(i);
      const isLive = livePorts.has(i.portNumber);
      for (const [direction, state] of [["in", states.in], ["out", states.out]] as const) {
        if (state === undefined || !isLive) continue;
        steps.push({ projectId: i.projectId, projectName: i.projectName, nodeId, nodeName: i.nodeName, portNumber: i.portNumber, portName: i.portName, direction, step: state.step, nextAtMs: state.nextAtMs });
        if (state.nextAtMs !== undefined) next = next === undefined ? state.nextAtMs : Math.min(next, state.nextAtMs);
        if (state.startedAtMs === undefined) waiting.add(i.portNumber);
      }
      return Object.freeze({ ...i, in: states.in?.filters ?? i.in ?? NO_FILTERS, out: states.out?.filters ?? i.out ?? NO_FILTERS });
    });
    if (steps.length === 0) this.live.delete(nodeId);
    else this.live.set(nodeId, steps);
    this.arm(nodeId, next, now);
    this.watch(nodeId, waiting, impairments);
    return active;
  }

  private arm(nodeId: string, atMs: number | undefined, now: number): void {
    const current = this.alarms.get(nodeId);
    if (current !== undefined && current.atMs === atMs) return;
    if (current !== undefined) this.timers.clearTimeout(current.handle);
    this.alarms.delete(nodeId);
    if (atMs === undefined) return;
    const handle = this.timers.setTimeout(() => {
      this.alarms.delete(nodeId);
      this.due(nodeId);
    }, Math.max(0, atMs - now));
    this.alarms.set(nodeId, { handle, atMs });
  }

  /**
   * Schedules that start at the first frame learn it from the port's counters (frames in or out of the
   * port), looked at every FIRST_FRAME_POLL_MS while one waits: the data plane runs apart (a worker)
   * and tells counters when asked (ADR 0037), so t=0 is at most that late.
   */
  private watch(nodeId: string, ports: ReadonlySet<number>, impairments: readonly Impairment[]): void {
    const current = this.watches.get(nodeId);
    if (ports.size === 0) {
      if (current !== undefined) this.timers.clearTimeout(current.handle);
      this.watches.delete(nodeId);
      return;
    }
    if (current !== undefined) return;
    const watch = { handle: undefined as unknown, baseline: new Map<number, number>() };
    this.watches.set(nodeId, watch);
    const look = async (): Promise<void> => {
      if (this.watches.get(nodeId) !== watch) return;
      const counters = await this.dataPlane.counters(nodeId).catch(() => new Map());
      if (this.watches.get(nodeId) !== watch) return;
      const now = this.clock.nowMs();
      let started = false;
      for (const port of ports) {
        const c = counters.get(port);
        const total = c === undefined ? 0 : c.framesIn + c.framesOut;
        const before = watch.baseline.get(port);
        if (before === undefined) watch.baseline.set(port, total);
        else if (total > before) {
          for (const i of impairments.filter((x) => x.portNumber === port)) {
            for (const [direction, armed] of [["in", i.scheduleIn], ["out", i.scheduleOut]] as const) {
              if (armed?.schedule.start === "first_frame" && !this.firstFrames.has(this.key(i, direction, armed))) this.firstFrames.set(this.key(i, direction, armed), now);
            }
          }
          started = true;
        }
      }
      if (started) {
        this.watches.delete(nodeId);
        this.logger.info("schedule started at its port's first frame", { nodeId, ports: [...ports] });
        this.due(nodeId);
        return;
      }
      watch.handle = this.timers.setTimeout(() => void look(), FIRST_FRAME_POLL_MS);
    };
    void look();
  }

  /** Drops a node's alarm, watch and live steps (its node is gone). */
  forget(nodeId: string): void {
    this.arm(nodeId, undefined, 0);
    const watch = this.watches.get(nodeId);
    if (watch !== undefined) this.timers.clearTimeout(watch.handle);
    this.watches.delete(nodeId);
    this.live.delete(nodeId);
    for (const key of [...this.firstFrames.keys()]) if (key.startsWith(`${nodeId}|`)) this.firstFrames.delete(key);
  }

  /** Stops every alarm and watch (shutdown). */
  stop(): void {
    for (const nodeId of new Set([...this.alarms.keys(), ...this.watches.keys()])) this.forget(nodeId);
  }

  /** The step each scheduled direction of a live port runs now (metrics). */
  liveSteps(): readonly LiveScheduleStep[] {
    return [...this.live.values()].flat();
  }
}
