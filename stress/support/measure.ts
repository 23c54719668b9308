// What the stress scripts measure: the daemon's RSS and open descriptors from /proc, latency percentiles, and figures as text.
import { readdirSync, readFileSync } from "node:fs";

export interface ProcStats {
  rssBytes: number;
  fds: number;
}

/** RSS (VmRSS) and the number of open file descriptors of a live process (Linux /proc). */
export function procStats(pid: number): ProcStats {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return { rssBytes: kib * 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
}

export const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;

/** How far above a baseline RSS still counts as flat (soak and fuzz): max(10 %, 16 MiB). */
export const RSS_TOLERANCE = { ratio: 0.1, bytes: 16 * 1048576 };
export const rssLimit = (baseline: number): number => baseline + Math.max(baseline * RSS_TOLERANCE.ratio, RSS_TOLERANCE.bytes);

/** Samples each quarter of a series needs before its medians are compared. */
export const MIN_PER_QUARTER = 4;

/**
 * The trend of RSS sampled under a steady load: the medians of its first and last quarter. Judged only with
 * MIN_PER_QUARTER samples a quarter: over a few seconds RSS still climbs to what the load needs, and one sample is a
 * point on the collector's sawtooth (tens of MiB high), not a trend.
 */
export function rssTrend(series: readonly number[]): { early: number; late: number; judged: boolean; grows: boolean } {
  const quarter = Math.max(1, Math.floor(series.length / 4));
  const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const [early, late] = [median(series.slice(0, quarter)), median(series.slice(-quarter))];
  const judged = quarter >= MIN_PER_QUARTER;
  return { early, late, judged, grows: judged && late > rssLimit(early) };
}

/** Latency samples in ms, summarised as count and p50/p90/p99/max. */
export class Latencies {
  private readonly samples = new Map<string, number[]>();

  add(name: string, ms: number): void {
    const list = this.samples.get(name);
    if (list) list.push(ms);
    else this.samples.set(name, [ms]);
  }

  merge(other: Record<string, number[]>): void {
    for (const [name, list] of Object.entries(other)) for (const ms of list) this.add(name, ms);
  }

  toJSON(): Record<string, number[]> {
    return Object.fromEntries(this.samples);
  }

  get total(): number {
    let n = 0;
    for (const list of this.samples.values()) n += list.length;
    return n;
  }

  /** One line per name: count and percentiles. */
  table(): string {
    const rows = [...this.samples.entries()].sort(([a], [b]) => a.localeCompare(b));
    const width = Math.max(10, ...rows.map(([name]) => name.length));
    const head = `${"operation".padEnd(width)}  ${"count".padStart(7)}  ${"p50 ms".padStart(8)}  ${"p90 ms".padStart(8)}  ${"p99 ms".padStart(8)}  ${"max ms".padStart(8)}`;
    const lines = rows.map(([name, list]) => {
      const sorted = [...list].sort((a, b) => a - b);
      const cells = [0.5, 0.9, 0.99].map((q) => percentile(sorted, q).toFixed(1).padStart(8));
      return `${name.padEnd(width)}  ${String(list.length).padStart(7)}  ${cells.join("  ")}  ${(sorted.at(-1) ?? 0).toFixed(1).padStart(8)}`;
    });
    return [head, ...lines].join("\n");
  }
}

/** The q-quantile of sorted samples (nearest rank). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
