// The bench's BENCH_* settings from the environment: whole numbers, checked before anything runs.
import { intIn } from "../src/config/schema.ts";

/** `name`'s value, by the daemon's own rule for whole-number variables (default when unset or blank, else in [min, max]); anything else stops the bench with what to do. */
export function benchSetting(name: string, fallback: number, min: number, max: number): number {
  const parsed = intIn(name, min, max, fallback).safeParse(process.env[name]);
  if (!parsed.success)
    throw new Error(`${parsed.error.issues[0]?.message ?? `${name} is not valid`}; unset it for the default, ${fallback}`);
  return parsed.data;
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
