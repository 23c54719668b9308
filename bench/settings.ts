// The bench's BENCH_* settings from the environment: whole numbers, checked before anything runs.

/** `name`'s value: the default when unset or empty, a whole number ≥ `min` when set; anything else stops the bench with what to do. */
export function benchSetting(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be a whole number of at least ${min} (got "${raw}"); unset it for the default, ${fallback}`);
  }
  return value;
}
