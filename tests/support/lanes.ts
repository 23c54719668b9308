// Test harness: the MCP endpoint twice over one job service, once with the fast lane and once SDK-only, to compare answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobService } from "../../src/jobs/service.ts";
import { silentLogger } from "../../src/log.ts";
import { SyncCallRegistry } from "../../src/mcp/cancellations.ts";
import type { ToolDeps } from "../../src/mcp/deps.ts";
import { createMcpEndpoint, type McpEndpoint } from "../../src/mcp/server.ts";
import { openStore } from "../../src/store/index.ts";

export interface LanePair {
  deps: ToolDeps;
  jobs: JobService;
  fast: McpEndpoint;
  slow: McpEndpoint;
  auth: { token: string; clientId: string; scopes: string[]; extra: { principal: string } };
  /** Earlier tests' jobs finish on their own within milliseconds; waits for the slots to be free. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A gateway that answers "echo: <prompt>" after one tool event, or, for a prompt starting with "hang", reports a
 * running tool and never answers until aborted.
 */
export function createLanePair(): LanePair {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-lanes-"));
  const store = openStore(join(dir, "db.sqlite"));
  const jobs = new JobService({
    store,
    gateway: {
      chat: async (request) => {
        if (request.prompt.startsWith("hang")) {
          request.onEvent?.({ type: "tool", tool: "terminal", status: "running", emoji: "💻", label: "sleep 1000" });
          return new Promise((_, reject) => request.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
        }
        await Bun.sleep(2);
        request.onEvent?.({ type: "tool", tool: "web_search", status: "running", emoji: "🔎", label: "x" });
        await Bun.sleep(5);
        return { text: `echo: ${request.prompt}`, sessionId: "api-1", finishReason: "stop" };
      },
    },
    limits: { maxConcurrent: 2, maxQueued: 5, maxStored: 100, retentionMs: 3_600_000 },
    timeouts: { requestMs: 60_000, jobMs: 60_000 },
    log: silentLogger,
  });
  const deps: ToolDeps = {
    jobs,
    log: silentLogger,
    calls: new SyncCallRegistry(),
    timeouts: { syncBudgetMs: 45_000, requestMs: 60_000, heartbeatMs: 15_000, maxWaitMs: 50_000 },
  };
  const fast = createMcpEndpoint(deps);
  const slow = createMcpEndpoint(deps, { fastLane: false });
  return {
    deps,
    jobs,
    fast,
    slow,
    auth: { token: "t", clientId: "pat:test", scopes: [], extra: { principal: "pat:test#0a1b2c3d" } },
    async idle() {
      while (jobs.activeCount > 0) await Bun.sleep(2);
    },
    async close() {
      await jobs.shutdown(0);
      await fast.close();
      await slow.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
