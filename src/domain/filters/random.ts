/**
 * Where the filters get their randomness. The application passes a port-backed source; tests and
 * anyone wanting reproducible runs use the seeded generator below.
 */
export interface RandomSource {
  /** A uniformly distributed number in [0, 1). */
  next(): number;
}

/** True with probability exactly percent/100 (0 never, 100 always). */
export function chance(random: RandomSource, percent: number): boolean {
  return random.next() * 100 < percent;
}

/** A uniform integer in [min, max] (both included). */
export function uniformInt(random: RandomSource, min: number, max: number): number {
  return min + Math.floor(random.next() * (max - min + 1));
}

/**
 * A small, fast, deterministic PRNG: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator,
 * 128-bit state, passes PractRand), seeded from one 32-bit integer through splitmix32. Pure
 * arithmetic; the same seed always gives the same sequence.
 */
export class SeededRandom implements RandomSource {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const splitmix = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = splitmix();
    this.b = splitmix();
    this.c = splitmix();
    this.d = splitmix();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.nextUint32() / 0x1_0000_0000;
  }

  /** Where the stream stands: four 32-bit words, plain data, so it can cross to another thread (ADR 0069). */
  position(): readonly number[] {
    return [this.a, this.b, this.c, this.d];
  }

  /** Goes on from `position` (as `position()` gave it): the same numbers follow as would have there. */
  resumeAt(position: readonly number[]): void {
    const [a, b, c, d] = position;
    if (position.length !== 4 || ![a, b, c, d].every((w) => Number.isInteger(w))) return;
    this.a = a! | 0;
    this.b = b! | 0;
    this.c = c! | 0;
    this.d = d! | 0;
  }
}

/** A source whose position can be read and taken up again elsewhere (a node moving to another thread). */
export function isResumable(random: RandomSource): random is RandomSource & Pick<SeededRandom, "position" | "resumeAt"> {
  return typeof (random as Partial<SeededRandom>).position === "function" && typeof (random as Partial<SeededRandom>).resumeAt === "function";
}

/** The standard normal distribution function Φ (Abramowitz and Stegun 7.1.26 on erf; error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

const A = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];

/** Φ⁻¹(u) for u in (0, 1): Acklam's rational approximation (relative error below 1.2e-9). */
export function normalQuantile(u: number): number {
  const p = Math.min(Math.max(u, 1e-300), 1 - 1e-16);
  const [a0, a1, a2, a3, a4, a5] = A as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = B as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = C as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = D as [number, number, number, number];
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  if (p > 1 - 0.02425) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/**
 * Uniform numbers each correlated with the one before (ADR 0050): a Gaussian AR(1) z_n = ρ·z_(n−1) +
 * √(1−ρ²)·ε mapped through Φ. Unlike netem's ρ·last + (1−ρ)·new, every number stays uniform, so a
 * distribution drawn from them keeps its mean and spread whatever the correlation.
 */
export class CorrelatedUniform implements RandomSource {
  private z = 0;
  private readonly innovation: number;

  constructor(
    private readonly base: RandomSource,
    readonly rho: number,
  ) {
    this.innovation = Math.sqrt(1 - rho * rho);
    this.z = normalQuantile(base.next());
  }

  /** The previous variate, which the next one is correlated with (carried when a node moves: ADR 0069). */
  get memory(): number {
    return this.z;
  }
  set memory(z: number) {
    if (Number.isFinite(z)) this.z = z;
  }

  next(): number {
    this.z = this.rho * this.z + this.innovation * normalQuantile(this.base.next());
    // Strictly below 1, as a RandomSource promises.
    return Math.min(normalCdf(this.z), 1 - 2 ** -53);
  }
}

/**
 * A yes/no draw with chance `percent` whose outcomes are correlated frame to frame (ρ in 0..1): a
 * two-state chain that keeps the long-run rate at `percent` and makes a yes after a yes more likely,
 * p + ρ(1 − p), and after a no less likely, p(1 − ρ). ρ = 0 is an independent draw, GNS3's.
 */
export class CorrelatedChance {
  private last = false;

  constructor(
    private readonly percent: number,
    private readonly rho: number,
  ) {}

  /** Whether this draw has the chance and correlation given (then it may go on in their place). */
  sameAs(percent: number, rho: number): boolean {
    return this.percent === percent && this.rho === rho;
  }

  /** The previous fate, which the next draw leans on (carried when a node moves: ADR 0069). */
  get memory(): boolean {
    return this.last;
  }
  set memory(last: boolean) {
    this.last = last === true;
  }

  next(random: RandomSource): boolean {
    const p = this.percent;
    const rho = this.rho;
    this.last = chance(random, rho === 0 ? p : this.last ? p + rho * (100 - p) : p * (1 - rho));
    return this.last;
  }
}
