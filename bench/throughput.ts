// Throughput and tail latency under wrk of an authenticated tools/call and tools/list, beside the bare Bun.serve floor and the Node peer.
import type { Row } from "./report.ts";
import { runLoad, type LoadResult } from "./load.ts";
import { MCP_HEADERS, startExpressPeer, startFloor } from "./servers.ts";

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
  return { rps: runs.reduce((sum, r) => sum + r.rps, 0) / runs.length, p50: middle.p50, p99: middle.p99 };
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

export async function measureThroughput(daemonUrl: string, token: string, settings: Settings): Promise<Row[]> {
  const headers = { ...MCP_HEADERS, Authorization: `Bearer ${token}` };
  const rows: Row[] = [];
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
    const floor = await startFloor(token, answer, sample.headers.get("content-type") ?? "text/event-stream");
    try {
      for (let round = 0; round < settings.rounds; round++) {
        oursRuns.push(await load(daemonUrl));
        floorRuns.push(await load(floor.url));
      }
    } finally {
      await floor.stop();
    }
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
  return rows;
}
