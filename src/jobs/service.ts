// Runs jobs end to end: admission, the streaming gateway call, live progress, every kind of stop, persistence, reaping, restart recovery.
import type { ChatRequest, ChatResult, GatewayEvent } from "../gateway/client.ts";
import { GatewayError } from "../gateway/errors.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/index.ts";
import type { JobRow } from "../store/jobs.ts";
import { describeStop, RESTART_ERROR, type StopReason } from "./endings.ts";
import { ProgressTracker, type ToolEvent } from "./progress.ts";
import { JobQueue } from "./queue.ts";
import { jobView, unknownJobView, type JobView } from "./view.ts";

/** What the job runner needs from the gateway client (GatewayClient satisfies it; tests may pass a stand-in). */
export interface GatewayPort {
  chat(request: ChatRequest): Promise<ChatResult>;
}

export type JobEvent =
  | { type: "started" }
  | { type: "tool"; line: string; event: ToolEvent }
  | { type: "retry"; note: string }
  | { type: "ended"; job: JobRow };

/** A job could not be accepted; the message says why and what to do. */
export class JobRefusedError extends Error {
  override name = "JobRefusedError";
}

export interface JobServiceOptions {
  store: Store;
  gateway: GatewayPort | null;
  /** Said when `gateway` is null (no HERMES_API_KEY). */
  missingGatewayMessage?: string;
  limits: { maxConcurrent: number; maxQueued: number; maxStored: number; retentionMs: number };
  timeouts: { requestMs: number; jobMs: number };
  log: Logger;
  now?: () => number;
}

export interface SubmitRequest {
  principal: string;
  prompt: string;
  sessionLabel: string | null;
  mode: "sync" | "async";
}

interface LiveJob {
  controller: AbortController;
  prompt: string;
  principal: string;
  sessionLabel: string | null;
  mode: "sync" | "async";
  tracker: ProgressTracker | null;
  startedAt: number | null;
  deadline: ReturnType<typeof setTimeout> | null;
  run: Promise<void> | null;
}

export class JobService {
  private readonly queue: JobQueue;
  private readonly live = new Map<string, LiveJob>();
  private readonly listeners = new Map<string, Set<(event: JobEvent) => void>>();
  private readonly now: () => number;
  private reaper: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  constructor(private readonly options: JobServiceOptions) {
    this.queue = new JobQueue(options.limits.maxConcurrent, options.limits.maxQueued);
    this.now = options.now ?? Date.now;
  }

  /** Marks jobs left active by a dead process as failed (never re-run), reaps expired ones, and starts the reaper. */
  start(): { recovered: string[]; reaped: number } {
    const recovered = this.options.store.jobs.failAbandoned(this.now(), RESTART_ERROR);
    if (recovered.length > 0) this.options.log.warn("jobs interrupted by a restart marked failed", { count: recovered.length, jobs: recovered.join(",") });
    const reaped = this.reap();
    const every = Math.min(10 * 60_000, Math.max(1000, this.options.limits.retentionMs / 24));
    this.reaper = setInterval(() => this.reap(), every);
    this.reaper.unref?.();
    return { recovered, reaped };
  }

  /** Deletes terminal jobs older than the retention period. */
  reap(): number {
    const reaped = this.options.store.jobs.reapFinishedBefore(this.now() - this.options.limits.retentionMs);
    if (reaped > 0) this.options.log.info("expired jobs reaped", { count: reaped });
    return reaped;
  }

  submit(request: SubmitRequest): JobRow {
    if (this.closed) throw new JobRefusedError("hermes-mcp is shutting down; try again in a moment");
    if (!this.options.gateway) throw new JobRefusedError(this.options.missingGatewayMessage ?? "the Hermes gateway is not configured");
    const { store, limits } = this.options;
    if (store.jobs.count() >= limits.maxStored) this.reap();
    if (store.jobs.count() >= limits.maxStored) {
      throw new JobRefusedError(
        `the job store is full (${limits.maxStored} jobs, HERMES_MCP_MAX_STORED_JOBS) — call hermes_reset to clear it, or wait for finished jobs to expire`,
      );
    }
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
    store.jobs.insert({
      id,
      principal: request.principal,
      mode: request.mode,
      promptChars: request.prompt.length,
      sessionLabel: request.sessionLabel,
      createdAt,
      startedAt: startsNow ? createdAt : undefined,
    });
    this.live.set(id, {
      controller: new AbortController(),
      prompt: request.prompt,
      principal: request.principal,
      sessionLabel: request.sessionLabel,
      mode: request.mode,
      tracker: null,
      startedAt: null,
      deadline: null,
      run: null,
    });
    this.options.log.info("job accepted", { job: id, mode: request.mode, prompt_chars: request.prompt.length, session: request.sessionLabel, queued: admission === "queued" });
    this.options.log.debug("job prompt", { job: id, prompt: request.prompt });
    if (startsNow) this.begin(id, true);
    return store.jobs.get(id) as JobRow;
  }

