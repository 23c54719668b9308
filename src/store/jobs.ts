// Typed queries over the jobs table: insert, read, guarded status transitions, counting, reaping, restart recovery.
import type { Database } from "bun:sqlite";
import { z } from "zod";

export const JOB_STATUSES = ["pending", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const ACTIVE_STATUSES: readonly JobStatus[] = ["pending", "running"];

/** Rows are validated on the way out: a hand-edited or corrupted database gives a clear error, not a wrong answer. */
const JobRowSchema = z.object({
  id: z.string(),
  principal: z.string(),
  mode: z.enum(["sync", "async"]),
  status: z.enum(JOB_STATUSES),
  prompt_chars: z.number().int(),
  session_label: z.string().nullable(),
  created_at: z.number(),
  started_at: z.number().nullable(),
  finished_at: z.number().nullable(),
  result: z.string().nullable(),
  partial: z.string().nullable(),
  error: z.string().nullable(),
  end_reason: z.string().nullable(),
});
export type JobRow = z.infer<typeof JobRowSchema>;

export interface NewJob {
  id: string;
  principal: string;
  mode: "sync" | "async";
  promptChars: number;
  sessionLabel: string | null;
  createdAt: number;
  /** Set when the job starts at once: it is stored as running in the same write (one commit fewer per job). */
  startedAt?: number;
}

export interface JobEnd {
  status: "completed" | "failed" | "cancelled";
  finishedAt: number;
  result?: string | null;
  partial?: string | null;
  error?: string | null;
  endReason: string;
}

export class JobStore {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly startStmt;
  private readonly finishStmt;
  private readonly countStmt;
  private readonly byStatusStmt;

  constructor(private readonly db: Database) {
    this.insertStmt = db.query(
      `INSERT INTO jobs (id, principal, mode, status, prompt_chars, session_label, created_at, started_at)
       VALUES ($id, $principal, $mode, $status, $promptChars, $sessionLabel, $createdAt, $startedAt)`,
    );
    this.getStmt = db.query("SELECT * FROM jobs WHERE id = ?");
    this.startStmt = db.query("UPDATE jobs SET status = 'running', started_at = ? WHERE id = ? AND status = 'pending'");
    // Only an active job can end: the first ending wins (a cancel racing a completion keeps whichever came first).
    this.finishStmt = db.query(
      `UPDATE jobs SET status = $status, finished_at = $finishedAt, result = $result, partial = $partial, error = $error, end_reason = $endReason
       WHERE id = $id AND status IN ('pending', 'running')`,
    );
    this.countStmt = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs");
    this.byStatusStmt = db.query<{ status: string; n: number }, []>("SELECT status, COUNT(*) AS n FROM jobs GROUP BY status");
  }

  insert(job: NewJob): void {
    this.insertStmt.run({
      id: job.id,
      principal: job.principal,
      mode: job.mode,
      promptChars: job.promptChars,
      sessionLabel: job.sessionLabel,
      createdAt: job.createdAt,
      status: job.startedAt === undefined ? "pending" : "running",
      startedAt: job.startedAt ?? null,
    });
  }

  get(id: string): JobRow | null {
    const row = this.getStmt.get(id);
    return row ? JobRowSchema.parse(row) : null;
  }

  /** pending → running; false when the job is no longer pending. */
  markRunning(id: string, at: number): boolean {
    return this.startStmt.run(at, id).changes === 1;
  }

  /** active → terminal; false when the job had already ended (or is gone). `alsoRun` commits in the same transaction. */
  finish(id: string, end: JobEnd, alsoRun?: () => void): boolean {
    if (alsoRun) {
      return this.db.transaction(() => {
        const ended = this.finish(id, end);
        if (ended) alsoRun();
        return ended;
      })();
    }
    return (
      this.finishStmt.run({
        id,
        status: end.status,
        finishedAt: end.finishedAt,
        result: end.result ?? null,
        partial: end.partial ?? null,
        error: end.error ?? null,
        endReason: end.endReason,
      }).changes === 1
    );
  }

  /** A sync call that outlived its budget becomes an ordinary async job. */
  setMode(id: string, mode: "sync" | "async"): void {
    this.db.query("UPDATE jobs SET mode = ? WHERE id = ?").run(mode, id);
  }

  count(): number {
    return this.countStmt.get()?.n ?? 0;
  }

  countByStatus(): Partial<Record<JobStatus, number>> {
    const out: Partial<Record<JobStatus, number>> = {};
    for (const row of this.byStatusStmt.all()) out[row.status as JobStatus] = row.n;
    return out;
  }

  /** Deletes every job; returns how many there were, by status. */
  clear(): Partial<Record<JobStatus, number>> {
    return this.db.transaction(() => {
      const counts = this.countByStatus();
      this.db.exec("DELETE FROM jobs");
      return counts;
    })();
  }

  /** Deletes terminal jobs that finished before `before`; returns how many. */
  reapFinishedBefore(before: number): number {
    return this.db.query("DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?").run(before).changes;
  }

  /** Marks every job still pending or running (left by a process that died) as failed; returns their ids. */
  failAbandoned(at: number, error: string): string[] {
    return this.db.transaction(() => {
      const ids = this.db
        .query<{ id: string }, []>("SELECT id FROM jobs WHERE status IN ('pending', 'running')")
        .all()
        .map((r) => r.id);
      this.db
        .query("UPDATE jobs SET status = 'failed', finished_at = ?, error = ?, end_reason = 'restart' WHERE status IN ('pending', 'running')")
        .run(at, error);
      return ids;
    })();
  }
}
