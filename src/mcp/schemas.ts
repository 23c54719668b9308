// The four tools' input and output schemas (zod): what callers may send, and what they get back (derived from the jobs layer's shapes).
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import { JobViewSchema, ResetSummarySchema } from "../jobs/view.ts";
import { JOB_STATUSES } from "../store/jobs.ts";
import { BIDI, LINE_BREAKING } from "../unsafe-text.ts";

/** The gateway refuses text parts over 65,536 characters; say so before sending. */
export const MAX_PROMPT_CHARS = 65_536;

export const AskInput = builtOnFirstUse(() =>
  z.object({
    prompt: z
      .string()
      // An empty prompt is told that alone, not also that it is blank.
      .min(1, { error: "prompt must not be empty", abort: true })
      // Only spaces or blank lines would cost a gateway turn for nothing: Hermes has no task to act on.
      .regex(/\S/u, "prompt must not be only spaces or blank lines: say what Hermes should do")
      .max(
        MAX_PROMPT_CHARS,
        `prompt must be at most ${MAX_PROMPT_CHARS} characters (the Hermes gateway refuses longer text); split the task or attach less`,
      )
      .describe("The task for Hermes, in plain language, with everything it needs to know."),
    session_id: z
      .string()
      .max(200, "session_id must be at most 200 characters")
      // C0, DEL and C1 controls (U+0085 included): they break logs and terminals.
      .regex(
        new RegExp(`^[^${LINE_BREAKING}]*$`, "u"),
        "session_id must not contain control characters (tabs, line breaks, U+0080–U+009F) or line/paragraph separators (U+2028/U+2029); use a plain label such as trip-2026",
      )
      // Threat: labels that read differently than they are (Trojan Source) in logs and in `hermes-mcp jobs list`.
      .regex(
        new RegExp(`^[^${BIDI}]*$`, "u"),
        "session_id must not contain bidirectional controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069); use a plain label such as trip-2026",
      )
      .nullish()
      .describe("Optional conversation label; reuse it so Hermes keeps context across calls."),
    async_mode: z
      .boolean()
      .nullish()
      .describe("true: return a job id at once and poll with hermes_check. Default false (wait for the answer)."),
  }),
);
// `toolsets` (accepted and ignored by the original) is not advertised; unknown keys are stripped, so old callers still work.

export const JobIdInput = builtOnFirstUse(() =>
  z.object({
    job_id: z.string().min(1, "job_id must not be empty").max(200, "job_id is too long").describe("The job_id returned by hermes_ask."),
  }),
);

export const CheckInput = builtOnFirstUse(() =>
  JobIdInput.unwrap().extend({
    wait_seconds: z
      .number()
      .min(0, "wait_seconds must be 0 or more")
      .nullish()
      .describe("Wait up to this many seconds for the job to end before answering (capped by the server, default 0)."),
  }),
);

export const ResetInput = z.object({});

/** hermes_check and hermes_cancel answer with the job view, declared once in the jobs layer. */
export const JobViewOutput = JobViewSchema;

export const AskOutput = builtOnFirstUse(() =>
  z.object({
    job_id: z.string(),
    // A sync call answers completed, or hands over a job still pending or running; the statuses come from the store.
    status: z.enum(JOB_STATUSES).extract(["pending", "running", "completed"]),
    answer: z.string().optional(),
    session_id: z.string().nullable().optional(),
    note: z.string().optional(),
  }),
);

/** hermes_reset answers with the jobs layer's summary of what it cleared. */
export const ResetOutput = ResetSummarySchema;
