// Runs jobs end to end for their owners: admission, the gateway turn, live progress, every kind of stop, endings written and announced once, reaping, recovery.
import type { Logger } from "../log.ts";
import type { Store } from "../store/index.ts";
import { isActiveStatus, type JobPageCursor, type JobRow, type JobSummary, type NewJob } from "../store/jobs.ts";
import { publicStorageMessage, StorageAlarm } from "../store/storage-failure.ts";
import { ensureRoom, type StoredJobCaps } from "./capacity.ts";
import { describeStop, RESTART_ERROR, type StopReason } from "./endings.ts";
import { JobEvents, type JobEvent, type JobListener } from "./events.ts";
import { runTurn, type Ending, type GatewayPort } from "./gateway-turn.ts";
import { ProgressTracker } from "./progress.ts";
import { JobQueue } from "./queue.ts";
import { JobRefusedError } from "./refusal.ts";
import { jobView, unknownJobView, type JobView, type ResetSummary } from "./view.ts";

export type { GatewayPort } from "./gateway-turn.ts";
export type { JobEvent } from "./events.ts";
export { JobRefusedError };

/**
 * Whose jobs a call may see and touch: a principal (a caller on /mcp sees only its own jobs), or null for the owner
 * at the machine and the daemon itself.
 */
export type Owner = string | null;

export interface JobServiceOptions {
  store: Store;
  gateway: GatewayPort | null;
  /** Said when `gateway` is null (no HERMES_API_KEY). */
  missingGatewayMessage?: string;
  /**
   * `maxStored` is per principal (one caller filling the store never refuses another); `maxStoredTotal` is the
   * backstop for all callers together (default 10 × `maxStored`).
   */
  limits: { maxConcurrent: number; maxQueued: number; maxStored: number; maxStoredTotal?: number; retentionMs: number };
  timeouts: { requestMs: number; jobMs: number };
  log: Logger;
  now?: () => number;
  /** How often to look for jobs another process ended (`hermes-mcp jobs cancel`); a cheap probe, default 500 ms. */
  outsideEndingsEveryMs?: number;
  /** Where storage failures (a full disk) are told to the owner; by default one of its own on `log`. */
  storageAlarm?: StorageAlarm;
}

export interface SubmitRequest {
  principal: string;
  prompt: string;
  sessionLabel: string | null;
  mode: "sync" | "async";
  /** Set when the job is created as an MCP task, with the ttl the client asked for (null: none; see `grantTaskTtl`). */
  task?: { ttlMs: number | null };
}

/** The shortest task ttl granted: a finished answer stays at least this long, so a client has time to fetch it. */
export const MIN_TASK_TTL_MS = 60_000;

interface LiveJob {
  controller: AbortController;
  prompt: string;
  principal: string;
  sessionLabel: string | null;
  mode: "sync" | "async";
  tracker: ProgressTracker | null;
  /** When it started running, on the monotonic clock: its deadline holds whatever the wall clock is set to meanwhile. */
  runningSince: number | null;
  deadline: ReturnType<typeof setTimeout> | null;
  run: Promise<void> | null;
  /** Set by finish(): "ended" has been announced. */
  ended: boolean;
}

const INTERNAL_ENDING: Ending = { status: "failed", error: "internal error in hermes-mcp; see its log", endReason: "internal" };

export class JobService {
  private readonly queue: JobQueue;
  private readonly live = new Map<string, LiveJob>();
  private readonly events: JobEvents;
  private readonly now: () => number;
  private readonly caps: StoredJobCaps;
  private timers: ReturnType<typeof setInterval>[] = [];
  /** The outside-endings probe: runs only while this process has live jobs (there is nothing to interrupt otherwise). */
  private probe: ReturnType<typeof setInterval> | null = null;
  private started = false;
  private seenDataVersion = 0;
  private closed = false;

  private checkpointScheduled = false;
  /** Tells the owner once (then every few seconds while it lasts) that the database refuses writes, and why. */
  readonly storageAlarm: StorageAlarm;

