// The tool calls that answer at once (no waiting, no progress), each acting only on the caller's own jobs.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { JobRefusedError, type JobService } from "../jobs/service.ts";
import { failure, structured } from "./results.ts";
import { AskOutput, JobViewOutput, ResetOutput, type AskInput } from "./schemas.ts";

/** A started job, or the error result that says why it was refused. */
export type JobStart = { jobId: string } | { refused: CallToolResult };

/** Starts a job for hermes_ask (as an MCP task when `task` is given); a refusal (queue or store full, no gateway key) becomes an error result. */
export function startJob(jobs: JobService, args: z.output<typeof AskInput>, principal: string, task?: { ttlMs: number | null }): JobStart {
  try {
    const job = jobs.submit({
      principal,
      prompt: args.prompt,
      sessionLabel: args.session_id ?? null,
      mode: args.async_mode ? "async" : "sync",
      task,
    });
    return { jobId: job.id };
  } catch (error) {
    if (error instanceof JobRefusedError) return { refused: failure(error.message) };
    throw error;
  }
}

export const checkNow = (jobs: JobService, jobId: string, principal: string): CallToolResult =>
  structured(JobViewOutput, jobs.view(jobId, principal));
export const cancelJob = (jobs: JobService, jobId: string, principal: string): CallToolResult =>
  structured(JobViewOutput, jobs.stop(jobId, "cancelled", principal));
export const resetJobs = (jobs: JobService, principal: string): CallToolResult => structured(ResetOutput, jobs.reset(principal));

export function askAsync(jobs: JobService, args: z.output<typeof AskInput>, principal: string): CallToolResult {
  const started = startJob(jobs, args, principal);
  return "refused" in started ? started.refused : structured(AskOutput, { job_id: started.jobId, status: "pending" });
}
