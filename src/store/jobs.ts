// Typed queries over the jobs table: insert, owned reads, guarded status transitions, per-principal counting and clearing, listing, reaping, restart recovery.
import type { Database } from "bun:sqlite";
import { z } from "zod";
import { HeldEndings } from "./held-endings.ts";
import { LockWait } from "./lock-wait.ts";
import { storageFailureCode } from "./storage-failure.ts";

export const JOB_STATUSES = ["pending", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const ACTIVE_STATUSES: readonly JobStatus[] = ["pending", "running"];
export const isActiveStatus = (status: JobStatus): boolean => status === "pending" || status === "running";
export type StatusCounts = Partial<Record<JobStatus, number>>;

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
  /** How long a job created as an MCP task is kept after its creation (null: the daemon's retention after it ends). */
  task_ttl_ms: z.number().int().nullable(),
});
export type JobRow = z.infer<typeof JobRowSchema>;
const SummarySchema = JobRowSchema.omit({ result: true, partial: true });
/** What an ending reads back: the columns it did not set (those it set are already known, and checked). */
const EndedSchema = JobRowSchema.pick({
  id: true,
  principal: true,
  mode: true,
  prompt_chars: true,
  session_label: true,
  created_at: true,
  started_at: true,
  task_ttl_ms: true,
});
const SUMMARY_COLUMNS =
  "id, principal, mode, status, prompt_chars, session_label, created_at, started_at, finished_at, error, end_reason, task_ttl_ms";

export interface NewJob {
  id: string;
  principal: string;
  mode: "sync" | "async";
  promptChars: number;
  sessionLabel: string | null;
  createdAt: number;
  /** Set when the job starts at once: it is stored as running in the same write (one commit fewer per job). */
  startedAt?: number;
  /** A task's granted ttl (MCP tasks), already clamped to the retention; null or absent for an ordinary job. */
  taskTtlMs?: number | null;
}

/** Where a page of one principal's jobs resumes: after this job (newest first). */
export interface JobPageCursor {
  createdAt: number;
  id: string;
}

export interface JobEnd {
  status: "completed" | "failed" | "cancelled";
  finishedAt: number;
  result?: string | null;
  partial?: string | null;
  error?: string | null;
  endReason: string;
}

/** What `hermes-mcp jobs list` filters on. `principal` matches that principal and every generation of it (`NAME#…`). */
export interface JobFilter {
  principal?: string;
  status?: JobStatus;
  limit: number;
}

/** One row as the owner's job list shows it: never the answer. */
export type JobSummary = Omit<JobRow, "result" | "partial">;

/**
 * How soon a row given to insertSoon is written at the latest: long enough for the event loop to sleep once, so a
 * gateway on the same machine gets the CPU to read the request that was just sent.
 */
export const WRITE_SOON_MS = 1;

/** The row an insert writes: every column the job has so far, the rest null (the table has no defaults). */
function newRow(job: NewJob): Readonly<JobRow> {
  return Object.freeze({
    id: job.id,
    principal: job.principal,
    mode: job.mode,
    status: job.startedAt === undefined ? "pending" : "running",
    prompt_chars: job.promptChars,
    session_label: job.sessionLabel,
    created_at: job.createdAt,
    started_at: job.startedAt ?? null,
    finished_at: null,
    result: null,
    partial: null,
    error: null,
    end_reason: null,
    task_ttl_ms: job.taskTtlMs ?? null,
  });
}

/** The columns an ending sets, as the row has them. */
function endingColumns(end: JobEnd): Pick<JobRow, "status" | "finished_at" | "result" | "partial" | "error" | "end_reason"> {
  return {
    status: end.status,
    finished_at: end.finishedAt,
    result: end.result ?? null,
    partial: end.partial ?? null,
    error: end.error ?? null,
    end_reason: end.endReason,
  };
}

/** The row cache's bounds: entries, and answer text per row (a few MiB at most, never a store's worth of answers). */
const ROW_CACHE_MAX_ENTRIES = 1024;
const ROW_CACHE_MAX_TEXT = 2048;