  /** The job as hermes_check shows it, with live progress while it is active. */
  view(id: string): JobView {
    const row = this.options.store.jobs.get(id);
    if (!row) return unknownJobView(id, Math.round(this.options.limits.retentionMs / 3_600_000));
    const live = row.status === "running" ? this.live.get(id) : undefined;
    return jobView(row, {
      progress: live?.tracker?.snapshot(this.now()),
      queuePosition: row.status === "pending" ? this.queue.position(id) : null,
    });
  }

  /** Stops a job for `reason`, aborting its gateway request; a job that already ended is left as it was. */
  stop(id: string, reason: StopReason): JobView {
    const live = this.live.get(id);
    const row = this.options.store.jobs.get(id);
    if (row && (row.status === "pending" || row.status === "running")) {
      const { status, error } = describeStop(reason, Math.round(this.deadlineMs(live?.mode ?? row.mode) / 1000));
      this.options.store.jobs.finish(id, { status, error, endReason: reason, finishedAt: this.now() });
      this.options.log.info("job stopped", { job: id, reason, was: row.status });
      this.abortLive(id, reason);
      this.emit(id, { type: "ended", job: this.options.store.jobs.get(id) as JobRow });
    }
    return this.view(id);
  }

  /** Clears every job, aborting active ones; counts are by status as they stood before the reset. */
  reset(): { cleared: number; by_status: Record<string, number> } {
    const { store } = this.options;
    const before = store.jobs.countByStatus();
    const active = [...this.live.keys()];
    for (const id of active) {
      const row = store.jobs.get(id);
      const { status, error } = describeStop("reset", 0);
      this.abortLive(id, "reset");
      if (row) this.emit(id, { type: "ended", job: { ...row, status, error, end_reason: "reset", finished_at: this.now() } });
    }
    store.jobs.clear();
    const byStatus = Object.fromEntries(Object.entries(before).filter(([, n]) => (n ?? 0) > 0)) as Record<string, number>;
    const cleared = Object.values(byStatus).reduce((a, b) => a + b, 0);
    this.options.log.info("jobs reset", { cleared, aborted: active.length });
    return { cleared, by_status: byStatus };
  }

  /** A sync call that outlived its budget becomes an async job: it keeps running under the job timeout. */
  promote(id: string): void {
    const live = this.live.get(id);
    if (!live || live.mode === "async") return;
    live.mode = "async";
    this.options.store.jobs.setMode(id, "async");
    if (live.startedAt !== null) this.armDeadline(id, live, live.startedAt);
    this.options.log.info("sync call handed over to a job", { job: id });
  }

