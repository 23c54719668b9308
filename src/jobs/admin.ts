// The owner's view of every job, from another process than the daemon (the `hermes-mcp jobs` CLI): list, show, cancel.
import type { Store } from "../store/index.ts";
import { isActiveStatus, JOB_STATUSES, type JobRow, type JobStatus, type JobSummary } from "../store/jobs.ts";
import { describeStop } from "./endings.ts";

export class JobAdminError extends Error {
  override name = "JobAdminError";
}

/** A --status value, or an error listing the real statuses. */
export function parseStatus(value: string): JobStatus {
  const status = JOB_STATUSES.find((s) => s === value.trim().toLowerCase());
  if (!status) throw new JobAdminError(`unknown status "${value}": use one of ${JOB_STATUSES.join(", ")}`);
  return status;
}

export function listJobs(store: Store, filter: { client?: string; status?: JobStatus; limit: number }): JobSummary[] {
  return store.jobs.list({ principal: filter.client, status: filter.status, limit: filter.limit });
}

/** The job whose id is `id` (or the one job it is an unambiguous prefix of, 4 characters or more). */
export function findJob(store: Store, id: string): JobRow {
  const row = store.jobs.findByIdPrefix(id.trim());
  if (!row) throw new JobAdminError(`no job "${id}" (or the prefix matches several) — see \`hermes-mcp jobs list\``);
  return row;
}

/**
 * Cancels a job as the owner. The record is written here; the daemon, which runs the job, notices the commit
 * (SQLite's data_version moves) within a second and closes the job's gateway request, which makes Hermes stop.
 * Returns the job as it stands, and whether this call ended it.
 */
export function cancelJob(store: Store, id: string, now = Date.now()): { job: JobRow; cancelled: boolean } {
  const row = findJob(store, id);
  if (!isActiveStatus(row.status)) return { job: row, cancelled: false };
  const { status, error } = describeStop("owner_cancelled", 0);
  const ended = store.jobs.finish(row.id, { status, error, endReason: "owner_cancelled", finishedAt: now });
  return { job: ended ?? (store.jobs.get(row.id) as JobRow), cancelled: ended !== null };
}