export class JobStore {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly startStmt;
  private readonly finishStmt;
  private readonly totalStmt;
  private readonly mineStmt;
  private readonly byStatusStmt;
  /**
   * Stored-job counts as of `version` (SQLite's data_version): kept up to date by our own inserts, dropped by our own
   * deletes and whenever another connection (a CLI) commits. Counting by scan on every submission made a full store
   * cost O(n) per job.
   */
  private tally: { version: number; total: number; mine: Map<string, number> } | null = null;
  private readonly activeIdsStmt;
  /**
   * Recently read rows (and ids read as absent), exact as of `rowsVersion`: emptied by every write of ours and whenever
   * another connection (a CLI `jobs cancel`) commits. A polled job is then answered without a read transaction.
   */
  private readonly rows = new Map<string, Readonly<JobRow> | null>();
  private rowsVersion = -1;
  /**
   * Rows given to insertSoon and not written yet, each with who hears should its write fail. get() answers them from
   * here and every other read or write writes them first, so this process never sees one missing; another process
   * (the CLI) sees it within WRITE_SOON_MS.
   */
  private readonly unwritten = new Map<string, { row: Readonly<JobRow>; onFailure: (error: Error, row: Readonly<JobRow>) => void }>();
  private unwrittenTimer: ReturnType<typeof setTimeout> | null = null;
  /** Endings the database refused for a reason of the machine: answered from here until written (held-endings.ts). */
  readonly held = new HeldEndings();

  /**
   * `dataVersion` is the store's data_version, at most 1 ms old (commit-probe.ts); by default it asks SQLite each time.
   * `lockWait` is the store's: how long a write waits for another program's lock (lock-wait.ts).
   */
  constructor(
    private readonly db: Database,
    private readonly dataVersion: () => number = () =>
      db.query<{ data_version: number }, []>("PRAGMA data_version").get()?.data_version ?? 0,
    private readonly lockWait: LockWait = new LockWait(db),
  ) {
    this.insertStmt = db.query(
      `INSERT INTO jobs (id, principal, mode, status, prompt_chars, session_label, created_at, started_at, task_ttl_ms)
       VALUES ($id, $principal, $mode, $status, $promptChars, $sessionLabel, $createdAt, $startedAt, $taskTtlMs)`,
    );
    this.getStmt = db.query("SELECT * FROM jobs WHERE id = ?");
    this.startStmt = db.query("UPDATE jobs SET status = 'running', started_at = ? WHERE id = ? AND status = 'pending'");
    // Only an active job can end: the first ending wins (a cancel racing a completion keeps whichever came first). The
    // ended row comes back from the same statement: announcing the ending costs no second read. Only the columns the
    // ending did not set: an answer just written is not copied back out of SQLite (nor checked again).
    this.finishStmt = db.query(
      `UPDATE jobs SET status = $status, finished_at = $finished_at, result = $result, partial = $partial, error = $error, end_reason = $end_reason
       WHERE id = $id AND status IN ('pending', 'running') RETURNING ${Object.keys(EndedSchema.shape).join(", ")}`,
    );
    this.totalStmt = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs");
    this.mineStmt = db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM jobs WHERE principal = ?");
    this.byStatusStmt = db.query<{ status: string; n: number }, [string]>(
      "SELECT status, COUNT(*) AS n FROM jobs WHERE principal = ? GROUP BY status",
    );
    this.activeIdsStmt = db.query<{ id: string }, []>("SELECT id FROM jobs WHERE status IN ('pending', 'running')");
  }

  insert(job: NewJob): void {
    this.insertRow(newRow(job));
    this.countedInsert(job.principal);
  }

  /**
   * insert(), a moment later: within WRITE_SOON_MS, or sooner when anything else reads or writes this store. For a
   * sync call whose gateway request has just left: its commit no longer competes with the gateway for the CPU while
   * the gateway reads that request. Its ending writes it first, so no answer leaves before its row is committed.
   * Should the write fail, `onFailure` hears why once every held row has been tried, before whatever operation wrote
   * them goes on (so an ending that wrote it finds its job already failed); nothing is thrown into that operation.
   */
  insertSoon(job: NewJob, onFailure: (error: Error, row: Readonly<JobRow>) => void): void {
    this.unwritten.set(job.id, { row: newRow(job), onFailure });
    this.countedInsert(job.principal);
    this.unwrittenTimer ??= setTimeout(() => this.writeUnwritten(), WRITE_SOON_MS);
  }

  /** Writes every row insertSoon still holds, each in its own commit as insert() would have. */
  writeUnwritten(): void {
    if (this.unwrittenTimer) clearTimeout(this.unwrittenTimer);
    this.unwrittenTimer = null;
    if (this.unwritten.size === 0) return;
    const waiting = [...this.unwritten.values()];
    this.unwritten.clear();
    const failed: (() => void)[] = [];
    for (const { row, onFailure } of waiting) {
      try {
        this.insertRow(row);
      } catch (error) {
        // Counted when it was handed over; the next count reads the table again.
        this.tally = null;
        failed.push(() => onFailure(error as Error, row));
      }
    }
    for (const tell of failed) tell();
  }