  subscribe(id: string, listener: (event: JobEvent) => void): () => void {
    let set = this.listeners.get(id);
    if (!set) this.listeners.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  /** Resolves with the job once it has ended, or with its current row after `timeoutMs` (or on abort); null if unknown. */
  waitForEnd(id: string, timeoutMs: number, signal?: AbortSignal): Promise<JobRow | null> {
    const row = this.options.store.jobs.get(id);
    if (!row || (row.status !== "pending" && row.status !== "running") || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(row);
    return new Promise((resolve) => {
      const done = (ended?: JobRow): void => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener("abort", onAbort);
        resolve(ended ?? this.options.store.jobs.get(id));
      };
      const onAbort = (): void => done();
      const timer = setTimeout(done, timeoutMs);
      const unsubscribe = this.subscribe(id, (event) => {
        if (event.type === "ended") done(event.job);
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Stops accepting jobs, aborts active ones (recorded as shutdown), and waits briefly for their requests to close. */
  async shutdown(graceMs = 5000): Promise<void> {
    this.closed = true;
    if (this.reaper) clearInterval(this.reaper);
    const runs = [...this.live.values()].map((live) => live.run).filter((run): run is Promise<void> => run !== null);
    for (const id of [...this.live.keys()]) this.stop(id, "shutdown");
    await Promise.race([Promise.allSettled(runs), Bun.sleep(graceMs)]);
  }

  get activeCount(): number {
    return this.live.size;
  }

  private deadlineMs(mode: "sync" | "async"): number {
    return mode === "sync" ? this.options.timeouts.requestMs : this.options.timeouts.jobMs;
  }

  private armDeadline(id: string, live: LiveJob, startedAt: number): void {
    if (live.deadline) clearTimeout(live.deadline);
    const remaining = Math.max(0, startedAt + this.deadlineMs(live.mode) - this.now());
    live.deadline = setTimeout(() => this.stop(id, "timeout"), remaining);
  }

  private begin(id: string, storedAsRunning = false): void {
    const live = this.live.get(id);
    if (!live || !(storedAsRunning || this.options.store.jobs.markRunning(id, this.now()))) {
      this.settle(id);
      return;
    }
    live.startedAt = this.now();
    live.tracker = new ProgressTracker(live.startedAt);
    this.armDeadline(id, live, live.startedAt);
    this.emit(id, { type: "started" });
    live.run = this.execute(id, live).finally(() => this.settle(id));
  }

  private async execute(id: string, live: LiveJob): Promise<void> {
    const { store, log } = this.options;
    const gateway = this.options.gateway as GatewayPort;
    const tracker = live.tracker as ProgressTracker;
    const sentSession = live.sessionLabel ? store.sessions.get(live.principal, live.sessionLabel) : null;
    const started = this.now();
    try {
      const result = await gateway.chat({
        prompt: live.prompt,
        sessionId: sentSession,
        // The job's own deadline timer ends it earlier; this is a backstop that also covers a promoted sync call.
        timeoutMs: Math.max(this.options.timeouts.requestMs, this.options.timeouts.jobMs) + 5000,
        signal: live.controller.signal,
        onEvent: (event: GatewayEvent) => {
          if (event.type === "text") tracker.text(event.delta);
          else if (event.type === "tool") {
            const toolEvent: ToolEvent = { tool: event.tool, status: event.status, label: event.label, emoji: event.emoji, toolCallId: event.toolCallId };
            this.emit(id, { type: "tool", line: tracker.tool(toolEvent), event: toolEvent });
          }
        },
        onRetry: ({ status, waitMs }) => {
          const note = `gateway ${status === 429 ? "busy" : "draining"}; retrying in ${Math.ceil(waitMs / 1000)} s`;
          tracker.remark(note);
          this.emit(id, { type: "retry", note });
        },
      });
      // The answer and the session id it threads on are committed together.
      const label = live.sessionLabel;
      const sessionId = result.sessionId;
      const recordSession = label && sessionId ? () => store.sessions.put(live.principal, label, sessionId, this.now()) : undefined;
      if (store.jobs.finish(id, { status: "completed", result: result.text, endReason: "completed", finishedAt: this.now() }, recordSession)) {
        log.info("job completed", { job: id, duration_ms: this.now() - started, answer_chars: result.text.length, session: live.sessionLabel });
        log.debug("job answer", { job: id, answer: result.text });
      }
    } catch (error) {
      const message = error instanceof GatewayError ? error.message : `internal error while talking to the gateway: ${(error as Error).message}`;
      const partial = error instanceof GatewayError ? (error.partialText ?? null) : null;
      const kind = error instanceof GatewayError ? error.kind : "internal";
      if (store.jobs.finish(id, { status: "failed", error: message, partial, endReason: kind, finishedAt: this.now() })) {
        log.warn("job failed", { job: id, duration_ms: this.now() - started, reason: kind });
      }
    }
  }

  private abortLive(id: string, reason: StopReason): void {
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
    this.live.delete(id);
    const next = this.queue.release(id);
    const row = this.options.store.jobs.get(id);
    if (row && row.status !== "pending" && row.status !== "running") this.emit(id, { type: "ended", job: row });
    if (next !== null) this.begin(next);
  }

  private emit(id: string, event: JobEvent): void {
    const set = this.listeners.get(id);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (error) {
        this.options.log.error("job listener failed", { job: id, error: (error as Error).message });
      }
    }
  }
}
