// `bun run bench`: throughput, added latency, memory, start-up and durable throughput of the compiled hermes-mcp, beside their floors, in one run.
import { join } from "node:path";
import { makeHome, removeHome, createToken } from "../tests/support/daemon.ts";
import { FAKE_GATEWAY_KEY, startFakeGateway } from "../tests/support/fake-gateway.ts";
import { measureAfterQuiet } from "./after-quiet.ts";
import { measureDurable } from "./durable.ts";
import { LATENCY_WARMUP_CALLS, measureLatency } from "./latency.ts";
import { measureMemory } from "./memory.ts";
import { describeMachine, printTable, writeResults, type Row } from "./report.ts";
import { startBinary } from "./servers.ts";
import { benchParts, benchSetting } from "./settings.ts";
import { measureThroughput } from "./throughput.ts";

const ROOT = join(import.meta.dir, "..");
const settings = {
  seconds: benchSetting("BENCH_SECONDS", 5, 1, 600),
  threads: benchSetting("BENCH_THREADS", 2, 1, 64),
  connections: benchSetting("BENCH_CONNECTIONS", 50, 1, 10_000),
  // 1,000 calls: a p99 is then the 10th worst call, not the 4th (a single garbage collection no longer decides it).
  calls: benchSetting("BENCH_CALLS", 1000, 1, 1_000_000),
  rounds: benchSetting("BENCH_ROUNDS", 2, 1, 20),
};
const ALL_PARTS = ["throughput", "latency", "memory", "startup", "durable"];
const only = benchParts(ALL_PARTS);
const rows: Row[] = [];
const notes: string[] = [];

console.error("building the single binary (bun run build)…");
const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: ROOT, stderr: "pipe", stdout: "pipe" });
if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
const binary = join(ROOT, "dist", "hermes-mcp");

const gateway = await startFakeGateway();
const gatewayEnv = { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url };
const homes: string[] = [];
/** A fresh HOME with a personal access token, as `hermes-mcp token create` makes it. */
const newHome = async (): Promise<{ home: string; token: string }> => {
  const home = makeHome();
  homes.push(home);
  return { home, token: await createToken(home, "bench", gatewayEnv) };
};

try {
  if (only.has("throughput") || only.has("latency")) {
    const { home, token } = await newHome();
    // Default settings (LOG_LEVEL=INFO: one line per request), the log to a file as a service manager would keep it.
    // (Room for every latency call's job: the default keeps 1,000 per client.)
    const daemon = await startBinary(
      binary,
      home,
      { ...gatewayEnv, LOG_LEVEL: "INFO", HERMES_MCP_MAX_STORED_JOBS: "100000" },
      join(home, "daemon.log"),
    );
    try {
      if (only.has("throughput")) {
        const throughput = await measureThroughput(daemon, token, settings);
        rows.push(...throughput.rows);
        notes.push(...throughput.notes);
      }
      if (only.has("latency")) {
        const latency = await measureLatency(daemon.url, token, gateway, settings.calls);
        rows.push(...latency.rows);
        notes.push(...latency.notes);
        rows.push(...(await measureAfterQuiet(daemon.url, token, gateway)));
      }
    } finally {
      await daemon.stop();
    }
  }
  if (only.has("memory") || only.has("startup")) {
    const result = await measureMemory(binary, newHome, gateway, gatewayEnv, {
      memory: only.has("memory"),
      startup: only.has("startup"),
      ...settings,
    });
    rows.push(...result.rows);
    notes.push(...result.notes);
  }
  if (only.has("durable")) {
    const { home, token } = await newHome();
    rows.push(...(await measureDurable(binary, home, token, gateway, gatewayEnv)));
  }
} finally {
  await gateway.stop();
  for (const home of homes) removeHome(home);
}

const machine = describeMachine(ROOT);
const settingsLine = `wrk ${settings.threads} threads × ${settings.connections} connections × ${settings.seconds} s, ${settings.rounds} alternating runs each of ours and the floor (the Node peer once); ${settings.calls} sequential calls for latency after ${LATENCY_WARMUP_CALLS} warm-up calls; loopback only`;
console.log(`\n${machine.nproc} CPUs, ${machine.memoryGiB} GiB, ${machine.cpu}; commit ${machine.commit}; ${settingsLine}\n`);
printTable(rows);
if (notes.length > 0) console.log(`\n${notes.map((note) => `- ${note}`).join("\n")}`);
// The record is a whole run: a partial one (BENCH_ONLY) prints its figures but leaves bench/RESULTS.md as it was.
if (ALL_PARTS.every((part) => only.has(part))) {
  writeResults(join(import.meta.dir, "RESULTS.md"), machine, settingsLine, rows, notes);
  console.log("\nwritten to bench/RESULTS.md");
} else {
  console.log("\na partial run (BENCH_ONLY): bench/RESULTS.md left as it was");
}
