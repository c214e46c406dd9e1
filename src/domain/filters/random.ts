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
}