  constructor(private readonly options: JobServiceOptions) {
    this.queue = new JobQueue(options.limits.maxConcurrent, options.limits.maxQueued);
    this.now = options.now ?? Date.now;
    this.storageAlarm = options.storageAlarm ?? new StorageAlarm(options.log, options.store.path, Date.now, options.store.lockWait);
    options.store.jobs.held.listener = {
      held: (error) => {
        this.storageAlarm.report(error, "write a job's ending (its answer is kept in memory meanwhile)");
      },
      written: (count) => this.options.log.info("job endings held in memory are written", { count }),
    };
    this.events = new JobEvents(options.log);
    this.caps = { perPrincipal: options.limits.maxStored, total: options.limits.maxStoredTotal ?? options.limits.maxStored * 10 };
  }

  /**
   * Marks jobs left active by a dead process as failed (never re-run), reaps expired ones, starts the reaper, and lets
   * the outside-endings probe run whenever jobs are live.
   */
  start(): { recovered: string[]; reaped: number } {
    const recovered = this.options.store.jobs.failAbandoned(this.now(), RESTART_ERROR);
    if (recovered.length > 0)
      this.options.log.warn("jobs interrupted by a restart marked failed", { count: recovered.length, jobs: recovered.join(",") });
    const reaped = this.reap();
    this.seenDataVersion = this.options.store.dataVersion();
    const every = Math.min(10 * 60_000, Math.max(1000, this.options.limits.retentionMs / 24));
    this.timers = [setInterval(() => this.reapOrSayWhy(), every)];
    for (const timer of this.timers) timer.unref?.();
    this.started = true;
    if (this.live.size > 0) this.watchOutsideEndings();
    return { recovered, reaped };
  }

  /** Deletes terminal jobs older than the retention period, and finished tasks whose ttl ran out. */
  reap(): number {
    const now = this.now();
    const reaped =
      this.options.store.jobs.reapFinishedBefore(now - this.options.limits.retentionMs) + this.options.store.jobs.reapExpiredTasks(now);
    if (reaped > 0) this.options.log.info("expired jobs reaped", { count: reaped });
    return reaped;
  }

  /** reap() on the timer: a full disk is said once, and the next round tries again (thrown, it would stop the daemon). */
  private reapOrSayWhy(): void {
    try {
      this.reap();
    } catch (error) {
      if (!this.storageAlarm.report(error, "delete expired jobs"))
        this.options.log.error("reaping expired jobs failed", { error: (error as Error).message });
    }
  }

  submit(request: SubmitRequest): JobRow {
    if (this.closed) throw new JobRefusedError("hermes-mcp is shutting down; try again in a moment");
    if (!this.options.gateway) throw new JobRefusedError(this.options.missingGatewayMessage ?? "the Hermes gateway is not configured");
    const { store, limits } = this.options;
    ensureRoom(store.jobs, request.principal, this.caps, () => this.reap());
    const id = crypto.randomUUID();
    const admission = this.queue.offer(id);
    if (admission === "full") {
      throw new JobRefusedError(
        `${limits.maxQueued} jobs are already waiting for the gateway (HERMES_MCP_MAX_QUEUED_JOBS) — wait for some to finish or cancel some with hermes_cancel`,
      );
    }
    const createdAt = this.now();
    // A job admitted at once is stored as running straight away: one commit fewer on the hot path.
    const startsNow = admission === "run";
    this.live.set(id, {
      controller: new AbortController(),
      prompt: request.prompt,
      principal: request.principal,
      sessionLabel: request.sessionLabel,
      mode: request.mode,
      tracker: null,
      runningSince: null,
      deadline: null,
      run: null,
      ended: false,
    });
    // The gateway request is started first (on a kept-alive connection it is written before begin() returns; a new
    // connection is opened meanwhile) and the row written while it travels, so every answered job is stored all the same.
    if (startsNow) this.begin(id, true);
    const job: NewJob = {
      id,
      principal: request.principal,
      mode: request.mode,
      promptChars: request.prompt.length,
      sessionLabel: request.sessionLabel,
      createdAt,
      startedAt: startsNow ? createdAt : undefined,
      taskTtlMs: request.task ? this.grantTaskTtl(request.task.ttlMs ?? this.options.limits.retentionMs) : null,
    };
    // A sync call is answered nothing before it ends, and its ending writes the row first: its row may wait until the
    // event loop has slept once, so a gateway on this machine reads the request before our commit takes the CPU
    // (measured: the way in of bench/RESULTS.md's latency note). An id answered at once (async, a task) and a job that
    // waits in line are committed here, before this method returns.
    if (startsNow && request.mode === "sync" && !request.task) {
      store.jobs.insertSoon(job, (error, row) => this.unstorable(row, error));
    } else {
      try {
        store.jobs.insert(job);
      } catch (error) {
        this.forgetUnstored(id);
        const storage = this.storageAlarm.report(error, "store a new job");
        throw storage ? new JobRefusedError(publicStorageMessage(storage)) : error;
      }
    }
    if (startsNow) this.checkpointWhileItTravels();
    // (After the request is on its way: a live job is what the probe watches.)
    this.watchOutsideEndings();
    this.options.log.info("job accepted", {
      job: id,
      client: request.principal,
      mode: request.mode,
      prompt_chars: request.prompt.length,
      session: request.sessionLabel,
      queued: admission === "queued",
      task: request.task !== undefined,
    });
    this.options.log.debug("job prompt", { job: id, prompt: request.prompt });
    return store.jobs.get(id) as JobRow;
  }

