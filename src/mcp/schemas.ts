// The four tools' input and output schemas (zod): what callers may send and what they get back.
import { z } from "zod";

/** The gateway refuses text parts over 65,536 characters; say so before sending. */
export const MAX_PROMPT_CHARS = 65_536;

export const AskInput = z.object({
  prompt: z
    .string()
    .min(1, "prompt must not be empty")
    .max(MAX_PROMPT_CHARS, `prompt must be at most ${MAX_PROMPT_CHARS} characters (the Hermes gateway refuses longer text); split the task or attach less`)
    .describe("The task for Hermes, in plain language, with everything it needs to know."),
  session_id: z
    .string()
    .max(200, "session_id must be at most 200 characters")
    .regex(/^[^\u0000-\u001f\u007f]*$/, "session_id must not contain control characters")
    .nullish()
    .describe("Optional conversation label; reuse it so Hermes keeps context across calls."),
  async_mode: z.boolean().nullish().describe("true: return a job id at once and poll with hermes_check. Default false (wait for the answer)."),
});
// `toolsets` (accepted and ignored by the original) is not advertised; unknown keys are stripped, so old callers still work.

export const JobIdInput = z.object({
  job_id: z.string().min(1, "job_id must not be empty").max(200, "job_id is too long").describe("The job_id returned by hermes_ask."),
});

export const CheckInput = JobIdInput.extend({
  wait_seconds: z
    .number()
    .min(0, "wait_seconds must be 0 or more")
    .nullish()
    .describe("Wait up to this many seconds for the job to end before answering (capped by the server, default 0)."),
});

export const ResetInput = z.object({});

const Progress = z.object({
  elapsed_seconds: z.number(),
  current_tool: z.string().nullable(),
  recent_events: z.array(z.string()),
  answer_chars: z.number(),
  tool_events: z.number(),
  note: z.string().nullable(),
});

export const JobViewOutput = z.object({
  job_id: z.string(),
  status: z.enum(["pending", "running", "completed", "failed", "cancelled", "unknown"]),
  created_at: z.number().nullable(),
  started_at: z.number().nullable(),
  finished_at: z.number().nullable(),
  prompt_chars: z.number().nullable(),
  session_id: z.string().nullable(),
  result: z.string().optional(),
  error: z.string().optional(),
  partial_result: z.string().optional(),
  end_reason: z.string().optional(),
  queue_position: z.number().optional(),
  progress: Progress.optional(),
});

export const AskOutput = z.object({
  job_id: z.string(),
  status: z.enum(["pending", "running", "completed"]),
  answer: z.string().optional(),
  session_id: z.string().nullable().optional(),
  note: z.string().optional(),
});

export const ResetOutput = z.object({
  cleared: z.number(),
  by_status: z.record(z.string(), z.number()),
});
