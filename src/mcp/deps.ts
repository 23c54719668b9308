// What the MCP layer needs from below: the job service, the sync-call registry, a logger and the timing knobs.
import type { JobService } from "../jobs/service.ts";
import type { Logger } from "../log.ts";
import type { SyncCallRegistry } from "./cancellations.ts";

export interface ToolDeps {
  jobs: JobService;
  calls: SyncCallRegistry;
  log: Logger;
  timeouts: { syncBudgetMs: number; requestMs: number; heartbeatMs: number; maxWaitMs: number };
}

/** The principal of requests that carry no token identity (in-process use only; /mcp always authenticates). */
export const LOCAL_PRINCIPAL = "local";