  private insertRow(row: Readonly<JobRow>): void {
    this.wrote(() =>
      this.insertStmt.run({
        id: row.id,
        principal: row.principal,
        mode: row.mode,
        promptChars: row.prompt_chars,
        sessionLabel: row.session_label,
        createdAt: row.created_at,
        status: row.status,
        startedAt: row.started_at,
        taskTtlMs: row.task_ttl_ms,
      }),
    );
  }

  /** The job, if it exists and — when `owner` is given — belongs to that principal; null otherwise (the two look the same). */
  get(id: string, owner: string | null = null): JobRow | null {
    const row = this.unwritten.get(id)?.row ?? this.held.row(id) ?? this.readRow(id);
    // Threat: a second client reading another's job. Ownership is part of every read: a foreign id reads as absent.
    return row !== null && (owner === null || row.principal === owner) ? row : null;
  }

  private readRow(id: string): Readonly<JobRow> | null {
    const version = this.dataVersion();
    if (version !== this.rowsVersion) {
      this.rows.clear();
      this.rowsVersion = version;
    }
    let row = this.rows.get(id);
    if (row === undefined) {
      const raw = this.getStmt.get(id);
      row = raw ? Object.freeze(JobRowSchema.parse(raw)) : null;
      this.remember(id, row);
    }
    return row;
  }

  /**
   * Runs one of our writes, after the rows insertSoon holds (a write may depend on them), with the row cache emptied
   * before and after (a rolled-back write leaves nothing stale).
   */
  private wrote<T>(write: () => T): T {
    this.writeUnwritten();
    this.held.flush();
    this.rows.clear();
    try {
      return write();
    } finally {
      this.rows.clear();
    }
  }

  /** Keeps a row if small (answers can be large; those are read each time), within a bounded number of entries. */
  private remember(id: string, row: Readonly<JobRow> | null): void {
    if (row && (row.result?.length ?? 0) + (row.partial?.length ?? 0) > ROW_CACHE_MAX_TEXT) return;
    if (this.rows.size >= ROW_CACHE_MAX_ENTRIES) this.rows.clear();
    this.rows.set(id, row);
  }

  /**
   * The job whose id is `id`, else up to two whose id starts with it, 4 characters or more (the owner types a prefix at
   * the CLI): one row is the job meant, two say the prefix is ambiguous, none that nothing matches.
   */
  findByIdPrefix(prefix: string): JobRow[] {
    const exact = this.get(prefix);
    if (exact) return [exact];
    if (prefix.length < 4) return [];
    this.writeUnwritten();
    const rows = this.db.query("SELECT * FROM jobs WHERE id >= ? AND id < ? ORDER BY id LIMIT 2").all(prefix, `${prefix}\uffff`);
    return rows.map((row) => JobRowSchema.parse(row));
  }

  /** Newest first, without answers. */
  list(filter: JobFilter): JobSummary[] {
    this.writeUnwritten();
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (filter.principal !== undefined) {
      // The principal itself, or a later generation of the same name ("pat:dave" also finds "pat:dave#1a2b3c4d").
      where.push("(principal = ? OR (principal >= ? AND principal < ?))");
      params.push(filter.principal, `${filter.principal}#`, `${filter.principal}$`);
    }
    if (filter.status !== undefined) {
      where.push("status = ?");
      params.push(filter.status);
    }
    params.push(filter.limit);
    const sql = `SELECT ${SUMMARY_COLUMNS}
      FROM jobs ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC LIMIT ?`;
    const listed = this.withHeld(
      this.db
        .query(sql)
        .all(...params)
        .map((row) => SummarySchema.parse(row)),
    );
    // A held ending no longer has the status the file matched it by.
    return filter.status === undefined ? listed : listed.filter((job) => job.status === filter.status);
  }

  /**
   * One page of exactly `principal`'s jobs (never another's, not even a later generation of the same name), newest
   * first, resuming after `after`; without answers. Threat: a caller listing other callers' work.
   */
  pageOwned(principal: string, after: JobPageCursor | null, limit: number): JobSummary[] {
    this.writeUnwritten();
    const rows = after
      ? this.db
          .query(
            // A row value, so the page starts where the cursor points in jobs_principal instead of walking down to it.
            `SELECT ${SUMMARY_COLUMNS} FROM jobs WHERE principal = ? AND (created_at, id) < (?, ?)
             ORDER BY created_at DESC, id DESC LIMIT ?`,
          )
          .all(principal, after.createdAt, after.id, limit)
      : this.db
          .query(`SELECT ${SUMMARY_COLUMNS} FROM jobs WHERE principal = ? ORDER BY created_at DESC, id DESC LIMIT ?`)
          .all(principal, limit);
    return this.withHeld(rows.map((row) => SummarySchema.parse(row)));
  }

