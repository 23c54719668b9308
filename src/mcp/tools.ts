// The four tools' behaviour: hermes_ask (sync with progress and overflow to a job, or async), hermes_check (long-poll), hermes_cancel, hermes_reset.
import type { CallToolResult, McpServer, ServerContext } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { JobService } from "../jobs/service.ts";
import type { JobView } from "../jobs/view.ts";
import type { Logger } from "../log.ts";
import type { SyncCallRegistry } from "./cancellations.ts";
import { askDescription, CANCEL_DESCRIPTION, CHECK_DESCRIPTION, RESET_DESCRIPTION } from "./descriptions.ts";
import { askAsync, cancelJob, checkNow, resetJobs, startJob } from "./instant.ts";
import { failure, structured } from "./results.ts";
import { AskInput, AskOutput, CheckInput, JobIdInput, JobViewOutput, ResetInput, ResetOutput } from "./schemas.ts";

export interface ToolDeps {
  jobs: JobService;
  calls: SyncCallRegistry;
  log: Logger;
  timeouts: { syncBudgetMs: number; requestMs: number; heartbeatMs: number; maxWaitMs: number };
}

export const LOCAL_PRINCIPAL = "local";
const principalOf = (ctx: ServerContext): string => ctx.http?.authInfo?.clientId ?? LOCAL_PRINCIPAL;

/**
 * Keeps a waiting call visibly alive: progress notifications when the caller sent a progressToken (clients reset
 * their timeout on them), else log notifications; both keep proxies from cutting an idle stream.
 */
function progressReporter(ctx: ServerContext, log: Logger) {
  const token = ctx.mcpReq._meta?.progressToken;
  let count = 0;
  return (message: string): void => {
    if (ctx.mcpReq.signal.aborted) return;
    const sent =
      token !== undefined
        ? ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: ++count, message } })
        : ctx.mcpReq.log("info", message, "hermes-mcp");
    sent.catch((error: unknown) => log.debug("progress notification not delivered", { error: (error as Error).message }));
  };
}

/** Waits for a job while reporting its tool events and a heartbeat; resolves with the job's view when it ends or time is up. */
async function watchJob(deps: ToolDeps, ctx: ServerContext, jobId: string, waitMs: number, stopOnAbort: boolean): Promise<JobView> {
  const report = progressReporter(ctx, deps.log);
  const unsubscribe = deps.jobs.subscribe(jobId, (event) => {
    if (event.type === "tool") report(event.line);
    else if (event.type === "retry") report(event.note);
  });
  const heartbeat = setInterval(() => {
    const view = deps.jobs.view(jobId);
    const p = view.progress;
    const doing = p?.current_tool ? ` — ${p.current_tool}` : view.queue_position ? ` — waiting in line (#${view.queue_position})` : "";
    report(`Hermes is still working (${p?.elapsed_seconds ?? 0} s elapsed${doing})`);
  }, deps.timeouts.heartbeatMs);
  const onAbort = (): void => {
    deps.jobs.stop(jobId, "client_disconnected");
  };
  if (stopOnAbort) ctx.mcpReq.signal.addEventListener("abort", onAbort, { once: true });
  try {
    await deps.jobs.waitForEnd(jobId, waitMs, ctx.mcpReq.signal);
  } finally {
    clearInterval(heartbeat);
    unsubscribe();
    ctx.mcpReq.signal.removeEventListener("abort", onAbort);
  }
  return deps.jobs.view(jobId);
}

export function registerTools(server: McpServer, deps: ToolDeps): void {
  const syncBudgetSeconds = Math.round(deps.timeouts.syncBudgetMs / 1000);

  server.registerTool(
    "hermes_ask",
    {
      title: "Ask Hermes",
      description: askDescription(syncBudgetSeconds),
      inputSchema: AskInput,
      outputSchema: AskOutput,
      annotations: { title: "Ask Hermes", readOnlyHint: false, openWorldHint: true },
    },
    async (args: z.output<typeof AskInput>, ctx: ServerContext): Promise<CallToolResult> => {
      if (args.async_mode) return askAsync(deps.jobs, args, principalOf(ctx));
      const started = startJob(deps.jobs, args, principalOf(ctx));
      if ("refused" in started) return started.refused;
      const { jobId } = started;

      // Sync: wait up to the budget (or the whole request timeout when overflow is off), then hand over to a job.
      const budget = deps.timeouts.syncBudgetMs > 0 ? deps.timeouts.syncBudgetMs : deps.timeouts.requestMs + 5000;
      const forget = deps.calls.register(principalOf(ctx), ctx.mcpReq.id, jobId);
      const view = await watchJob(deps, ctx, jobId, budget, true).finally(forget);
      if (view.status === "completed") {
        return structured({ job_id: jobId, status: "completed" as const, answer: view.result ?? "", session_id: view.session_id });
      }
      if (view.status === "pending" || view.status === "running") {
        deps.jobs.promote(jobId);
        return structured({
          job_id: jobId,
          status: view.status,
          session_id: view.session_id,
          note: `Hermes is still working after ${syncBudgetSeconds} s, so this call became a job and keeps running. Call hermes_check with job_id "${jobId}" and wait_seconds 30 until it ends; do not call hermes_ask again for this task.`,
        });
      }
      return failure(`Hermes did not finish: ${view.error ?? view.status}`, view.partial_result ? { job_id: jobId, partial_result: view.partial_result } : { job_id: jobId });
    },
  );

  server.registerTool(
    "hermes_check",
    {
      title: "Check a Hermes job",
      description: CHECK_DESCRIPTION,
      inputSchema: CheckInput,
      outputSchema: JobViewOutput,
      annotations: { title: "Check a Hermes job", readOnlyHint: true, openWorldHint: false },
    },
    async (args: z.output<typeof CheckInput>, ctx: ServerContext): Promise<CallToolResult> => {
      const waitMs = Math.min(Math.max(0, (args.wait_seconds ?? 0) * 1000), deps.timeouts.maxWaitMs);
      return waitMs > 0 ? structured(await watchJob(deps, ctx, args.job_id, waitMs, false)) : checkNow(deps.jobs, args.job_id);
    },
  );

  server.registerTool(
    "hermes_cancel",
    {
      title: "Cancel a Hermes job",
      description: CANCEL_DESCRIPTION,
      inputSchema: JobIdInput,
      outputSchema: JobViewOutput,
      annotations: { title: "Cancel a Hermes job", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args: z.output<typeof JobIdInput>): Promise<CallToolResult> => cancelJob(deps.jobs, args.job_id),
  );

  server.registerTool(
    "hermes_reset",
    {
      title: "Clear all Hermes jobs",
      description: RESET_DESCRIPTION,
      inputSchema: ResetInput,
      outputSchema: ResetOutput,
      annotations: { title: "Clear all Hermes jobs", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (): Promise<CallToolResult> => resetJobs(deps.jobs),
  );
}
