// The tool calls that wait (a sync hermes_ask, a long-polling hermes_check): progress, heartbeats, cancellation, sync-to-job overflow.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { JobView } from "../jobs/view.ts";
import type { ToolDeps } from "./deps.ts";
import { checkNow, startJob } from "./instant.ts";
import { failure, structured } from "./results.ts";
import type { AskInput, CheckInput } from "./schemas.ts";

/** What a waiting call needs from wherever it is served (the SDK's request context, or the fast lane's stream). */
export interface CallChannel {
  /** Who is calling (the token's principal). */
  principal: string;
  /** The JSON-RPC id of the call, for routing a later notifications/cancelled to it. */
  requestId: string | number;
  /** Aborted when the client cancels or goes away. */
  signal: AbortSignal;
  /**
   * Sends one line of progress: a progress notification when the caller gave a progressToken (clients reset their
   * timeout on them), else a log notification; both keep proxies from cutting an idle stream.
   */
  report(message: string): void;
}

/** Waits for a job while reporting its tool events and a heartbeat; resolves with its view when it ends or time is up. */
async function watchJob(deps: ToolDeps, channel: CallChannel, jobId: string, waitMs: number, stopOnAbort: boolean): Promise<JobView> {
  const { jobs } = deps;
  const unsubscribe = jobs.subscribe(jobId, (event) => {
    if (event.type === "tool") channel.report(event.line);
    else if (event.type === "retry") channel.report(event.note);
  });
  const heartbeat = setInterval(() => {
    const view = jobs.view(jobId);
    const p = view.progress;
    const doing = p?.current_tool ? ` — ${p.current_tool}` : view.queue_position ? ` — waiting in line (#${view.queue_position})` : "";
    channel.report(`Hermes is still working (${p?.elapsed_seconds ?? 0} s elapsed${doing})`);
  }, deps.timeouts.heartbeatMs);
  // A client that walks away from a sync call takes the work with it: the gateway request is closed.
  const onAbort = (): void => {
    jobs.stop(jobId, "client_disconnected");
  };
  if (stopOnAbort) channel.signal.addEventListener("abort", onAbort, { once: true });
  try {
    await jobs.waitForEnd(jobId, waitMs, channel.signal);
  } finally {
    clearInterval(heartbeat);
    unsubscribe();
    channel.signal.removeEventListener("abort", onAbort);
  }
  return jobs.view(jobId);
}

/** A sync hermes_ask: wait up to the budget, then hand the work over to a job instead of failing. */
export async function syncAsk(deps: ToolDeps, channel: CallChannel, args: z.output<typeof AskInput>): Promise<CallToolResult> {
  const started = startJob(deps.jobs, args, channel.principal);
  if ("refused" in started) return started.refused;
  const { jobId } = started;
  // No overflow configured: wait for the whole request timeout (the job's own deadline ends it first).
  const budget = deps.timeouts.syncBudgetMs > 0 ? deps.timeouts.syncBudgetMs : deps.timeouts.requestMs + 5000;
  const forget = deps.calls.register(channel.principal, channel.requestId, jobId);
  const view = await watchJob(deps, channel, jobId, budget, true).finally(forget);
  if (view.status === "completed") {
    return structured({ job_id: jobId, status: "completed" as const, answer: view.result ?? "", session_id: view.session_id });
  }
  if (view.status === "pending" || view.status === "running") {
    deps.jobs.promote(jobId);
    return structured({
      job_id: jobId,
      status: view.status,
      session_id: view.session_id,
      note: `Hermes is still working after ${Math.round(deps.timeouts.syncBudgetMs / 1000)} s, so this call became a job and keeps running. Call hermes_check with job_id "${jobId}" and wait_seconds 30 until it ends; do not call hermes_ask again for this task.`,
    });
  }
  return failure(`Hermes did not finish: ${view.error ?? view.status}`, view.partial_result ? { job_id: jobId, partial_result: view.partial_result } : { job_id: jobId });
}

/** hermes_check, waiting up to `wait_seconds` (capped) for the job to end. */
export async function checkJob(deps: ToolDeps, channel: CallChannel, args: z.output<typeof CheckInput>): Promise<CallToolResult> {
  const waitMs = Math.min(Math.max(0, (args.wait_seconds ?? 0) * 1000), deps.timeouts.maxWaitMs);
  return waitMs > 0 ? structured(await watchJob(deps, channel, args.job_id, waitMs, false)) : checkNow(deps.jobs, args.job_id);
}