  /** pending → running; false when the job is no longer pending. */
  markRunning(id: string, at: number): boolean {
    return this.wrote(() => this.startStmt.run(at, id).changes === 1);
  }

  /**
   * active → terminal: the ended row as committed (or, in a process that listens for held endings, as held when the
   * database refuses it for a reason of the machine), or null when the job had already ended (or is gone). `alsoRun`
   * commits in the same transaction.
   */
  finish(id: string, end: JobEnd, alsoRun?: () => void): JobRow | null {
    // The first ending wins, a held one too.
    if (this.held.row(id)) return null;
    let ended: Readonly<JobRow> | null;
    try {
      ended = this.wrote(() => this.finishNow(id, end, alsoRun));
    } catch (error) {
      // Only the daemon holds an ending (its JobService listens); a CLI's refused write must say nothing was changed.
      if (storageFailureCode(error) === null || this.held.listener === null) throw error;
      return this.holdEnding(id, end, alsoRun, error);
    }
    if (ended) this.remember(id, ended);
    return ended;
  }

  /**
   * An ending the database refused for a reason of the machine (a full disk): the row it makes, held until written
   * (held-endings.ts); null when the job is not active (another ending won, or it was never stored).
   */
  private holdEnding(id: string, end: JobEnd, alsoRun: (() => void) | undefined, error: unknown): JobRow | null {
    const current = this.get(id);
    if (!current || !isActiveStatus(current.status)) return null;
    const row: Readonly<JobRow> = Object.freeze({ ...current, ...endingColumns(end) });
    const write = (patient: boolean): void => {
      // Threat: another program holding the lock. A retry waiting out the busy timeout would stall every request for
      // 5 s each time it ran; it fails at once instead, and the held endings back off. The last try, at shutdown, waits.
      try {
        const finish = () => this.finishNow(id, end, alsoRun);
        patient ? this.lockWait.patiently(finish) : this.lockWait.atOnce(finish);
      } finally {
        this.rows.clear();
      }
    };
    this.held.hold(id, { row, write }, error);
    return row;
  }

  /** Summaries with the held endings applied: this process never lists a job it answered as still running. */
  private withHeld(rows: JobSummary[]): JobSummary[] {
    if (this.held.size === 0) return rows;
    return rows.map((summary) => {
      const held = this.held.row(summary.id);
      return held
        ? { ...summary, status: held.status, finished_at: held.finished_at, error: held.error, end_reason: held.end_reason }
        : summary;
    });
  }

  private finishNow(id: string, end: JobEnd, alsoRun?: () => void): Readonly<JobRow> | null {
    if (alsoRun) {
      return this.db.transaction(() => {
        const ended = this.finishNow(id, end);
        if (ended) alsoRun();
        return ended;
      })();
    }
    const ending = endingColumns(end);
    const raw = this.finishStmt.get({ id, ...ending });
    if (!raw) return null;
    const kept = EndedSchema.parse(raw);
    // In the table's column order, as a row read whole has it.
    return Object.freeze({
      id: kept.id,
      principal: kept.principal,
      mode: kept.mode,
      status: ending.status,
      prompt_chars: kept.prompt_chars,
      session_label: kept.session_label,
      created_at: kept.created_at,
      started_at: kept.started_at,
      finished_at: ending.finished_at,
      result: ending.result,
      partial: ending.partial,
      error: ending.error,
      end_reason: ending.end_reason,
      task_ttl_ms: kept.task_ttl_ms,
    });
  }

  /** A sync call that outlived its budget becomes an ordinary async job. */
  setMode(id: string, mode: "sync" | "async"): void {
    this.wrote(() => this.db.query("UPDATE jobs SET mode = ? WHERE id = ?").run(mode, id));
  }

  /** Stored jobs in all, and those of `principal` (counted once, then kept up to date in memory). */
  counts(principal: string): { total: number; mine: number } {
    this.writeUnwritten();
    const version = this.dataVersion();
    if (this.tally?.version !== version) this.tally = { version, total: this.totalStmt.get()?.n ?? 0, mine: new Map() };
    let mine = this.tally.mine.get(principal);
    if (mine === undefined) {
      mine = this.mineStmt.get(principal)?.n ?? 0;
      this.tally.mine.set(principal, mine);
    }
    return { total: this.tally.total, mine };
  }

