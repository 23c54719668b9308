// `bun run bench`: throughput, added latency, idle memory and start-up of hermes-mcp, printed beside their baselines.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { freePort, makeHome, removeHome } from "../tests/support/daemon.ts";
import { startWorld } from "../tests/support/world.ts";
import { runLoad } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROOT = join(import.meta.dir, "..");
const rows: [string, string, string, string][] = [];
const row = (metric: string, ours: string, baseline: string, target: string): void => {
  rows.push([metric, ours, baseline, target]);
  console.error(`  ${metric}: ${ours} (baseline ${baseline})`);
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

console.error("starting hermes-mcp against the fake gateway (default settings, LOG_LEVEL=INFO)…");
const world = await startWorld({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "INFO" }, { logFile: join(makeHome(), "daemon.log") });
const mcpUrl = `${world.daemon.url}/mcp`;
const callBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "hermes_check", arguments: { job_id: "bench-unknown-job" } },
});
const headers = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  Authorization: `Bearer ${world.token}`,
};

// 1. Throughput of an authenticated tools/call, against a bare Bun.serve sending the same bytes, and the SDK's Express server.
const sample = await fetch(mcpUrl, { method: "POST", headers, body: callBody });
const sampleBytes = await sample.text();
const sampleType = sample.headers.get("content-type") ?? "text/event-stream";
if (!sample.ok || !sampleBytes.includes("unknown")) throw new Error(`unexpected tools/call answer: ${sample.status} ${sampleBytes}`);
console.error(`throughput: ${SECONDS} s × ${CONNECTIONS} connections per server…`);
const ours = await runLoad({ url: mcpUrl, body: callBody, headers, seconds: SECONDS, connections: CONNECTIONS });

const bare = Bun.spawn(
  [
    process.execPath,
    "-e",
    `const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(${JSON.stringify(sampleBytes)}, { headers: { "content-type": ${JSON.stringify(sampleType)} } }) }); console.log("LISTENING " + s.port);`,
  ],
  { stdout: "pipe", stderr: "inherit" },
);
const barePort = await listeningPort(bare.stdout);
const bareResult = await runLoad({
  url: `http://127.0.0.1:${barePort}/mcp`,
  body: callBody,
  headers,
  seconds: SECONDS,
  connections: CONNECTIONS,
});
bare.kill();

const answer = JSON.parse(/data: (.*)/.exec(sampleBytes)?.[1] ?? "{}").result?.structuredContent ?? {};
const node = Bun.which("node");
let expressRps: number | null = null;
if (node) {
  const express = Bun.spawn([node, join(import.meta.dir, "baselines", "express-server.mjs")], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, BENCH_ANSWER: JSON.stringify(answer) },
  });
  const port = await listeningPort(express.stdout);
  expressRps = (await runLoad({ url: `http://127.0.0.1:${port}/mcp`, body: callBody, headers, seconds: SECONDS, connections: CONNECTIONS }))
    .rps;
  express.kill();
}
row(
  "tools/call throughput (req/s)",
  ours.rps.toFixed(0),
  `bare Bun.serve ${bareResult.rps.toFixed(0)} (×${(ours.rps / bareResult.rps).toFixed(2)})`,
  "≥ 0.25× bare",
);
if (expressRps !== null)
  row(
    "  vs the SDK's Node + Express server",
    ours.rps.toFixed(0),
    `${expressRps.toFixed(0)} (×${(ours.rps / expressRps).toFixed(1)})`,
    "several ×",
  );

// 2. Latency a sync hermes_ask adds over calling the gateway directly (same answer, streamed).
const N = Number(process.env.BENCH_CALLS ?? 300);
const client = new Client({ name: "bench", version: "1" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${world.token}` } } }),
);
const direct: number[] = [];
const bridged: number[] = [];
for (let i = 0; i < N + 20; i++) {
  let t = performance.now();
  const response = await fetch(`${world.gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { Authorization: `Bearer ${world.env.HERMES_API_KEY}`, "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ model: "hermes-agent", stream: true, messages: [{ role: "user", content: `bench ${i}` }] }),
  });
  await response.text();
  if (i >= 20) direct.push(performance.now() - t);
  t = performance.now();
  await client.callTool({ name: "hermes_ask", arguments: { prompt: `bench ${i}` } });
  if (i >= 20) bridged.push(performance.now() - t);
}
await client.close();
const added = median(bridged) - median(direct);
row(
  "sync hermes_ask, added latency (median ms)",
  added.toFixed(2),
  `gateway direct ${median(direct).toFixed(2)} ms, via bridge ${median(bridged).toFixed(2)} ms`,
  "< 1 ms",
);

// 3. Memory of the daemon after that work, then idle.
await Bun.sleep(2000);
row("daemon RSS after the load, idle (MiB)", rssMiB(world.daemon.proc.pid).toFixed(1), "—", "well under 60 MiB");
await world.close();

// 4. The compiled binary: size, start-up to first /healthz answer, idle memory.
console.error("building the single binary…");
const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: ROOT, stderr: "pipe", stdout: "pipe" });
if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
const binary = join(ROOT, "dist", "hermes-mcp");
const starts: number[] = [];
let idleRss = 0;
for (let i = 0; i < 5; i++) {
  const home = makeHome();
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn([binary, "serve"], {
    env: { HOME: home, BIND_PORT: String(port), PATH: process.env.PATH ?? "" },
    stdout: "ignore",
    stderr: "ignore",
  });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {
      await Bun.sleep(2);
    }
  }
  starts.push(performance.now() - started);
  if (i === 0) {
    await Bun.sleep(1500);
    idleRss = rssMiB(proc.pid);
  }
  proc.kill();
  await proc.exited;
  removeHome(home);
}
row("compiled binary: exec → first /healthz (median ms)", median(starts).toFixed(0), "—", "≈ 150 ms");
row("compiled binary: idle RSS (MiB)", idleRss.toFixed(1), "—", "well under 60 MiB");
row("compiled binary: size (MiB)", (Bun.file(binary).size / 1048576).toFixed(1), "—", "—");

const widths = [0, 1, 2, 3].map((i) =>
  Math.max(...[["metric", "hermes-mcp", "baseline", "target"], ...rows].map((r) => (r[i] as string).length)),
);
console.log(`\nload generator: ${ours.tool}; ${SECONDS} s × ${CONNECTIONS} connections; ${N} sequential calls for latency\n`);
for (const r of [["metric", "hermes-mcp", "baseline", "target"], ...rows])
  console.log(r.map((c, i) => c.padEnd(widths[i] as number)).join("  "));

async function listeningPort(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited before listening: ${text}`);
    text += new TextDecoder().decode(value);
    const match = /LISTENING (\d+)/.exec(text);
    if (match) {
      reader.releaseLock();
      return Number(match[1]);
    }
  }
}
