// The tool calls that wait (a sync hermes_ask, a long-polling hermes_check): progress, heartbeats, cancellation, sync-to-job overflow.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { JobView } from "../jobs/view.ts";
import type { CallChannel } from "./channel.ts";
import type { ToolDeps } from "./deps.ts";
import { checkNow, startJob } from "./instant.ts";
import { failure, structured } from "./results.ts";
import { AskOutput, JobViewOutput, type AskInput, type CheckInput } from "./schemas.ts";

/**
 * Waits for one of the caller's jobs while reporting its tool events and a heartbeat; resolves with its view when it
 * ends or time is up. A job the caller cannot see is answered at once, as unknown, and nothing of it is reported.
 */
export async function watchJob(
  deps: ToolDeps,
  channel: CallChannel,
  jobId: string,
  waitMs: number,
  stopOnAbort: boolean,
): Promise<JobView> {
  const { jobs } = deps;
  const owner = channel.principal;
  const heartbeat = setInterval(() => {
    const view = jobs.view(jobId, owner);
    const p = view.progress;
    const doing = p?.current_tool ? ` — ${p.current_tool}` : view.queue_position ? ` — waiting in line (#${view.queue_position})` : "";
    channel.report(`Hermes is still working (${p?.elapsed_seconds ?? 0} s elapsed${doing})`);
  }, deps.timeouts.heartbeatMs);
  // A client that walks away from a sync call takes the work with it: the gateway request is closed.
  const onAbort = (): void => {
    jobs.stop(jobId, "client_disconnected", owner);
  };
  if (stopOnAbort) channel.signal.addEventListener("abort", onAbort, { once: true });
  try {
    // The row as the ending left it (or as it stands when time is up), read for this owner: answered without a second read.
    const row = await jobs.waitForEnd(jobId, owner, waitMs, channel.signal, (event) => {
      if (event.type === "tool") channel.report(event.line);
      else if (event.type === "retry") channel.report(event.note);
    });
    return jobs.viewOf(jobId, row);
  } finally {
    clearInterval(heartbeat);
    channel.signal.removeEventListener("abort", onAbort);
  }
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
  if (view.status === "pending" || view.status === "running") {
    deps.jobs.promote(jobId);
    return structured(AskOutput, {
      job_id: jobId,
      status: view.status,
      session_id: view.session_id,
      note: `Hermes is still working after ${Math.round(deps.timeouts.syncBudgetMs / 1000)} s, so this call became a job and keeps running. Call hermes_check with job_id "${jobId}" and wait_seconds 30 until it ends; do not call hermes_ask again for this task.`,
    });
  }
  return endedAskResult(view);
}

/** What hermes_ask answers for a job that has ended (a sync call, and tasks/result for a task): the answer, or why not. */
export function endedAskResult(view: JobView): CallToolResult {
  const jobId = view.job_id;
  if (view.status === "completed") {
    return structured(AskOutput, { job_id: jobId, status: "completed", answer: view.result ?? "", session_id: view.session_id });
  }
  return failure(
    `Hermes did not finish: ${view.error ?? view.status}`,
    view.partial_result ? { job_id: jobId, partial_result: view.partial_result } : { job_id: jobId },
  );
}

/** How long a hermes_check may hold the call open (0: answer at once). */
export const checkWaitMs = (deps: ToolDeps, args: z.output<typeof CheckInput>): number =>
  Math.min(Math.max(0, (args.wait_seconds ?? 0) * 1000), deps.timeouts.maxWaitMs);

/** hermes_check, waiting up to `wait_seconds` (capped) for the job to end. */
export async function checkJob(deps: ToolDeps, channel: CallChannel, args: z.output<typeof CheckInput>): Promise<CallToolResult> {
  const waitMs = checkWaitMs(deps, args);
  return waitMs > 0
    ? structured(JobViewOutput, await watchJob(deps, channel, args.job_id, waitMs, false))
    : checkNow(deps.jobs, args.job_id, channel.principal);
}
