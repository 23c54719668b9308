// What the MCP layer needs from below (the job service, the sync-call registry, a logger, the timing knobs), and who is calling.
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { JobService } from "../jobs/service.ts";
import type { Logger } from "../log.ts";
import type { SyncCallRegistry } from "./cancellations.ts";
import type { MessagingDeps } from "./messaging-calls.ts";

export interface ToolDeps {
  jobs: JobService;
  calls: SyncCallRegistry;
  log: Logger;
  timeouts: { syncBudgetMs: number; requestMs: number; heartbeatMs: number; maxWaitMs: number };
  /** Hermes's messaging tools; absent (nothing changes for anyone) while HERMES_MCP_MESSAGING is off. */
  messaging?: MessagingDeps;
}

/** The principal of requests that carry no token identity (in-process use only; /mcp always authenticates). */
export const LOCAL_PRINCIPAL = "local";

/**
 * Who is calling: the identity the token verifier put in `extra.principal` (a token or app, not its name — a
 * re-created token is someone new), else the client id. Jobs, sessions and cancels are all keyed by it.
 */
export function principalOf(authInfo: AuthInfo | undefined): string {
  const principal = authInfo?.extra?.principal;
  return typeof principal === "string" && principal !== "" ? principal : (authInfo?.clientId ?? LOCAL_PRINCIPAL);
}