  /** Our own insert: the tally stays exact (the version does not move for our own commits). */
  private countedInsert(principal: string): void {
    if (!this.tally) return;
    this.tally.total++;
    const mine = this.tally.mine.get(principal);
    if (mine !== undefined) this.tally.mine.set(principal, mine + 1);
  }

  countByStatus(principal: string): StatusCounts {
    this.writeUnwritten();
    const out: StatusCounts = {};
    for (const row of this.byStatusStmt.all(principal)) out[row.status as JobStatus] = row.n;
    // A held ending counts as what it ended as: the caller was answered so, whatever the file still says.
    for (const held of this.held.rows()) {
      if (held.principal !== principal) continue;
      const inFile = this.db.query<{ status: JobStatus }, [string]>("SELECT status FROM jobs WHERE id = ?").get(held.id)?.status;
      if (inFile === undefined || inFile === held.status) continue;
      out[inFile] = (out[inFile] ?? 1) - 1;
      if (out[inFile] === 0) delete out[inFile];
      out[held.status] = (out[held.status] ?? 0) + 1;
    }
    return out;
  }

  /**
   * Deletes every job of `principal` (no one else's), first ending those of `stopping` still active as `end`: one
   * write, so a refused one (a full disk, a lock) changed nothing. Returns how many there were, by status as they
   * stood before, and the rows the ending made (for whoever waits on those jobs).
   */
  clearFor(
    principal: string,
    stopping: { ids: readonly string[]; end: JobEnd } | null = null,
  ): { counts: StatusCounts; ended: Readonly<JobRow>[] } {
    // Immediate: it reads, then writes. A deferred transaction that has read is refused SQLite's lock at once, without
    // waiting out another connection's short commit (the busy handler only runs for a connection holding no transaction).
    const cleared = this.wrote(() =>
      this.db
        .transaction(() => {
          const counts = this.countByStatus(principal);
          const ended: Readonly<JobRow>[] = [];
          for (const id of stopping?.ids ?? []) {
            if (this.get(id, principal) === null) continue;
            // Ended by another process (a CLI cancel) since: announced as that ending left it.
            const row = this.finishNow(id, stopping?.end as JobEnd) ?? this.readRow(id);
            if (row) ended.push(row);
          }
          this.tally = null;
          this.db.query("DELETE FROM jobs WHERE principal = ?").run(principal);
          return { counts, ended };
        })
        .immediate(),
    );
    // Their held endings have no row left to write to.
    this.held.forget((row) => row.principal === principal);
    return cleared;
  }

  /** Ids of the jobs the database says are pending or running. */
  activeIds(): Set<string> {
    this.writeUnwritten();
    return new Set(this.activeIdsStmt.all().map((row) => row.id));
  }

  /**
   * Deletes terminal jobs created and finished before `before`; returns how many. Bounded by the creation time so the
   * delete walks jobs_created, not the table: a job finishes after it is created, and one whose clock stepped back in
   * between goes once both times are past.
   */
  reapFinishedBefore(before: number): number {
    this.tally = null;
    return this.wrote(
      () =>
        this.db.query("DELETE FROM jobs WHERE created_at < ? AND finished_at IS NOT NULL AND finished_at < ?").run(before, before).changes,
    );
  }

  /**
   * Deletes terminal tasks whose ttl (counted from creation, MCP tasks) has run out by `now`; returns how many. An
   * active task outliving its ttl is kept until it ends: its gateway turn still runs and its owner may still want it.
   * It walks jobs_task_expiry, which SQLite uses only while the query spells its expression and condition as the index does.
   */
  reapExpiredTasks(now: number): number {
    this.tally = null;
    return this.wrote(
      () =>
        this.db
          .query("DELETE FROM jobs WHERE finished_at IS NOT NULL AND task_ttl_ms IS NOT NULL AND created_at + task_ttl_ms <= ?")
          .run(now).changes,
    );
  }

  /** Marks every job still pending or running (left by a process that died) as failed; returns their ids. */
  failAbandoned(at: number, error: string): string[] {
    return this.wrote(() => this.failAbandonedNow(at, error));
  }

  private failAbandonedNow(at: number, error: string): string[] {
    // Immediate: it reads, then writes (a deferred reader is refused the lock at once, as in clearFor).
    return this.db
      .transaction(() => {
        const ids = this.activeIdsStmt.all().map((row) => row.id);
        this.db
          .query(
            "UPDATE jobs SET status = 'failed', finished_at = ?, error = ?, end_reason = 'restart' WHERE status IN ('pending', 'running')",
          )
          .run(at, error);
        return ids;
      })
      .immediate();
  }
}
