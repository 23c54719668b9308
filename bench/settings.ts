// The bench's BENCH_* settings from the environment: whole numbers, checked before anything runs.

/** `name`'s value: the default when unset or empty, a whole number in [min, max] when set; anything else stops the bench with what to do. */
export function benchSetting(name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new Error(`${name} must be a whole number ${range} (got "${raw}"); unset it for the default, ${fallback}`);
  }
  return value;
}

/** BENCH_ONLY: which parts run (all when unset); an unknown name stops the bench and lists the real ones. */
export function benchParts(parts: readonly string[], raw = process.env.BENCH_ONLY): Set<string> {
  if (raw === undefined || raw.trim() === "") return new Set(parts);
  const wanted = raw
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  const unknown = wanted.filter((part) => !parts.includes(part));
  if (unknown.length > 0 || wanted.length === 0) {
    throw new Error(
      `BENCH_ONLY names no part called ${unknown.map((u) => `"${u}"`).join(", ") || "anything"}; choose from ${parts.join(",")}`,
    );
  }
  return new Set(wanted);
}
