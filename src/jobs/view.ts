// The public shape of a job (what hermes_check returns), built from its stored row and, while it runs, its live progress.
import type { JobRow } from "../store/jobs.ts";
import type { ProgressSnapshot } from "./progress.ts";

export interface JobView {
  job_id: string;
  status: JobRow["status"] | "unknown";
  created_at: number | null;
  started_at: number | null;
  finished_at: number | null;
  prompt_chars: number | null;
  session_id: string | null;
  result?: string;
  error?: string;
  partial_result?: string;
  end_reason?: string;
  queue_position?: number;
  progress?: ProgressSnapshot;
}

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
