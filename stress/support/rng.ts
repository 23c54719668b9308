// A small seeded PRNG (mulberry32) so every stress run is replayable from the seed it prints.

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** true with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** n random bytes. */
  bytes(n: number): Uint8Array;
}

export function rng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T,
    bytes: (n) => Uint8Array.from({ length: n }, () => int(0, 255)),
  };
}

/** One independent stream per (seed, index): case N of a run can be regenerated alone. */
export function rngFor(seed: number, index: number): Rng {
  return rng((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca77)) >>> 0);
}

/** A fresh seed when none was given. */
export function freshSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}
