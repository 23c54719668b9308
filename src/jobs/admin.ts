// The owner's view of every job, from another process than the daemon (the `hermes-mcp jobs` CLI): list, show, cancel.
import { editDistance } from "../config/names.ts";
import type { Store } from "../store/index.ts";
import { isActiveStatus, JOB_STATUSES, type JobRow, type JobStatus, type JobSummary } from "../store/jobs.ts";
import { describeStop } from "./endings.ts";

export class JobAdminError extends Error {
  override name = "JobAdminError";
}

/** A --status value, or an error listing the real statuses. */
export function parseStatus(value: string): JobStatus {
  const wanted = value.trim().toLowerCase();
  const status = JOB_STATUSES.find((s) => s === wanted);
  if (!status) {
    const near = JOB_STATUSES.find((s) => editDistance(s, wanted) <= 2);
    throw new JobAdminError(`unknown status "${value}"${near ? ` — did you mean ${near}?` : ""}: use one of ${JOB_STATUSES.join(", ")}`);
  }
  return status;
}

export function listJobs(store: Store, filter: { client?: string; status?: JobStatus; limit: number }): JobSummary[] {
  return store.jobs.list({ principal: filter.client, status: filter.status, limit: filter.limit });
}

/** The job whose id is `id` (or the one job it is an unambiguous prefix of, 4 characters or more). */
export function findJob(store: Store, id: string): JobRow {
  // Ids are lowercase UUIDs; one copied from a page or a log may have been upper-cased.
  const wanted = id.trim().toLowerCase();
  const [row, another] = store.jobs.findByIdPrefix(wanted);
  if (row && !another) return row;
  if (row && another)
    throw new JobAdminError(`more than one job starts with "${wanted}" (${row.id}, ${another.id}, …): type more of the id`);
  if (wanted.length < 4)
    throw new JobAdminError(`no job "${id}": give its whole id or its first 4 or more characters — see \`hermes-mcp jobs list\``);
  throw new JobAdminError(`no job "${id}" — see \`hermes-mcp jobs list\` (jobs are deleted once their retention has passed)`);
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