  /**
   * The ttl a task gets for the one it asked for (MCP tasks: a receiver may override it): never past the daemon's
   * retention, never under MIN_TASK_TTL_MS (or the retention, when that is shorter).
   */
  grantTaskTtl(requestedMs: number): number {
    const { retentionMs } = this.options.limits;
    return Math.round(Math.min(retentionMs, Math.max(requestedMs, MIN_TASK_TTL_MS)));
  }

  /** How long a job is kept after it ends (what a task without its own ttl is promised, counted from its creation). */
  get retentionMs(): number {
    return this.options.limits.retentionMs;
  }

  /** The owner's job with its stored row (timestamps, ttl) and its view (live progress); null when the owner cannot see it. */
  inspect(id: string, owner: string): { row: JobRow; view: JobView } | null {
    const row = this.options.store.jobs.get(id, owner);
    return row ? { row, view: this.viewOf(id, row) } : null;
  }

  /** One page of the owner's own jobs, newest first, without answers. */
  page(owner: string, after: JobPageCursor | null, limit: number): JobSummary[] {
    return this.options.store.jobs.pageOwned(owner, after, limit);
  }

  /** The job as hermes_check shows it, with live progress while it is active; "unknown" when `owner` cannot see it. */
  view(id: string, owner: Owner): JobView {
    return this.viewOf(id, this.options.store.jobs.get(id, owner));
  }

  /** Stops a job for `reason`, aborting its gateway request; a job that already ended is left as it was. */
  stop(id: string, reason: StopReason, owner: Owner): JobView {
    const { store, log } = this.options;
    const row = store.jobs.get(id, owner);
    if (!row) return this.viewOf(id, null);
    if (!isActiveStatus(row.status)) return this.viewOf(id, row);
    this.finish(id, this.stopEnding(reason, this.live.get(id)?.mode ?? row.mode));
    log.info("job stopped", { job: id, reason, was: row.status });
    this.abortLive(id);
    return this.view(id, owner);
  }

  /**
   * Clears the owner's jobs (nobody else's), aborting its active ones; counts are its jobs by status as they stood
   * before. Threat: one client wiping or interrupting another's work.
   */
  reset(owner: string): ResetSummary {
    const { store, log } = this.options;
    const active = [...this.live].filter(([, live]) => live.principal === owner).map(([id]) => id);
    // One write ends the active jobs and deletes them all: refused (a full disk, a lock), it throws before anything
    // was stopped, so the caller's "cannot write" is the whole truth.
    const end = { ...this.stopEnding("reset", "async"), finishedAt: this.now() };
    const { counts: byStatus, ended } = store.jobs.clearFor(owner, { ids: active, end });
    for (const row of ended) this.announceEnding(row.id, () => row);
    for (const id of active) this.abortLive(id);
    const cleared = Object.values(byStatus).reduce((a, b) => a + b, 0);
    log.info("jobs reset", { cleared, aborted: active.length });
    return { cleared, by_status: byStatus };
  }

