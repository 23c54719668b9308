// Load generator for the benchmarks: wrk (apt-get install wrk) — requests per second and latency percentiles of one POST.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LoadSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  seconds: number;
  threads: number;
  connections: number;
}

export interface LoadResult {
  rps: number;
  /** Calls wrk completed in the run (its "N requests in" line). */
  requests: number;
  /** Latency percentiles in milliseconds, as wrk reports them. */
  p50: number;
  p99: number;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** One wrk run against `spec.url`; throws when wrk is missing or any answer was not 2xx (a fast error is no throughput). */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  if (!Bun.which("wrk")) throw new Error("wrk is not installed: apt-get install wrk (the benchmarks measure with it)");
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-bench-"));
  const script = join(dir, "post.lua");
  const headerLines = Object.entries(spec.headers)
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join("\n");
  writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(spec.body)}\n${headerLines}\n`);
  const proc = Bun.spawn(["wrk", `-t${spec.threads}`, `-c${spec.connections}`, `-d${spec.seconds}s`, "--latency", "-s", script, spec.url], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
  return parseWrkOutput(out, spec.url);
}

/**
 * What one wrk run reported: requests per second, the calls it completed, p50 and p99 in ms. Throws when any answer was
 * not 2xx (a fast error is no throughput) or the output lacks a figure (another wrk, or a run that failed to start).
 */
export function parseWrkOutput(out: string, url: string): LoadResult {
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} failed responses from ${url}:\n${out}`);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const requests = /^\s*(\d+) requests in /m.exec(out);
  if (!rps || !requests) throw new Error(`wrk output not understood:\n${out}`);
  const percentile = (p: string): number => {
    const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)`, "m").exec(out);
    return match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : Number.NaN;
  };
  return { rps: Number(rps[1]), requests: Number(requests[1]), p50: percentile("50"), p99: percentile("99") };
}
