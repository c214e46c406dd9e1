import { type BpfMatcher, type ChainCarry, type ChainTraces, FilterChain } from "../../domain/filters/filter-chain.js";
import { type FilterSettings, NO_FILTERS, filterSettingsEqual } from "../../domain/filters/filter-settings.js";
import type { RandomSource } from "../../domain/filters/random.js";
import { type Nio, carriesFrames, filtersOf } from "../../domain/switching/nio.js";

/** A port's filter chains by direction: one shared object when both directions run the same filters. */
export interface PortChains {
  readonly ingress: FilterChain;
  readonly egress: FilterChain;
}

/** What one direction of a port must run: its settings, the suspend flag and their compiled matchers. */
export interface ChainSpec {
  readonly settings: FilterSettings;
  readonly suspend: boolean;
  readonly bpf?: BpfMatcher | undefined;
  readonly classify?: BpfMatcher | undefined;
  /** The traces its trace kinds name (ADR 0103). */
  readonly traces?: ChainTraces | undefined;
}

/** The filters each direction of a NIO runs: a kind set for a direction replaces the both-ways one (ADR 0051). */
export function directionSettings(nio: Nio): { readonly ingress: FilterSettings; readonly egress: FilterSettings; readonly suspend: boolean } {
  if (!carriesFrames(nio)) return { ingress: NO_FILTERS, egress: NO_FILTERS, suspend: false };
  return { ingress: filtersOf(nio, "in"), egress: filtersOf(nio, "out"), suspend: nio.suspend };
}

/**
 * The chains a port runs once its NIO says `wanted`, reconciled by value with the ones it runs
 * (ADR 0055): a direction whose settings did not change keeps its chain, state and all; a changed one
 * gets a chain that takes over what the old one knew (FilterChain's carry-over). Both directions
 * share one chain, as uBridge's filters do, when they run the same settings.
 */
export function reconcileChains(current: PortChains | undefined, wanted: { readonly ingress: ChainSpec; readonly egress: ChainSpec }, random: () => RandomSource): PortChains {
  const build = (spec: ChainSpec, carry: ChainCarry | undefined): FilterChain =>
    new FilterChain({ settings: spec.settings, suspend: spec.suspend, random: random(), bpf: spec.bpf, classify: spec.classify, traces: spec.traces, ...(carry === undefined ? {} : { carry }) });
  const shared = wanted.ingress.suspend === wanted.egress.suspend && filterSettingsEqual(wanted.ingress.settings, wanted.egress.settings);
  if (current === undefined) {
    const ingress = build(wanted.ingress, undefined);
    return { ingress, egress: shared ? ingress : build(wanted.egress, undefined) };
  }
  const runs = (chain: FilterChain, spec: ChainSpec): boolean => chain.runs(spec.settings, spec.suspend);
  const wasShared = current.ingress === current.egress;
  const keepIngress = runs(current.ingress, wanted.ingress);
  const keepEgress = runs(current.egress, wanted.egress);
  if (shared) {
    if (wasShared && keepIngress) return current;
    // One chain for both: it takes the shared state of the ingress chain and each direction's own.
    const chain = build(wanted.ingress, { shared: current.ingress, ingress: current.ingress, egress: current.egress });
    return { ingress: chain, egress: chain };
  }
  if (!wasShared) {
    return {
      ingress: keepIngress ? current.ingress : build(wanted.ingress, { shared: current.ingress, ingress: current.ingress }),
      egress: keepEgress ? current.egress : build(wanted.egress, { shared: current.egress, egress: current.egress }),
    };
  }
  // The directions part: one may keep the chain they shared (and its shared state); the other starts
  // its shared state afresh but takes over its own direction's transmitter and burst-loss state.
  const old = current.ingress;
  const ingress = keepIngress ? old : build(wanted.ingress, { shared: keepEgress ? undefined : old, ingress: old });
  const egress = keepEgress ? old : build(wanted.egress, { egress: old });
  return { ingress, egress };
}