  /** A sync call that outlived its budget becomes an async job: it keeps running under the job timeout. */
  promote(id: string): void {
    const live = this.live.get(id);
    if (!live || live.mode === "async") return;
    live.mode = "async";
    try {
      this.options.store.jobs.setMode(id, "async");
    } catch (error) {
      // The row keeps "sync" (which only a restart reads, failing it either way); the job runs on as an async one.
      if (!this.storageAlarm.report(error, "record a sync call handed over to a job")) throw error;
    }
    if (live.runningSince !== null) this.armDeadline(id, live, live.runningSince);
    this.options.log.info("sync call handed over to a job", { job: id });
  }

  subscribe(id: string, listener: JobListener): () => void {
    return this.events.subscribe(id, listener);
  }

  /**
   * Resolves with the owner's job once it has ended, or with its current row after `timeoutMs` (or on abort); null
   * when the owner cannot see it (then nothing is followed). While waiting, its other events go to `onEvent`.
   */
  waitForEnd(
    id: string,
    owner: Owner,
    timeoutMs: number,
    signal?: AbortSignal,
    onEvent?: (event: JobEvent) => void,
  ): Promise<JobRow | null> {
    const row = this.options.store.jobs.get(id, owner);
    if (!row || !isActiveStatus(row.status) || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(row);
    return new Promise((resolve) => {
      const done = (ended?: { job: JobRow | null }): void => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener("abort", onAbort);
        resolve(ended ? ended.job : this.options.store.jobs.get(id, owner));
      };
      const onAbort = (): void => done();
      const timer = setTimeout(done, timeoutMs);
      const unsubscribe = this.events.subscribe(id, (event) => {
        if (event.type === "ended") done(event);
        else onEvent?.(event);
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Stops accepting jobs, aborts active ones (recorded as shutdown), and waits briefly for their requests to close. */
  async shutdown(graceMs = 5000): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.stopWatchingOutsideEndings();
    const runs = [...this.live.values()].map((live) => live.run).filter((run): run is Promise<void> => run !== null);
    for (const id of [...this.live.keys()]) this.stop(id, "shutdown", null);
    await Promise.race([Promise.allSettled(runs), Bun.sleep(graceMs)]);
    // Nothing else waits on the database now: this last try waits out another program's lock.
    const unwritten = this.options.store.jobs.held.flush(true, true);
    // What a restart then says of them is what it says of a crash: failed, with the restart reason.
    if (unwritten > 0) this.options.log.error("held job endings could not be written before stopping", { count: unwritten });
  }

  get activeCount(): number {
    return this.live.size;
  }

  /**
   * The one place a job ends: records its terminal state (the first ending wins; a later one changes nothing) and
   * announces "ended" to listeners exactly once, with the state that won.
   */
  private finish(id: string, ending: Ending, alsoRun?: () => void): boolean {
    const { store } = this.options;
    const ended = store.jobs.finish(id, { ...ending, finishedAt: this.now() }, alsoRun);
    // The row as this ending left it or, when another ending won (a CLI cancel), as that one did.
    this.announceEnding(id, () => ended ?? store.jobs.get(id));
    return ended !== null;
  }

  /** Marks a live job ended and tells whoever waits on it, once; `row` is read only when someone listens. */
  private announceEnding(id: string, row: () => JobRow | null): void {
    const live = this.live.get(id);
    if (!live || live.ended) return;
    live.ended = true;
    if (this.events.has(id)) this.events.emit(id, { type: "ended", job: row() });
  }

  private stopEnding(reason: StopReason, mode: "sync" | "async"): Ending {
    const { status, error } = describeStop(reason, Math.round(this.deadlineMs(mode) / 1000));
    return { status, error, endReason: reason };
  }

  /** The view of a row already read for its owner (what waitForEnd resolved with): no second read. */
  viewOf(id: string, row: JobRow | null): JobView {
    if (!row) return unknownJobView(id, Math.round(this.options.limits.retentionMs / 3_600_000));
    const live = row.status === "running" ? this.live.get(id) : undefined;
    return jobView(row, {
      progress: live?.tracker?.snapshot(performance.now()),
      queuePosition: row.status === "pending" ? this.queue.position(id) : null,
    });
  }

  /**
   * Another process (the owner's `hermes-mcp jobs cancel`) may end a job this process is running: when SQLite's
   * data_version says someone else committed, stop the gateway request of every live job the database no longer
   * calls active.
   */
  private noticeOutsideEndings(): void {
    const { store, log } = this.options;
    const version = store.dataVersion();
    if (version === this.seenDataVersion) return;
    this.seenDataVersion = version;
    if (this.live.size === 0) return;
    const active = store.jobs.activeIds();
    for (const [id, live] of [...this.live]) {
      if (live.ended || active.has(id)) continue;
      log.info("job ended by another process; interrupting it", { job: id });
      this.finish(id, this.stopEnding("owner_cancelled", live.mode));
      this.abortLive(id);
    }
  }

  /** Starts the probe when the first job goes live (an idle daemon reads nothing every 500 ms). */
  private watchOutsideEndings(): void {
    if (!this.started || this.closed || this.probe) return;
    this.probe = setInterval(() => this.noticeOutsideEndings(), this.options.outsideEndingsEveryMs ?? 500);
    this.probe.unref?.();
  }

  private stopWatchingOutsideEndings(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }

  private deadlineMs(mode: "sync" | "async"): number {
    return mode === "sync" ? this.options.timeouts.requestMs : this.options.timeouts.jobMs;
  }

  private armDeadline(id: string, live: LiveJob, runningSince: number): void {
    if (live.deadline) clearTimeout(live.deadline);
    const remaining = Math.max(0, runningSince + this.deadlineMs(live.mode) - performance.now());
    live.deadline = setTimeout(() => this.stop(id, "timeout", null), remaining);
  }

  private begin(id: string, storedAsRunning = false): void {
    const live = this.live.get(id);
    if (!live || !(storedAsRunning || this.markRunning(id))) {
      this.settle(id);
      return;
    }
    live.runningSince = performance.now();
    live.tracker = new ProgressTracker(performance.now());
    this.armDeadline(id, live, live.runningSince);
    this.events.emit(id, { type: "started" });
    // execute() settles the job itself; this covers an unexpected throw.
    live.run = this.execute(id, live).finally(() => this.settle(id));
  }

  /** pending → running in the database; false when it is no longer pending, or the database refused (the job then failed, saying why). */
  private markRunning(id: string): boolean {
    try {
      return this.options.store.jobs.markRunning(id, this.now());
    } catch (error) {
      const storage = this.storageAlarm.report(error, "start a queued job");
      if (!storage) throw error;
      this.finish(id, { status: "failed", error: `${publicStorageMessage(storage)} The job was not started.`, endReason: "not_stored" });
      return false;
    }
  }

  private async execute(id: string, live: LiveJob): Promise<void> {
    const { store, log } = this.options;
    // Durations and progress run on the monotonic clock: a clock set back or forward mid-job changes neither.
    const started = performance.now();
    const label = live.sessionLabel;
    // A held ending may carry this label's newest session id: it is written first (at once, never waiting out a lock),
    // so a follow-up right after a full disk was freed threads on it instead of waiting for the held endings' backoff.
    if (label && store.jobs.held.size > 0) store.jobs.held.flush(true);
    const outcome = await runTurn(this.options.gateway as GatewayPort, {
      prompt: live.prompt,
      sessionId: label ? store.sessions.get(live.principal, label) : null,
      // The job's own deadline timer ends it earlier; this is a backstop that also covers a promoted sync call.
      timeoutMs: Math.max(this.options.timeouts.requestMs, this.options.timeouts.jobMs) + 5000,
      signal: live.controller.signal,
      tracker: live.tracker as ProgressTracker,
      emit: (event) => this.events.emit(id, event),
    });
    const { ending, sessionId } = outcome;
    // The answer and the session id it threads on are committed together.
    // Dated now, when the turn ended, even if the write is held and runs later (SessionStore.put keeps the newest).
    const endedAt = this.now();
    const recordSession = label && sessionId ? () => store.sessions.put(live.principal, label, sessionId, endedAt) : undefined;
    const wrote = this.finish(id, ending, recordSession);
    // Free the slot in the same tick as the ending, so whoever hears "ended" finds the next job already started.
    this.settle(id);
    if (!wrote) return;
    if (ending.status === "completed") {
      log.info("job completed", {
        job: id,
        duration_ms: Math.round(performance.now() - started),
        answer_chars: ending.result?.length ?? 0,
        session: label,
      });
      log.debug("job answer", { job: id, answer: ending.result });
    } else {
      log.warn("job failed", { job: id, duration_ms: Math.round(performance.now() - started), reason: ending.endReason });
    }
  }

  /**
   * A due WAL checkpoint runs just after this turn of the event loop, while the job's gateway request travels (started
   * before the job's row was written), so its fsync overlaps the gateway's answer instead of delaying it.
   */
  private checkpointWhileItTravels(): void {
    if (this.checkpointScheduled) return;
    this.checkpointScheduled = true;
    setImmediate(() => {
      this.checkpointScheduled = false;
      // (A closed store answers that nothing is due; SQLite's own checkpoint remains should this one fail.)
      try {
        this.options.store.checkpointIfDue();
      } catch (error) {
        this.options.log.warn("WAL checkpoint failed; SQLite will retry on its own", { error: (error as Error).message });
      }
    });
  }

  /**
   * A sync call whose row could not be written (insertSoon): it ends failed, saying why, for whoever waits on it, and
   * its gateway request is closed. Nothing of it was ever answered, and nothing of it stays.
   */
  private unstorable(row: Readonly<JobRow>, error: Error): void {
    const storage = this.storageAlarm.report(error, "store a new job");
    if (!storage) this.options.log.error("job could not be stored", { job: row.id, error: error.message });
    if (this.live.get(row.id)?.ended !== false) return;
    // Ended first (its request closed), then announced: a listener acting on the ending finds the job over.
    this.forgetUnstored(row.id);
    const failed: JobRow = {
      ...row,
      status: "failed",
      finished_at: this.now(),
      error: storage ? publicStorageMessage(storage) : `hermes-mcp could not store this job (${error.message}); see its log`,
      end_reason: "not_stored",
    };
    if (this.events.has(row.id)) this.events.emit(row.id, { type: "ended", job: failed });
  }

  /** A job whose row could not be written: its request is closed and it leaves no trace (it was never acknowledged). */
  private forgetUnstored(id: string): void {
    const live = this.live.get(id);
    if (!live) return;
    live.ended = true;
    this.abortLive(id, "not stored");
  }

  private abortLive(id: string, reason = "stopped"): void {
    const live = this.live.get(id);
    if (!live) return;
    if (live.run === null) {
      // Still waiting in line: it never reached the gateway.
      this.queue.remove(id);
      this.settle(id);
    } else {
      live.controller.abort(reason);
    }
  }

  /** Releases everything a job held and starts the next waiting job. */
  private settle(id: string): void {
    const live = this.live.get(id);
    if (live?.deadline) clearTimeout(live.deadline);
    // Every path above ends the job first; should one not have, it still ends (and is announced) exactly once.
    if (live && !live.ended) this.finish(id, INTERNAL_ENDING);
    this.live.delete(id);
    const next = this.queue.release(id);
    if (next !== null) this.begin(next);
    if (this.live.size === 0) this.stopWatchingOutsideEndings();
  }
}
