import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatRequest, ChatResult } from "../../src/gateway/client.ts";
import { GatewayError } from "../../src/gateway/errors.ts";
import { cancelJob as cancelStoredJob } from "../../src/jobs/admin.ts";
import { JobRefusedError, JobService } from "../../src/jobs/service.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { lockedForAWhile } from "../support/lock-holder.ts";
import { until } from "../support/until.ts";

/** A gateway stand-in whose calls the test finishes by hand; an aborted call rejects the way the real client does. */
class ScriptedGateway {
  calls: { request: ChatRequest; resolve: (r: ChatResult) => void; reject: (e: Error) => void; aborted: boolean }[] = [];
  chat(request: ChatRequest): Promise<ChatResult> {
    return new Promise((resolve, reject) => {
      const call = { request, resolve, reject, aborted: false };
      this.calls.push(call);
      request.signal?.addEventListener("abort", () => {
        call.aborted = true;
        reject(new GatewayError("aborted", "request to the Hermes gateway was cancelled"));
      });
    });
  }
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(
  overrides: {
    maxConcurrent?: number;
    maxQueued?: number;
    maxStored?: number;
    maxStoredTotal?: number;
    requestMs?: number;
    jobMs?: number;
    gateway?: ScriptedGateway | null;
    retentionMs?: number;
    log?: Logger;
    now?: () => number;
  } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-jobs-"));
  const path = join(dir, "db.sqlite");
  const store: Store = openStore(path);
  const gateway = overrides.gateway === undefined ? new ScriptedGateway() : overrides.gateway;
  const jobs = new JobService({
    store,
    gateway,
    missingGatewayMessage: "HERMES_API_KEY is not set",
    limits: {
      maxConcurrent: overrides.maxConcurrent ?? 2,
      maxQueued: overrides.maxQueued ?? 10,
      maxStored: overrides.maxStored ?? 100,
      maxStoredTotal: overrides.maxStoredTotal,
      retentionMs: overrides.retentionMs ?? 3_600_000,
    },
    timeouts: { requestMs: overrides.requestMs ?? 60_000, jobMs: overrides.jobMs ?? 120_000 },
    log: overrides.log ?? silentLogger,
    outsideEndingsEveryMs: 20,
    now: overrides.now,
  });
  jobs.start();
  cleanups.push(() => {
    void jobs.shutdown(0);
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { store, path, gateway: gateway as ScriptedGateway, jobs };
}

const ask = (jobs: JobService, prompt = "hello", sessionLabel: string | null = null) =>
  jobs.submit({ principal: "pat:test", prompt, sessionLabel, mode: "async" });

describe("JobService", () => {
  test("a job runs, stores the answer (not the prompt), and threads the gateway's session id", async () => {
    const { jobs, gateway, store } = setup();
    const job = ask(jobs, "secret prompt", "trip");
    expect(jobs.view(job.id, null).status).toBe("running");
    expect(gateway.calls[0]?.request.sessionId).toBeNull();
    gateway.calls[0]?.resolve({ text: "done", sessionId: "api-abc", finishReason: "stop" });
    const ended = await jobs.waitForEnd(job.id, null, 1000);
    expect(ended).toMatchObject({ status: "completed", result: "done", prompt_chars: 13 });
    expect(JSON.stringify(store.db.query("SELECT * FROM jobs").all())).not.toContain("secret prompt");
    const second = ask(jobs, "again", "trip");
    expect(gateway.calls[1]?.request.sessionId).toBe("api-abc");
    gateway.calls[1]?.resolve({ text: "ok", sessionId: "api-rotated", finishReason: "stop" });
    await jobs.waitForEnd(second.id, null, 1000);
    expect(store.sessions.get("pat:test", "trip")).toBe("api-rotated");
  });

  test("a job whose row cannot be written is refused, its gateway request closed, and its slot freed", async () => {
    const { jobs, gateway, store } = setup({ maxConcurrent: 1 });
    const insert = store.jobs.insert.bind(store.jobs);
    store.jobs.insert = () => {
      throw new Error("database or disk is full");
    };
    expect(() => ask(jobs)).toThrow("database or disk is full");
    // The request that went out before the write is closed; nothing of the job remains.
    expect(gateway.calls).toHaveLength(1);
    expect(gateway.calls.every((call) => call.aborted)).toBe(true);
    await Bun.sleep(0);
    expect(jobs.activeCount).toBe(0);
    expect(store.db.query("SELECT COUNT(*) AS n FROM jobs").get()).toEqual({ n: 0 });
    // The one slot is free again: the next job runs at once and ends normally.
    store.jobs.insert = insert;
    const next = ask(jobs);
    expect(jobs.view(next.id, null).status).toBe("running");
    gateway.calls.at(-1)?.resolve({ text: "fine", sessionId: null, finishReason: "stop" });
    expect(await jobs.waitForEnd(next.id, null, 1000)).toMatchObject({ status: "completed", result: "fine" });
  });

  test("a sync call's row is committed while the gateway works, before its answer; an async job's before its id returns", async () => {
    const { jobs, gateway, path } = setup();
    const cli = openStore(path);
    cleanups.unshift(() => cli.close());
    const queued = ask(jobs);
    // The id an async call answers with is already in the database.
    expect(cli.jobs.get(queued.id)).toMatchObject({ status: "running", mode: "async" });
    const sync = jobs.submit({ principal: "pat:test", prompt: "hello", sessionLabel: null, mode: "sync" });
    // This process reads it at once; another sees it once the event loop has slept.
    expect(jobs.view(sync.id, "pat:test").status).toBe("running");
    await Bun.sleep(20);
    expect(cli.jobs.get(sync.id)).toMatchObject({ status: "running", mode: "sync" });
    gateway.calls[1]?.resolve({ text: "answer", sessionId: null, finishReason: "stop" });
    expect(await jobs.waitForEnd(sync.id, "pat:test", 1000)).toMatchObject({ status: "completed", result: "answer" });
  });

  test("a sync call that ends before its row was written writes the row first, then its ending", async () => {
    const { jobs, gateway, store } = setup();
    const sync = jobs.submit({ principal: "pat:test", prompt: "hello", sessionLabel: null, mode: "sync" });
    const ended = jobs.waitForEnd(sync.id, "pat:test", 1000);
    gateway.calls[0]?.resolve({ text: "quick", sessionId: null, finishReason: "stop" });
    expect(await ended).toMatchObject({ status: "completed", result: "quick" });
    expect(store.db.query("SELECT status, result FROM jobs WHERE id = ?").get(sync.id)).toEqual({ status: "completed", result: "quick" });
  });

  test("a sync call whose row cannot be written ends failed, saying why, with its gateway request closed", async () => {
    const { jobs, gateway, store } = setup({ maxConcurrent: 1 });
    // The write fails the way a full disk fails it, for this one prompt length.
    store.db.exec(
      "CREATE TRIGGER full_disk BEFORE INSERT ON jobs WHEN NEW.prompt_chars = 7 BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    const sync = jobs.submit({ principal: "pat:test", prompt: "doomed!", sessionLabel: null, mode: "sync" });
    const ended = await jobs.waitForEnd(sync.id, "pat:test", 1000);
    expect(ended).toMatchObject({ status: "failed", end_reason: "not_stored" });
    expect(ended?.error).toBe("hermes-mcp could not store this job (database or disk is full); see its log");
    expect(gateway.calls[0]?.aborted).toBe(true);
    await Bun.sleep(0);
    expect(jobs.activeCount).toBe(0);
    expect(store.db.query("SELECT COUNT(*) AS n FROM jobs").get()).toEqual({ n: 0 });
    // The slot is free again and the stored-jobs count is right: the next call runs and ends normally.
    const next = jobs.submit({ principal: "pat:test", prompt: "fine", sessionLabel: null, mode: "sync" });
    gateway.calls.at(-1)?.resolve({ text: "ok", sessionId: null, finishReason: "stop" });
    expect(await jobs.waitForEnd(next.id, "pat:test", 1000)).toMatchObject({ status: "completed", result: "ok" });
    expect(store.jobs.counts("pat:test")).toEqual({ total: 1, mine: 1 });
  });

  test("a sync call answered before its row could be written still ends failed with the reason, not as an unknown job", async () => {
    const { jobs, gateway, store } = setup();
    store.db.exec(
      "CREATE TRIGGER full_disk BEFORE INSERT ON jobs WHEN NEW.prompt_chars = 7 BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    const sync = jobs.submit({ principal: "pat:test", prompt: "doomed!", sessionLabel: null, mode: "sync" });
    const ended = jobs.waitForEnd(sync.id, "pat:test", 1000);
    // The gateway answers within the millisecond: the ending is what tries the write.
    gateway.calls[0]?.resolve({ text: "lost", sessionId: null, finishReason: "stop" });
    expect(await ended).toMatchObject({
      status: "failed",
      end_reason: "not_stored",
      error: "hermes-mcp could not store this job (database or disk is full); see its log",
    });
    expect(store.db.query("SELECT COUNT(*) AS n FROM jobs").get()).toEqual({ n: 0 });
  });

  test("gateway failures are recorded with their message and any partial answer", async () => {
    const { jobs, gateway } = setup();
    const job = ask(jobs);
    gateway.calls[0]?.reject(
      Object.assign(new GatewayError("incomplete", "Hermes run was incomplete (length) — partial answer kept"), { partialText: "half" }),
    );
    const ended = await jobs.waitForEnd(job.id, null, 1000);
    expect(ended).toMatchObject({ status: "failed", partial: "half", end_reason: "incomplete" });
    expect(ended?.error).toContain("incomplete");
  });

  test("jobs beyond the concurrency limit wait in line, with their position, and start as slots free", async () => {
    const { jobs, gateway } = setup({ maxConcurrent: 1 });
    const a = ask(jobs);
    const b = ask(jobs);
    const c = ask(jobs);
    expect(jobs.view(b.id, null)).toMatchObject({ status: "pending", queue_position: 1 });
    expect(jobs.view(c.id, null)).toMatchObject({ status: "pending", queue_position: 2 });
    expect(gateway.calls.length).toBe(1);
    gateway.calls[0]?.resolve({ text: "a", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(a.id, null, 1000);
    expect(jobs.view(b.id, null).status).toBe("running");
    expect(jobs.view(c.id, null).queue_position).toBe(1);
  });

  test("a full queue and a full store refuse new jobs with what to do", () => {
    const { jobs } = setup({ maxConcurrent: 1, maxQueued: 1 });
    ask(jobs);
    ask(jobs);
    expect(() => ask(jobs)).toThrow(/HERMES_MCP_MAX_QUEUED_JOBS/);
    const small = setup({ maxStored: 10, maxConcurrent: 10, maxQueued: 10 });
    for (let i = 0; i < 10; i++) ask(small.jobs);
    expect(() => ask(small.jobs)).toThrow(JobRefusedError);
    expect(() => ask(small.jobs)).toThrow(/hermes_reset/);
  });

  test("without a gateway key, submitting says how to fix it", () => {
    const { jobs } = setup({ gateway: null });
    expect(() => ask(jobs)).toThrow("HERMES_API_KEY is not set");
  });

  test("cancel aborts the running request and records why; cancelling again changes nothing", async () => {
    const { jobs, gateway } = setup();
    const job = ask(jobs);
    const view = jobs.stop(job.id, "cancelled", null);
    expect(view.status).toBe("cancelled");
    expect(view.error).toContain("interrupt");
    expect(gateway.calls[0]?.aborted).toBe(true);
    const again = jobs.stop(job.id, "cancelled", null);
    expect(again.finished_at).toBe(view.finished_at);
    gateway.calls[0]?.resolve({ text: "too late", sessionId: null, finishReason: "stop" });
    await Bun.sleep(5);
    expect(jobs.view(job.id, null).status).toBe("cancelled");
  });

  test("a pending job cancelled never reaches the gateway", async () => {
    const { jobs, gateway } = setup({ maxConcurrent: 1 });
    const a = ask(jobs);
    const b = ask(jobs);
    jobs.stop(b.id, "cancelled", null);
    gateway.calls[0]?.resolve({ text: "a", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(a.id, null, 1000);
    expect(gateway.calls.length).toBe(1);
    expect(jobs.view(b.id, null).status).toBe("cancelled");
  });

  test("the deadline aborts the request and fails the job as a timeout", async () => {
    const { jobs, gateway } = setup({ requestMs: 50 });
    const job = jobs.submit({ principal: "p", prompt: "slow", sessionLabel: null, mode: "sync" });
    const ended = await jobs.waitForEnd(job.id, null, 2000);
    expect(ended).toMatchObject({ status: "failed", end_reason: "timeout" });
    expect(ended?.error).toContain("within 0 s");
    expect(gateway.calls[0]?.aborted).toBe(true);
  });

  test("a promoted sync call keeps running under the longer job deadline", async () => {
    const { jobs, gateway } = setup({ requestMs: 60, jobMs: 5000 });
    const job = jobs.submit({ principal: "p", prompt: "slow", sessionLabel: null, mode: "sync" });
    jobs.promote(job.id);
    await Bun.sleep(150);
    expect(jobs.view(job.id, null).status).toBe("running");
    gateway.calls[0]?.resolve({ text: "finally", sessionId: null, finishReason: "stop" });
    expect(await jobs.waitForEnd(job.id, null, 1000)).toMatchObject({ status: "completed", mode: "async" });
  });

  test("the wall clock set forward a day while a sync call runs: handed over, it still gets the whole job deadline", async () => {
    let wall = 1_700_000_000_000;
    const { jobs, gateway } = setup({ requestMs: 60_000, jobMs: 5000, now: () => wall });
    const job = jobs.submit({ principal: "p", prompt: "slow", sessionLabel: null, mode: "sync" });
    wall += 86_400_000;
    jobs.promote(job.id);
    await Bun.sleep(100);
    expect(jobs.view(job.id, null).status).toBe("running");
    gateway.calls[0]?.resolve({ text: "finally", sessionId: null, finishReason: "stop" });
    expect(await jobs.waitForEnd(job.id, null, 1000)).toMatchObject({ status: "completed", mode: "async" });
  });

  test("the wall clock stepped a day either way while a job runs: its progress says how long it really ran, and no approval stall", async () => {
    let wall = 1_700_000_000_000;
    const { jobs, gateway } = setup({ now: () => wall });
    const job = ask(jobs);
    await Bun.sleep(20);
    gateway.calls[0]?.request.onEvent?.({ type: "tool", tool: "terminal", status: "running", label: "ls" });
    for (const step of [86_400_000, -2 * 86_400_000]) {
      wall += step;
      const progress = jobs.view(job.id, null).progress;
      expect(progress?.elapsed_seconds).toBeLessThan(5);
      expect(progress?.current_tool).toBe("terminal: ls (running)");
      expect(progress?.note).toBeNull();
    }
    gateway.calls[0]?.resolve({ text: "done", sessionId: null, finishReason: "stop" });
    expect((await jobs.waitForEnd(job.id, null, 1000))?.status).toBe("completed");
  });

  test("reset clears everything, counted by status before the reset, and aborts active requests", async () => {
    const { jobs, gateway } = setup({ maxConcurrent: 1 });
    const done = ask(jobs);
    gateway.calls[0]?.resolve({ text: "x", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(done.id, null, 1000);
    const running = ask(jobs);
    ask(jobs);
    ask(jobs);
    const waiter = jobs.waitForEnd(running.id, null, 2000);
    expect(jobs.reset("pat:test")).toEqual({ cleared: 4, by_status: { completed: 1, running: 1, pending: 2 } });
    expect(gateway.calls[1]?.aborted).toBe(true);
    expect((await waiter)?.status).toBe("cancelled");
    expect(jobs.view(running.id, null).status).toBe("unknown");
    expect(gateway.calls.length).toBe(2);
  });

  test("a reset the database refuses stops nothing: the caller hears why and the running job goes on", async () => {
    const { jobs, gateway, store, path } = setup();
    const running = ask(jobs);
    const other = new Database(path);
    cleanups.push(() => other.close());
    other.exec("BEGIN IMMEDIATE");
    // As after a write that waited the whole busy timeout: this one fails at once.
    store.lockWait.ranOut();
    expect(() => jobs.reset("pat:test")).toThrow(/locked/);
    other.exec("ROLLBACK");
    expect(gateway.calls[0]?.aborted).toBe(false);
    expect(jobs.view(running.id, null).status).toBe("running");
    gateway.calls[0]?.resolve({ text: "kept", sessionId: null, finishReason: "stop" });
    expect(await jobs.waitForEnd(running.id, null, 1000)).toMatchObject({ status: "completed", result: "kept" });
  });

  test("a reset waits out another connection's short commit instead of failing at once", async () => {
    const { jobs, gateway, path } = setup();
    const done = ask(jobs);
    gateway.calls[0]?.resolve({ text: "x", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(done.id, null, 1000);
    cleanups.push(await lockedForAWhile(path, 300));
    expect(jobs.reset("pat:test")).toEqual({ cleared: 1, by_status: { completed: 1 } });
  });

  test("progress shows tool events and answer length while running", async () => {
    const { jobs, gateway } = setup();
    const job = ask(jobs);
    const seen: string[] = [];
    jobs.subscribe(job.id, (e) => {
      if (e.type === "tool") seen.push(e.line);
    });
    const onEvent = gateway.calls[0]?.request.onEvent;
    onEvent?.({ type: "tool", tool: "web_search", status: "running", emoji: "🔎", label: "news" });
    onEvent?.({ type: "text", delta: "abc" });
    const progress = jobs.view(job.id, null).progress;
    expect(progress?.current_tool).toBe("🔎 web_search: news (running)");
    expect(progress?.answer_chars).toBe(3);
    expect(seen).toEqual(["🔎 web_search: news (running)"]);
  });

  test("waitForEnd returns the current state when time runs out", async () => {
    const { jobs } = setup();
    const job = ask(jobs);
    expect((await jobs.waitForEnd(job.id, null, 20))?.status).toBe("running");
    expect(await jobs.waitForEnd("nope", null, 20)).toBeNull();
  });

  test("shutdown interrupts active jobs and records it", async () => {
    const { jobs, gateway } = setup();
    const job = ask(jobs);
    await jobs.shutdown(500);
    expect(gateway.calls[0]?.aborted).toBe(true);
    expect(jobs.view(job.id, null)).toMatchObject({ status: "failed", end_reason: "shutdown" });
    expect(() => ask(jobs)).toThrow(/shutting down/);
  });
});

const askAs = (jobs: JobService, principal: string, prompt = "hello") =>
  jobs.submit({ principal, prompt, sessionLabel: null, mode: "async" });

describe("JobService: jobs belong to the principal that created them", () => {
  test("another principal's job reads, cancels and waits exactly like an id that never existed — and keeps running", async () => {
    const { jobs, gateway } = setup();
    const mine = askAs(jobs, "alice");
    const never = jobs.view("never-issued", "bob");
    const asUnknown = (view: object) => ({ ...view, job_id: "never-issued" });
    expect(asUnknown(jobs.view(mine.id, "bob"))).toEqual(never);
    expect(asUnknown(jobs.stop(mine.id, "cancelled", "bob"))).toEqual(never);
    expect(await jobs.waitForEnd(mine.id, "bob", 1000)).toBeNull();
    expect(gateway.calls[0]?.aborted).toBe(false);
    expect(jobs.view(mine.id, "alice").status).toBe("running");
    expect(jobs.stop(mine.id, "cancelled", "alice").status).toBe("cancelled");
    expect(gateway.calls[0]?.aborted).toBe(true);
  });

  test("reset clears and counts only the caller's jobs; another's running job keeps running", async () => {
    const { jobs, gateway } = setup();
    const alices = askAs(jobs, "alice");
    const bobs = askAs(jobs, "bob");
    gateway.calls[1]?.resolve({ text: "bob's", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(bobs.id, null, 1000);
    expect(jobs.reset("bob")).toEqual({ cleared: 1, by_status: { completed: 1 } });
    expect(gateway.calls[0]?.aborted).toBe(false);
    expect(jobs.view(alices.id, "alice").status).toBe("running");
    expect(jobs.view(bobs.id, null).status).toBe("unknown");
  });

  test("the stored-jobs cap is per principal; the global backstop still holds", () => {
    const { jobs } = setup({ maxStored: 3, maxStoredTotal: 5, maxConcurrent: 10 });
    for (let i = 0; i < 3; i++) askAs(jobs, "bob");
    expect(() => askAs(jobs, "bob")).toThrow(/per-client limit.*hermes_reset/);
    askAs(jobs, "alice");
    askAs(jobs, "alice");
    expect(() => askAs(jobs, "carol")).toThrow(/job store is full \(5 jobs across all clients\)/);
  });
});

describe("JobService: every ending is written once and announced once", () => {
  const endedCount = (jobs: JobService, id: string) => {
    const seen: (string | undefined)[] = [];
    jobs.subscribe(id, (event) => {
      if (event.type === "ended") seen.push(event.job?.status);
    });
    return seen;
  };

  test("a cancel racing the gateway's answer: the cancel wins, one ended event", async () => {
    const { jobs, gateway } = setup();
    const job = ask(jobs);
    const seen = endedCount(jobs, job.id);
    jobs.stop(job.id, "cancelled", null);
    gateway.calls[0]?.resolve({ text: "late", sessionId: null, finishReason: "stop" });
    await Bun.sleep(10);
    jobs.stop(job.id, "cancelled", null);
    expect(seen).toEqual(["cancelled"]);
  });

  test("a completion, a reset and a timeout each announce once", async () => {
    const { jobs, gateway } = setup({ requestMs: 30 });
    const done = ask(jobs);
    const doneSeen = endedCount(jobs, done.id);
    gateway.calls[0]?.resolve({ text: "x", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(done.id, null, 1000);
    const cleared = ask(jobs);
    const clearedSeen = endedCount(jobs, cleared.id);
    jobs.reset("pat:test");
    const slow = jobs.submit({ principal: "p", prompt: "slow", sessionLabel: null, mode: "sync" });
    const slowSeen = endedCount(jobs, slow.id);
    await jobs.waitForEnd(slow.id, null, 2000);
    await Bun.sleep(20);
    expect([doneSeen, clearedSeen, slowSeen]).toEqual([["completed"], ["cancelled"], ["failed"]]);
  });

  test("a job cancelled by another process (the owner's CLI) is interrupted at the gateway and announced", async () => {
    const { jobs, gateway, path } = setup();
    const job = ask(jobs);
    const waiting = jobs.waitForEnd(job.id, "pat:test", 5000);
    const cli = openStore(path);
    try {
      expect(cancelStoredJob(cli, job.id.slice(0, 8)).cancelled).toBe(true);
    } finally {
      cli.close();
    }
    expect(await waiting).toMatchObject({ status: "cancelled", end_reason: "owner_cancelled" });
    expect(gateway.calls[0]?.aborted).toBe(true);
    await Bun.sleep(10);
    expect(jobs.activeCount).toBe(0);
  });

  test("after an idle spell (no probe running), a job that goes live is watched again: a CLI cancel still interrupts it", async () => {
    const { jobs, gateway, path } = setup();
    const first = ask(jobs, "first");
    gateway.calls[0]?.resolve({ text: "done", sessionId: null, finishReason: "stop" });
    expect(await jobs.waitForEnd(first.id, "pat:test", 2000)).toMatchObject({ status: "completed" });
    // Several probe periods with nothing live (the probe stops with the last live job).
    await Bun.sleep(100);
    const cli = openStore(path);
    try {
      const second = ask(jobs, "second");
      const waiting = jobs.waitForEnd(second.id, "pat:test", 5000);
      expect(cancelStoredJob(cli, second.id.slice(0, 8)).cancelled).toBe(true);
      expect(await waiting).toMatchObject({ status: "cancelled", end_reason: "owner_cancelled" });
    } finally {
      cli.close();
    }
    expect(gateway.calls[1]?.aborted).toBe(true);
  });

  test("with no live job the database is not probed for outside endings; with one it is, every period", async () => {
    const { jobs, gateway, store } = setup();
    let probes = 0;
    const dataVersion = store.dataVersion;
    store.dataVersion = () => {
      probes++;
      return dataVersion();
    };
    const first = ask(jobs, "first");
    gateway.calls[0]?.resolve({ text: "done", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(first.id, "pat:test", 2000);
    probes = 0;
    // Seven probe periods (20 ms) with nothing live: an idle daemon reads nothing.
    await Bun.sleep(150);
    expect(probes).toBe(0);
    ask(jobs, "second");
    await Bun.sleep(150);
    expect(probes).toBeGreaterThanOrEqual(3);
  });
});

describe("JobService: a database that refuses writes (a full disk, a read-only file)", () => {
  const lines: string[] = [];
  const log: Logger = { ...silentLogger, error: (message) => void lines.push(message) };

  test("a new job is refused saying why, with no path in it; the reaper's failed delete is told, and the service goes on", async () => {
    lines.length = 0;
    // Retention 24 s: the reaper runs every second.
    const { store, path, gateway, jobs } = setup({ retentionMs: 24_000, log });
    store.db.exec("PRAGMA query_only = ON");
    let refused: unknown;
    try {
      jobs.submit({ principal: "pat:a", prompt: "hi", sessionLabel: null, mode: "async" });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(JobRefusedError);
    expect((refused as Error).message).toBe(
      "hermes-mcp cannot write its database right now: its database cannot be written. Try again once its owner has fixed that.",
    );
    // Its gateway request, sent before the row was written, is closed again.
    expect(gateway.calls).toHaveLength(1);
    expect(gateway.calls.every((call) => call.aborted)).toBe(true);
    expect(lines).toEqual([
      `cannot store a new job: ${path} cannot be written (a read-only file, folder or filesystem); hermes-mcp keeps running and writes again once it can`,
    ]);
    const reaperLine = `cannot delete expired jobs: ${path} cannot be written (a read-only file, folder or filesystem); hermes-mcp keeps running and writes again once it can`;
    await until("the reaper's line", () => lines.includes(reaperLine), 5000);
    expect(lines).toContain(reaperLine);
    store.db.exec("PRAGMA query_only = OFF");
    jobs.submit({ principal: "pat:a", prompt: "again", sessionLabel: null, mode: "async" });
    expect(gateway.calls.at(-1)?.aborted).toBe(false);
  });

  test("a queued job the database cannot start fails saying why; the answer that freed its slot is held and still read", async () => {
    lines.length = 0;
    const { store, path, gateway, jobs } = setup({ maxConcurrent: 1, log });
    const first = ask(jobs, "first");
    const second = ask(jobs, "second");
    expect(jobs.view(second.id, null).status).toBe("pending");
    store.db.exec("PRAGMA query_only = ON");
    gateway.calls[0]?.resolve({ text: "done", sessionId: null, finishReason: "stop" });
    await Bun.sleep(20);
    // The first job's ending waits in memory; the second never reached the gateway.
    expect(jobs.view(first.id, null)).toMatchObject({ status: "completed", result: "done" });
    expect(jobs.view(second.id, null)).toMatchObject({
      status: "failed",
      error:
        "hermes-mcp cannot write its database right now: its database cannot be written. Try again once its owner has fixed that. The job was not started.",
    });
    expect(gateway.calls).toHaveLength(1);
    expect(lines).toContain(
      `cannot start a queued job: ${path} cannot be written (a read-only file, folder or filesystem); hermes-mcp keeps running and writes again once it can`,
    );
    store.db.exec("PRAGMA query_only = OFF");
    expect(store.jobs.held.flush(true)).toBe(0);
    expect(store.jobs.get(second.id)?.status).toBe("failed");
  });

  test("a follow-up on the same session label threads on the id a held ending carries, as soon as the database takes writes", async () => {
    lines.length = 0;
    const { store, gateway, jobs } = setup({ log });
    const first = jobs.submit({ principal: "pat:a", prompt: "first", sessionLabel: "trip", mode: "async" });
    store.db.exec("PRAGMA query_only = ON");
    gateway.calls[0]?.resolve({ text: "done", sessionId: "api-held", finishReason: "stop" });
    await Bun.sleep(20);
    expect(jobs.view(first.id, null).status).toBe("completed");
    expect(store.jobs.held.size).toBe(1);
    // Writable again well within the held ending's first retry (1 s): the follow-up must not start a new conversation.
    store.db.exec("PRAGMA query_only = OFF");
    for (const mode of ["async", "sync"] as const) {
      jobs.submit({ principal: "pat:a", prompt: "follow-up", sessionLabel: "trip", mode });
      expect(gateway.calls.at(-1)?.request.sessionId).toBe("api-held");
    }
    expect(store.jobs.held.size).toBe(0);
  });

  test("a lock met by an ending while others are already held still makes the next endings fail at once", async () => {
    lines.length = 0;
    const { store, path, gateway, jobs } = setup({ maxConcurrent: 3, log });
    const [a, b, c] = [ask(jobs, "a"), ask(jobs, "b"), ask(jobs, "c")];
    // One ending already held (a read-only moment), so the next one held is not the first.
    store.db.exec("PRAGMA query_only = ON");
    gateway.calls[0]?.resolve({ text: "a", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(a.id, null, 1000);
    store.db.exec("PRAGMA query_only = OFF");
    expect(store.jobs.held.size).toBe(1);
    const other = new Database(path);
    cleanups.push(() => other.close());
    other.exec("BEGIN IMMEDIATE");
    // b's ending waits the whole busy timeout, then is held too; c's must not wait again.
    gateway.calls[1]?.resolve({ text: "b", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(b.id, null, 10_000);
    expect(store.lockWait.patient).toBe(false);
    const started = performance.now();
    gateway.calls[2]?.resolve({ text: "c", sessionId: null, finishReason: "stop" });
    expect(await jobs.waitForEnd(c.id, null, 10_000)).toMatchObject({ status: "completed", result: "c" });
    expect(performance.now() - started).toBeLessThan(1000);
    other.exec("ROLLBACK");
    await until("every held ending written", () => store.jobs.held.size === 0, 5000);
  }, 20_000);

  test("a reset announces a job another process ended meanwhile as that ending left it", async () => {
    const { store, path, jobs } = setup({ maxConcurrent: 1 });
    ask(jobs, "running");
    const queued = ask(jobs, "queued");
    const ended = jobs.waitForEnd(queued.id, null, 2000);
    // The owner's `hermes-mcp jobs cancel`, committed before the daemon's probe noticed it.
    const cli = new Database(path);
    cli.query("UPDATE jobs SET status = 'cancelled', finished_at = 1, end_reason = 'owner_cancelled' WHERE id = ?").run(queued.id);
    cli.close();
    jobs.reset("pat:test");
    expect(await ended).toMatchObject({ status: "cancelled", end_reason: "owner_cancelled" });
    expect(store.jobs.get(queued.id)).toBeNull();
  });

  test("a sync call handed over to a job while the database refuses writes runs on as a job", async () => {
    lines.length = 0;
    const { store, gateway, jobs } = setup({ log });
    const job = jobs.submit({ principal: "pat:a", prompt: "long", sessionLabel: null, mode: "sync" });
    await Bun.sleep(5);
    store.db.exec("PRAGMA query_only = ON");
    expect(() => jobs.promote(job.id)).not.toThrow();
    expect(lines.some((line) => line.startsWith("cannot record a sync call handed over to a job:"))).toBe(true);
    store.db.exec("PRAGMA query_only = OFF");
    gateway.calls[0]?.resolve({ text: "later", sessionId: null, finishReason: "stop" });
    await Bun.sleep(20);
    expect(jobs.view(job.id, null)).toMatchObject({ status: "completed", result: "later" });
  });
});
