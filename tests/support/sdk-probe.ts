// Child process of tests/mcp/lazy-sdk.test.ts: loads the daemon's start-up modules, answers a 2025-era session on the fast lane, then a request only the SDK answers, and prints which MCP SDK (and consola) modules were evaluated at each step.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/cli/serve.ts";
import { JobService } from "../../src/jobs/service.ts";
import { silentLogger } from "../../src/log.ts";
import { SyncCallRegistry } from "../../src/mcp/cancellations.ts";
import { createMcpEndpoint } from "../../src/mcp/server.ts";
import { openStore } from "../../src/store/index.ts";

const sdkModules = (): string[] => Object.keys(require.cache).filter((path) => path.includes("@modelcontextprotocol/"));
const steps: Record<string, unknown> = {
  afterImport: sdkModules(),
  consolaAfterImport: Object.keys(require.cache).filter((path) => path.includes("/consola/")),
};

const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-sdk-probe-"));
const store = openStore(join(dir, "db.sqlite"));
const jobs = new JobService({
  store,
  gateway: null,
  missingGatewayMessage: "no gateway in this probe",
  limits: { maxConcurrent: 1, maxQueued: 1, maxStored: 10, retentionMs: 60_000 },
  timeouts: { requestMs: 60_000, jobMs: 60_000 },
  log: silentLogger,
});
const timeouts = { syncBudgetMs: 45_000, requestMs: 60_000, heartbeatMs: 15_000, maxWaitMs: 50_000 };
const endpoint = createMcpEndpoint({ jobs, log: silentLogger, calls: new SyncCallRegistry(), timeouts });
const auth = { token: "t", clientId: "pat:probe", scopes: [], extra: { principal: "pat:probe#00000000" } };
const send = async (method: string, body?: unknown): Promise<{ status: number; message: unknown }> => {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };
  const response = await endpoint.fetch(new Request("http://127.0.0.1/mcp", { method, headers, body: text }), auth, text);
  const raw = await response.text();
  return { status: response.status, message: JSON.parse(/^data: (.*)$/m.exec(raw)?.[1] ?? (raw || "null")) };
};
const post = async (body: unknown): Promise<unknown> => (await send("POST", body)).message;

// What the SDK's own client sends on connect (initialize, initialized, a GET for a stream), what inspectors and some
// clients add (a log level, a resource listing), then calls.
const initialize = (await post({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: { roots: { listChanged: true } }, clientInfo: { name: "probe", version: "1" } },
})) as { result?: { serverInfo?: { name?: string } } };
const setLevel = (await post({ jsonrpc: "2.0", id: 10, method: "logging/setLevel", params: { level: "info" } })) as { result?: object };
const resources = (await post({ jsonrpc: "2.0", id: 11, method: "resources/list" })) as { error?: { code?: number } };
steps.sessionAnswers = [
  initialize.result?.serverInfo?.name,
  (await send("POST", { jsonrpc: "2.0", method: "notifications/initialized" })).status,
  (await send("GET")).status,
  setLevel.result,
  resources.error?.code,
];
const answers = [
  await post({ jsonrpc: "2.0", id: 1, method: "ping" }),
  await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  await post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "hermes_check", arguments: { job_id: "nope" } } }),
];
steps.fastAnswers = answers.map((answer) => Object.keys((answer as { result?: object }).result ?? {}));
steps.afterFastLane = sdkModules();
// MCP tasks (2025-11-25) are served by the SDK alone.
const tasks = (await post({ jsonrpc: "2.0", id: 4, method: "tasks/list" })) as { result?: object };
steps.sdkAnswer = Object.keys(tasks.result ?? {});
steps.afterSdkRequest = sdkModules();

await jobs.shutdown(0);
await endpoint.close();
store.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(steps));
