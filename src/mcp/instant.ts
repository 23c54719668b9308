// The tool calls that answer at once (no waiting, no progress): shared by the SDK tool handlers and the fast lane.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { JobRefusedError, type JobService } from "../jobs/service.ts";
import { failure, structured } from "./results.ts";
import type { AskInput } from "./schemas.ts";

/** Starts a job for hermes_ask; a refusal (queue or store full, no gateway key) becomes an error result. */
export function startJob(jobs: JobService, args: z.output<typeof AskInput>, principal: string): { jobId: string } | { refused: CallToolResult } {
  try {
    const job = jobs.submit({ principal, prompt: args.prompt, sessionLabel: args.session_id ?? null, mode: args.async_mode ? "async" : "sync" });
    return { jobId: job.id };
  } catch (error) {
    if (error instanceof JobRefusedError) return { refused: failure(error.message) };
    throw error;
  }
}

export const checkNow = (jobs: JobService, jobId: string): CallToolResult => structured(jobs.view(jobId));
export const cancelJob = (jobs: JobService, jobId: string): CallToolResult => structured(jobs.stop(jobId, "cancelled"));
export const resetJobs = (jobs: JobService): CallToolResult => structured(jobs.reset());

export function askAsync(jobs: JobService, args: z.output<typeof AskInput>, principal: string): CallToolResult {
  const started = startJob(jobs, args, principal);
  return "refused" in started ? started.refused : structured({ job_id: started.jobId, status: "pending" as const });
}
