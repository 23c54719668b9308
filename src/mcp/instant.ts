// The tool calls that answer at once (no waiting, no progress): shared by the SDK tool handlers and the fast lane.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { JobRefusedError, type JobService } from "../jobs/service.ts";
import { failure, structured } from "./results.ts";
import { AskInput, CheckInput, JobIdInput } from "./schemas.ts";

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

/**
 * Answers a tools/call that needs no waiting, or returns null to leave it to the SDK: unknown tools, arguments that
 * do not validate (so the SDK words the error), sync asks and long-polls (they stream progress).
 */
export function instantToolCall(jobs: JobService, name: unknown, rawArgs: unknown, principal: string): CallToolResult | null {
  switch (name) {
    case "hermes_check": {
      const args = CheckInput.safeParse(rawArgs ?? {});
      return args.success && !args.data.wait_seconds ? checkNow(jobs, args.data.job_id) : null;
    }
    case "hermes_cancel": {
      const args = JobIdInput.safeParse(rawArgs ?? {});
      return args.success ? cancelJob(jobs, args.data.job_id) : null;
    }
    case "hermes_reset":
      return rawArgs === undefined || (typeof rawArgs === "object" && rawArgs !== null) ? resetJobs(jobs) : null;
    case "hermes_ask": {
      const args = AskInput.safeParse(rawArgs ?? {});
      return args.success && args.data.async_mode ? askAsync(jobs, args.data, principal) : null;
    }
    default:
      return null;
  }
}
