import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "../../src/store/index.ts";
import { type JobRow, type NewJob, WRITE_SOON_MS } from "../../src/store/jobs.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A store and a second connection to the same file (what the CLI has). */
function stores(): { store: Store; other: Store; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-soon-"));
  const path = join(dir, "db.sqlite");
  const store = openStore(path);
  const other = openStore(path);
  cleanups.push(() => {
    other.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { store, other, path };
}

const job = (id: string, promptChars = 5): NewJob => ({
  id,
  principal: "pat:a",
  mode: "sync",
  promptChars,
  sessionLabel: null,
  createdAt: 1000,
  startedAt: 1000,
});

const never = (): void => {
  throw new Error("no write should fail here");
};

describe("JobStore.insertSoon", () => {
  test("the row reads back at once as insert() would write it, reaches the file within WRITE_SOON_MS, and is counted", async () => {
    const { store, other } = stores();
    store.jobs.insert({ ...job("now"), startedAt: undefined });
    store.jobs.insertSoon(job("soon"), never);
    const expected: JobRow = {
      id: "soon",
      principal: "pat:a",
      mode: "sync",
      status: "running",
      prompt_chars: 5,
      session_label: null,
      created_at: 1000,
      started_at: 1000,
      finished_at: null,
      result: null,
      partial: null,
      error: null,
      end_reason: null,
      task_ttl_ms: null,
    };
    expect(store.jobs.get("soon", "pat:a")).toEqual(expected);
    // Ownership holds for it as for any row.
    expect(store.jobs.get("soon", "pat:b")).toBeNull();
    expect(other.jobs.get("soon")).toBeNull();
    await Bun.sleep(WRITE_SOON_MS + 30);
    expect(other.jobs.get("soon")).toEqual(expected);
    expect(store.jobs.counts("pat:a")).toEqual({ total: 2, mine: 2 });
  });

  test("any other read or write of the store writes it first", () => {
    const { store, other } = stores();
    const reads: [string, () => unknown][] = [
      ["activeIds", () => expect(store.jobs.activeIds().has("j1")).toBe(true)],
      ["list", () => expect(store.jobs.list({ limit: 10 }).map((row) => row.id)).toContain("j2")],
      ["pageOwned", () => expect(store.jobs.pageOwned("pat:a", null, 10).map((row) => row.id)).toContain("j3")],
      ["countByStatus", () => expect(store.jobs.countByStatus("pat:a").running).toBe(4)],
      ["findByIdPrefix", () => expect(store.jobs.findByIdPrefix("j5-x")).toEqual([])],
      ["setMode", () => store.jobs.setMode("j6", "async")],
    ];
    for (const [index, [name, read]] of reads.entries()) {
      const id = `j${index + 1}`;
      store.jobs.insertSoon(job(id), never);
      read();
      expect([name, other.jobs.get(id)?.id]).toEqual([name, id]);
    }
    expect(other.jobs.get("j6")?.mode).toBe("async");
    // An ending commits the row and then the ending.
    store.jobs.insertSoon(job("ends"), never);
    expect(store.jobs.finish("ends", { status: "completed", result: "done", finishedAt: 2000, endReason: "completed" })).toMatchObject({
      status: "completed",
      result: "done",
    });
    expect(other.jobs.get("ends")).toMatchObject({ status: "completed", result: "done", created_at: 1000 });
  });

  test("a write that fails is told to its own job once every held row was tried, never thrown into the operation that wrote it", () => {
    const { store, other } = stores();
    store.db.exec(
      "CREATE TRIGGER full_disk BEFORE INSERT ON jobs WHEN NEW.prompt_chars = 99 BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    const failures: [string, string][] = [];
    store.jobs.insertSoon(job("doomed", 99), (error, row) => failures.push([row.id, error.message]));
    store.jobs.insertSoon(job("fine"), never);
    expect(store.jobs.list({ limit: 10 }).map((row) => row.id)).toEqual(["fine"]);
    expect(failures).toEqual([["doomed", "database or disk is full"]]);
    expect(other.jobs.get("doomed")).toBeNull();
    expect(store.jobs.get("doomed")).toBeNull();
    // The failed row was counted when handed over: the count is taken again.
    expect(store.jobs.counts("pat:a")).toEqual({ total: 1, mine: 1 });
  });

  test("closing the store writes what it still holds", () => {
    const { path } = stores();
    const store = openStore(path);
    store.jobs.insertSoon(job("last"), never);
    store.close();
    const reopened = openStore(path);
    try {
      expect(reopened.jobs.get("last")).toMatchObject({ status: "running" });
    } finally {
      reopened.close();
    }
  });
});
