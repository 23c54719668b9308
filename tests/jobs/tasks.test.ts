// Jobs as MCP tasks, below the MCP layer: the ttl a task is granted, reaping that honours it, and paging one principal's jobs.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatRequest, ChatResult } from "../../src/gateway/client.ts";
import { JobService, MIN_TASK_TTL_MS } from "../../src/jobs/service.ts";
import { silentLogger } from "../../src/log.ts";
import { openStore, type Store } from "../../src/store/index.ts";

const HOUR = 3_600_000;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A gateway whose turns the test ends by hand. */
class HeldGateway {
  calls: { request: ChatRequest; resolve: (r: ChatResult) => void }[] = [];
  chat(request: ChatRequest): Promise<ChatResult> {
    return new Promise((resolve, reject) => {
      this.calls.push({ request, resolve });
      request.signal?.addEventListener("abort", () => reject(new Error("aborted")));
    });
  }
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-tasks-"));
  const store: Store = openStore(join(dir, "db.sqlite"));
  const clock = { now: 1_000_000 };
  const gateway = new HeldGateway();
  const jobs = new JobService({
    store,
    gateway,
    limits: { maxConcurrent: 5, maxQueued: 10, maxStored: 100, retentionMs: 24 * HOUR },
    timeouts: { requestMs: 60_000, jobMs: 120_000 },
    log: silentLogger,
    now: () => clock.now,
  });
  cleanups.push(() => {
    void jobs.shutdown(0);
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { store, jobs, gateway, clock };
}

/** A task asking for `ttlMs` (null: none); `undefined` submits an ordinary job. */
const task = (jobs: JobService, ttlMs: number | null | undefined, principal = "pat:alice") =>
  jobs.submit({ principal, prompt: "p", sessionLabel: null, mode: "async", ...(ttlMs === undefined ? {} : { task: { ttlMs } }) });

describe("a task's ttl", () => {
  test("is granted within bounds: never under a minute, never past the retention; stored on the job", () => {
    const { jobs } = setup();
    expect(jobs.grantTaskTtl(5)).toBe(MIN_TASK_TTL_MS);
    expect(jobs.grantTaskTtl(2 * HOUR)).toBe(2 * HOUR);
    expect(jobs.grantTaskTtl(1000 * HOUR)).toBe(24 * HOUR);
    expect(task(jobs, 2 * HOUR).task_ttl_ms).toBe(2 * HOUR);
    // A task that asks for no ttl gets the retention; an ordinary job has none of its own.
    expect(task(jobs, null).task_ttl_ms).toBe(24 * HOUR);
    expect(task(jobs, undefined).task_ttl_ms).toBeNull();
  });

  test("reaping honours it: a finished task past its ttl goes, an active one stays until it ends, ordinary jobs keep the retention", async () => {
    const { jobs, gateway, clock } = setup();
    const short = task(jobs, 2 * MIN_TASK_TTL_MS);
    const active = task(jobs, MIN_TASK_TTL_MS);
    const ordinary = task(jobs, undefined);
    for (const i of [0, 2]) gateway.calls[i]?.resolve({ text: "done", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(short.id, null, 1000);
    await jobs.waitForEnd(ordinary.id, null, 1000);

    clock.now += 2 * MIN_TASK_TTL_MS - 1;
    expect(jobs.reap()).toBe(0);
    clock.now += 1;
    expect(jobs.reap()).toBe(1);
    expect(jobs.view(short.id, null).status).toBe("unknown");
    expect(jobs.view(active.id, null).status).toBe("running");
    expect(jobs.view(ordinary.id, null).status).toBe("completed");

    gateway.calls[1]?.resolve({ text: "late", sessionId: null, finishReason: "stop" });
    await jobs.waitForEnd(active.id, null, 1000);
    expect(jobs.reap()).toBe(1);
    expect(jobs.view(active.id, null).status).toBe("unknown");
    clock.now += 24 * HOUR;
    expect(jobs.reap()).toBe(1);
  });
});

describe("paging one principal's jobs", () => {
  test("newest first, resuming after the cursor without gaps or repeats, and never another principal's (not even a later generation)", () => {
    const { store, jobs } = setup();
    const mine: string[] = [];
    const insert = (principal: string, createdAt: number): string => {
      const id = crypto.randomUUID();
      store.jobs.insert({ id, principal, mode: "async", promptChars: 1, sessionLabel: null, createdAt });
      return id;
    };
    for (let i = 0; i < 7; i++) {
      // Two jobs per millisecond: the cursor must still order them.
      const createdAt = 1000 + Math.floor(i / 2);
      mine.push(insert("pat:alice", createdAt));
      insert("pat:alice#2b3c4d5e", createdAt);
      insert("pat:bob", createdAt);
    }
    const seen: string[] = [];
    let after = null;
    for (;;) {
      const page = jobs.page("pat:alice", after, 3);
      if (page.length === 0) break;
      expect(page.every((row) => row.principal === "pat:alice")).toBe(true);
      seen.push(...page.map((row) => row.id));
      const last = page.at(-1) as (typeof page)[number];
      after = { createdAt: last.created_at, id: last.id };
    }
    expect([...seen].sort()).toEqual([...mine].sort());
    expect(new Set(seen).size).toBe(7);
    const created = seen.map((id) => store.jobs.get(id)?.created_at ?? 0);
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });
});
