// The bench's order statistics: one percentile (nearest rank, no interpolation) for every figure that needs one.

/** The value at percentile `p` (0–100) of `xs`: the sorted value at index ⌊n·p/100⌋, the last for p = 100. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) throw new Error("percentile of no values");
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
}

/** The middle value (of an even count, the upper of the two middle ones). */
export const median = (xs: readonly number[]): number => percentile(xs, 50);
