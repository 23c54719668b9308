// Durable throughput: 10,000 async hermes_ask submissions acknowledged, kill -9 right after the last ack, every job still in the database.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { FakeGateway } from "../tests/support/fake-gateway.ts";
import type { Row } from "./report.ts";
import { benchSetting } from "./settings.ts";
import { MCP_HEADERS, startBinary } from "./servers.ts";

// At most the daemon's largest queue (HERMES_MCP_MAX_QUEUED_JOBS below): every submission must be acknowledged.
const SUBMISSIONS = benchSetting("BENCH_SUBMISSIONS", 10_000, 1, 10_000);
const CLIENTS = 50;

export async function measureDurable(
  binary: string,
  home: string,
  token: string,
  gateway: FakeGateway,
  gatewayEnv: Record<string, string>,
): Promise<Row[]> {
  console.error(`durable throughput: ${SUBMISSIONS} async submissions over ${CLIENTS} connections, then kill -9…`);
  // Real Hermes turns take seconds: the jobs wait in the queue (64 running) while the submissions arrive.
  gateway.setBehavior({ directives: "[[delay:60000]]" });
  const daemon = await startBinary(binary, home, {
    ...gatewayEnv,
    HERMES_MCP_MAX_CONCURRENT_JOBS: "64",
    HERMES_MCP_MAX_QUEUED_JOBS: "10000",
    HERMES_MCP_MAX_STORED_JOBS: String(SUBMISSIONS * 2),
  });
  const headers = { ...MCP_HEADERS, Authorization: `Bearer ${token}` };
  const acknowledged: string[] = [];
  let next = 0;
  const started = performance.now();
  let ackMs = Number.NaN;
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < SUBMISSIONS) {
          const i = next++;
          const response = await fetch(`${daemon.url}/mcp`, {
            method: "POST",
            headers,
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: i,
              method: "tools/call",
              params: { name: "hermes_ask", arguments: { prompt: `durable ${i}`, async_mode: true } },
            }),
          });
          const text = await response.text();
          const jobId = /"job_id":"([^"]+)"/.exec(text)?.[1];
          if (!jobId) throw new Error(`submission ${i} was not acknowledged: ${response.status} ${text}`);
          acknowledged.push(jobId);
        }
      }),
    );
    // The time to the last acknowledgement, not counting the kill that follows it.
    ackMs = performance.now() - started;
  } finally {
    await daemon.crash();
    gateway.setBehavior({ directives: "" });
  }
  const db = new Database(join(home, ".local", "share", "hermes-mcp", "hermes-mcp.db"), { readonly: true });
  const stored = new Set(
    db
      .query<{ id: string }, []>("SELECT id FROM jobs")
      .all()
      .map((r) => r.id),
  );
  db.close();
  const present = acknowledged.filter((id) => stored.has(id)).length;
  return [
    {
      metric: `${SUBMISSIONS} async submissions acknowledged (s)`,
      ours: (ackMs / 1000).toFixed(2),
      baseline: `${((SUBMISSIONS / ackMs) * 1000).toFixed(0)} acks/s over ${CLIENTS} connections`,
      ratio: "—",
      target: "≤ 3 s",
      met: ackMs <= 3000,
    },
    {
      metric: "acknowledged jobs present after kill -9",
      ours: `${present} / ${acknowledged.length}`,
      baseline: "—",
      ratio: "—",
      target: "all",
      met: present === SUBMISSIONS && acknowledged.length === SUBMISSIONS,
    },
  ];
}
