// Throughput and tail latency under wrk of an authenticated tools/call and tools/list, beside the bare Bun.serve floor and the Node peer.
import type { Row } from "./report.ts";
import { runLoad, type LoadResult } from "./load.ts";
import { MCP_HEADERS, PROC_READABLE, processStat, type Running, startExpressPeer, startFloor } from "./servers.ts";

interface Settings {
  seconds: number;
  threads: number;
  connections: number;
  /** Alternating runs of ours and the floor: the machine's noise (other processes) falls on both alike. */
  rounds: number;
}

/**
 * Requests per second averaged over runs; latency percentiles are those of the run with the median p99 — of an even
 * number of runs, the worse of the middle two (two runs report the worse p99, never the kinder one).
 */
export function combine(runs: readonly LoadResult[]): LoadResult {
  if (runs.length === 0) throw new Error("combine needs at least one run");
  const byP99 = [...runs].sort((a, b) => a.p99 - b.p99);
  const middle = byP99[Math.floor(byP99.length / 2)] as LoadResult;
  return {
    rps: runs.reduce((sum, r) => sum + r.rps, 0) / runs.length,
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
    p50: middle.p50,
    p99: middle.p99,
  };
}

/** The CPU one server spent on its load runs (the whole process: every thread, user and kernel) and the calls they completed. */
export interface CpuSpent {
  calls: number;
  userMs: number;
  systemMs: number;
}

/** Microseconds of CPU per call, in all and in the kernel, as the note prints them. */
export function cpuPerCall({ calls, userMs, systemMs }: CpuSpent): string {
  if (calls === 0) return "— (no call completed)";
  const us = (ms: number): string => ((ms * 1000) / calls).toFixed(1);
  return `${us(userMs + systemMs)} µs (${us(systemMs)} in the kernel)`;
}

/** Runs one load against `server`, adding the CPU the server spent on it to `spent` where /proc shows it. */
async function loadCounted(server: Pick<Running, "pid">, spent: CpuSpent, run: () => Promise<LoadResult>): Promise<LoadResult> {
  if (!PROC_READABLE) return run();
  const before = processStat(server.pid);
  const result = await run();
  const after = processStat(server.pid);
  spent.calls += result.requests;
  spent.userMs += after.userMs - before.userMs;
  spent.systemMs += after.systemMs - before.systemMs;
  return result;
}

const BODIES = {
  "tools/call hermes_check": JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "hermes_check", arguments: { job_id: "bench-unknown-job" } },
  }),
  "tools/list": JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
};

export async function measureThroughput(
  daemon: Pick<Running, "url" | "pid">,
  token: string,
  settings: Settings,
): Promise<{ rows: Row[]; notes: string[] }> {
  const daemonUrl = daemon.url;
  const headers = { ...MCP_HEADERS, Authorization: `Bearer ${token}` };
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const [name, body] of Object.entries(BODIES)) {
    const sample = await fetch(`${daemonUrl}/mcp`, { method: "POST", headers, body });
    const answer = await sample.text();
    if (!sample.ok || !answer.includes('"result"')) throw new Error(`unexpected ${name} answer: ${sample.status} ${answer}`);
    const load = (url: string): Promise<LoadResult> => runLoad({ url: `${url}/mcp`, body, headers, ...settings });
    console.error(
      `${name}: ${settings.rounds} × ${settings.seconds} s each against hermes-mcp and the floor, taking turns${name.startsWith("tools/call") ? "; then the Node peer" : ""}…`,
    );
    // Ours and the floor take turns, run for run, so a slow spell of the machine falls on both.
    const oursRuns: LoadResult[] = [];
    const floorRuns: LoadResult[] = [];
    const oursSpent: CpuSpent = { calls: 0, userMs: 0, systemMs: 0 };
    const floorSpent: CpuSpent = { calls: 0, userMs: 0, systemMs: 0 };
    const floor = await startFloor(token, answer, sample.headers.get("content-type") ?? "text/event-stream");
    try {
      for (let round = 0; round < settings.rounds; round++) {
        oursRuns.push(await loadCounted(daemon, oursSpent, () => load(daemonUrl)));
        floorRuns.push(await loadCounted(floor, floorSpent, () => load(floor.url)));
      }
    } finally {
      await floor.stop();
    }
    // Where the throughput goes: the same calls, the CPU each server spent on them (wrk shares the 2 cores with it).
    if (PROC_READABLE)
      notes.push(
        `${name} under that load, CPU per call (the whole process, every run; /proc/<pid>/stat): hermes-mcp ${cpuPerCall(oursSpent)}, the floor ${cpuPerCall(floorSpent)}`,
      );
    const ours = combine(oursRuns);
    const floorResult = combine(floorRuns);
    const ratio = ours.rps / floorResult.rps;
    rows.push({
      metric: `${name} throughput (req/s)`,
      ours: ours.rps.toFixed(0),
      baseline: `bare Bun.serve + bearer ${floorResult.rps.toFixed(0)}`,
      ratio: `×${ratio.toFixed(2)}`,
      target: "≥ ×0.5 of the floor",
      met: ratio >= 0.5,
    });
    rows.push({
      metric: `${name} latency p50 / p99 (ms)`,
      ours: `${ours.p50.toFixed(2)} / ${ours.p99.toFixed(2)}`,
      baseline: `floor ${floorResult.p50.toFixed(2)} / ${floorResult.p99.toFixed(2)}`,
      ratio: "—",
      target: `p99 < 5 ms at ${settings.connections} conn.`,
      met: ours.p99 < 5,
    });
    if (name.startsWith("tools/call")) {
      const structured = JSON.parse(/^data: (.*)$/m.exec(answer)?.[1] ?? "{}").result?.structuredContent ?? {};
      const peer = await startExpressPeer(structured);
      if (peer) {
        const peerResult = await load(peer.url).finally(() => peer.stop());
        rows.push({
          metric: `${name} vs the SDK's Node + Express (req/s)`,
          ours: ours.rps.toFixed(0),
          baseline: `Node peer ${peerResult.rps.toFixed(0)}`,
          ratio: `×${(ours.rps / peerResult.rps).toFixed(1)}`,
          target: "—",
          met: null,
        });
      }
    }
  }
  return { rows, notes };
}
