// The public shape of a job (what hermes_check returns), declared once as a schema, built from its stored row and, while it runs, its live progress.
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import { JOB_STATUSES, type JobRow, type StatusCounts } from "../store/jobs.ts";
import { ProgressSnapshotSchema, type ProgressSnapshot } from "./progress.ts";

/** Every status a caller can see: the stored ones, and "unknown" for an id it cannot see. */
export const VIEW_STATUSES = [...JOB_STATUSES, "unknown"] as const;

export const JobViewSchema = builtOnFirstUse(() =>
  z.object({
    job_id: z.string(),
    status: z.enum(VIEW_STATUSES),
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
    progress: ProgressSnapshotSchema.optional(),
  }),
);
export type JobView = z.output<typeof JobViewSchema>;

/** What hermes_reset reports: the caller's jobs cleared, by status as they stood before. */
export const ResetSummarySchema = builtOnFirstUse(() =>
  z.object({
    cleared: z.number(),
    by_status: z.partialRecord(z.enum(JOB_STATUSES), z.number()),
  }),
);
export type ResetSummary = z.output<typeof ResetSummarySchema>;

/** Compile-time proof that two types are identical: a declaration of type `Same<A, B>` only accepts `true` when they are. */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
// The store's per-status counts are exactly what the summary carries.
export const RESET_COUNTS_MATCH_STORE: Same<StatusCounts, ResetSummary["by_status"]> = true;

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.round(ms) / 1000);

export function jobView(row: JobRow, live?: { progress?: ProgressSnapshot; queuePosition?: number | null }): JobView {
  const view: JobView = {
    job_id: row.id,
    status: row.status,
    created_at: seconds(row.created_at),
    started_at: seconds(row.started_at),
    finished_at: seconds(row.finished_at),
    prompt_chars: row.prompt_chars,
    session_id: row.session_label,
  };
  if (row.result !== null) view.result = row.result;
  if (row.error !== null) view.error = row.error;
  if (row.partial !== null) view.partial_result = row.partial;
  if (row.end_reason !== null) view.end_reason = row.end_reason;
  if (live?.queuePosition) view.queue_position = live.queuePosition;
  if (live?.progress) view.progress = live.progress;
  return view;
}

/**
 * A job the caller cannot see. Threat: ids revealing other callers' work — a job of another principal answers
 * exactly like an id that never existed.
 */
export function unknownJobView(id: string, retentionHours: number): JobView {
  return {
    job_id: id,
    status: "unknown",
    created_at: null,
    started_at: null,
    finished_at: null,
    prompt_chars: null,
    session_id: null,
    error: `no such job: it was never issued, expired ${retentionHours} h after finishing, or was cleared by hermes_reset`,
  };
}
