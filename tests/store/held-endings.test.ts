import { afterEach, describe, expect, test } from "bun:test";
import { HeldEndings } from "../../src/store/held-endings.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import type { JobEnd, NewJob } from "../../src/store/jobs.ts";
import { tempDbPaths } from "../support/store-fixtures.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const dbPath = tempDbPaths();

/** The daemon's store (it listens for held endings, as its JobService does) and a second connection to the same file (what the CLI has). */
function stores(): { store: Store; other: Store } {
  const path = dbPath();
  const [store, other] = [openStore(path), openStore(path)];
  store.jobs.held.listener = { held() {}, written() {} };
  cleanups.push(() => {
    other.close();
    store.close();
  });
  return { store, other };
}

/** From now on, a write that needs one more page fails as on a full disk (SQLITE_FULL); `room()` gives the room back. */
function fillDisk(store: Store): { room: () => void } {
  const pages = store.db.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;
  store.db.exec(`PRAGMA max_page_count = ${pages}`);
  return { room: () => store.db.exec("PRAGMA max_page_count = 1073741823") };
}

const job = (id: string, principal = "pat:a"): NewJob => ({
  id,
  principal,
  mode: "sync",
  promptChars: 5,
  sessionLabel: null,
  createdAt: 1000,
  startedAt: 1000,
});

// An answer that needs pages of its own (overflow pages), which a full disk cannot give.
const bigAnswer: JobEnd = { status: "completed", finishedAt: 2000, result: "x".repeat(200_000), endReason: "completed" };

describe("job endings a full disk refuses", () => {
  test("are answered from memory at once, never over-written by a later ending, and reach the file once there is room", async () => {
    const { store, other } = stores();
    const heard: string[] = [];
    store.jobs.held.listener = {
      held: (error) => heard.push(`held ${(error as { code?: string }).code}`),
      written: (count) => heard.push(`written ${count}`),
    };
    store.jobs.insert(job("j1"));
    const disk = fillDisk(store);
    const ended = store.jobs.finish("j1", bigAnswer);
    expect(ended).toMatchObject({ id: "j1", status: "completed", finished_at: 2000, end_reason: "completed" });
    expect(ended?.result).toHaveLength(200_000);
    expect(heard).toEqual(["held SQLITE_FULL"]);
    // This process reads and lists the ending; the file does not have it yet.
    expect(store.jobs.get("j1")?.status).toBe("completed");
    expect(store.jobs.pageOwned("pat:a", null, 10).map((j) => j.status)).toEqual(["completed"]);
    expect(store.jobs.list({ limit: 10 }).map((j) => j.status)).toEqual(["completed"]);
    expect(store.jobs.list({ limit: 10, status: "running" })).toEqual([]);
    expect(other.jobs.get("j1")?.status).toBe("running");
    // The first ending wins: a cancel arriving now changes nothing.
    expect(store.jobs.finish("j1", { status: "cancelled", finishedAt: 2500, endReason: "cancelled" })).toBeNull();
    // Room again: the retry (1 s after the failure) writes it.
    disk.room();
    const deadline = Date.now() + 3000;
    while (other.jobs.get("j1")?.status !== "completed" && Date.now() < deadline) await Bun.sleep(50);
    expect(other.jobs.get("j1")).toMatchObject({ status: "completed", finished_at: 2000 });
    expect(other.jobs.get("j1")?.result).toHaveLength(200_000);
    expect(heard).toEqual(["held SQLITE_FULL", "written 1"]);
    expect(store.jobs.held.size).toBe(0);
  });

  test("a job already ended in the file is not held (its ending stands), and an unknown one neither", () => {
    const { store, other } = stores();
    store.jobs.insert(job("j2"));
    expect(other.jobs.finish("j2", { status: "cancelled", finishedAt: 1500, endReason: "owner_cancelled" })).not.toBeNull();
    fillDisk(store);
    expect(store.jobs.finish("j2", bigAnswer)).toBeNull();
    expect(store.jobs.finish("nobody", bigAnswer)).toBeNull();
    expect(store.jobs.held.size).toBe(0);
    expect(store.jobs.get("j2")?.status).toBe("cancelled");
  });

  test("a held ending whose job is then ended by another process gives way to that ending", () => {
    const { store, other } = stores();
    store.jobs.insert(job("j3"));
    const disk = fillDisk(store);
    store.jobs.finish("j3", bigAnswer);
    other.jobs.finish("j3", { status: "cancelled", finishedAt: 1800, endReason: "owner_cancelled" });
    disk.room();
    expect(store.jobs.held.flush(true)).toBe(0);
    expect(store.jobs.get("j3")?.status).toBe("cancelled");
  });

  test("a reset forgets the held endings of the jobs it deletes, and no one else's", () => {
    const { store } = stores();
    store.jobs.insert(job("mine", "pat:a"));
    store.jobs.insert(job("theirs", "pat:b"));
    fillDisk(store);
    store.jobs.finish("mine", bigAnswer);
    store.jobs.finish("theirs", bigAnswer);
    expect(store.jobs.held.size).toBe(2);
    // Still full: the reset deletes rows (no new page needed) while both endings stay held.
    // Counted as what it ended as (its caller was answered so), not as the "running" the file still says.
    expect(store.jobs.clearFor("pat:a").counts).toEqual({ completed: 1 });
    expect(store.jobs.held.size).toBe(1);
    expect(store.jobs.get("mine")).toBeNull();
    expect(store.jobs.get("theirs", "pat:b")?.result).toHaveLength(200_000);
  });

  test("a held ending's session id, written late, never replaces the one a later turn on the same label recorded", () => {
    const { store } = stores();
    store.jobs.insert(job("first"));
    store.jobs.insert(job("follow-up"));
    const disk = fillDisk(store);
    store.jobs.finish("first", bigAnswer, () => store.sessions.put("pat:a", "trip", "s-first", 2000));
    expect(store.jobs.held.size).toBe(1);
    disk.room();
    // The follow-up ends later, on the id the gateway answered it with, and is written at once.
    store.jobs.finish("follow-up", { status: "completed", finishedAt: 3000, result: "ok", endReason: "completed" }, () =>
      store.sessions.put("pat:a", "trip", "s-follow-up", 3000),
    );
    expect(store.jobs.held.flush(true)).toBe(0);
    expect(store.jobs.get("first")?.status).toBe("completed");
    expect(store.sessions.get("pat:a", "trip")).toBe("s-follow-up");
  });

  test("a store nobody listens for (the CLI's) holds nothing: the refused ending throws, so the command can say nothing changed", () => {
    const { other } = stores();
    other.jobs.insert(job("cli"));
    fillDisk(other);
    expect(() => other.jobs.finish("cli", bigAnswer)).toThrow(/full/);
    expect(other.jobs.held.size).toBe(0);
    expect(other.jobs.get("cli")?.status).toBe("running");
  });

  test("a retry under another program's lock fails at once and backs off, instead of waiting out the busy timeout", () => {
    const { store, other } = stores();
    store.jobs.insert(job("locked"));
    const disk = fillDisk(store);
    store.jobs.finish("locked", bigAnswer);
    disk.room();
    other.db.exec("BEGIN EXCLUSIVE");
    try {
      const started = performance.now();
      expect(store.jobs.held.flush(true)).toBe(1);
      // SQLite's busy timeout is 5 s: a retry that waited it would stall the daemon's every request that long.
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      other.db.exec("ROLLBACK");
    }
    expect(store.jobs.held.flush(true)).toBe(0);
    expect(other.jobs.get("locked")?.status).toBe("completed");
  });

  test("the last try at shutdown waits out another program's short lock, as any write does", async () => {
    const { store } = stores();
    store.jobs.insert(job("last"));
    const disk = fillDisk(store);
    store.jobs.finish("last", bigAnswer);
    disk.room();
    // Another program (another process: a lock in this one could not be let go while the write waits) holds the lock 0.5 s.
    const path = store.db.filename;
    const holder = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { Database } = require("bun:sqlite"); const db = new Database(${JSON.stringify(path)}); db.exec("BEGIN EXCLUSIVE"); console.log("locked"); setTimeout(() => { db.exec("ROLLBACK"); db.close(); }, 500);`,
      ],
      { stdout: "pipe" },
    );
    const reader = holder.stdout.getReader();
    await reader.read();
    expect(store.jobs.held.flush(true)).toBe(1);
    expect(store.jobs.held.flush(true, true)).toBe(0);
    expect(store.jobs.get("last")?.status).toBe("completed");
    await holder.exited;
  });

  test("other errors are not held: they reach the caller", () => {
    const { store } = stores();
    store.jobs.insert(job("j4"));
    expect(() => store.jobs.finish("j4", { ...bigAnswer, status: "bogus" as "completed" })).toThrow(/CHECK constraint/);
    expect(store.jobs.held.size).toBe(0);
  });

  test("closing the store writes the held endings when the file takes them", () => {
    const { store, other } = stores();
    store.jobs.insert(job("j5"));
    const disk = fillDisk(store);
    store.jobs.finish("j5", bigAnswer);
    disk.room();
    store.close();
    expect(other.jobs.get("j5")?.status).toBe("completed");
  });
});

describe("the retries of held endings", () => {
  test("forced tries between them (each session-labelled job's start) keep the schedule: freed room is written at the next 1-s retry", async () => {
    const held = new HeldEndings();
    let full = true;
    let tries = 0;
    const write = (): void => {
      tries++;
      if (full) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    held.hold("j1", { write, row: {} as never }, new Error("full"));
    // Five follow-ups while the disk is full: each tries at once and fails.
    for (let i = 0; i < 5; i++) expect(held.flush(true)).toBe(1);
    expect(tries).toBe(5);
    full = false;
    // The first retry was due 1 s after the hold; backing off on each forced failure had pushed it to 30 s.
    await Bun.sleep(1300);
    expect(held.size).toBe(0);
    expect(tries).toBe(6);
  });

  test("a retry that fails still backs off, and the next one is armed", async () => {
    const held = new HeldEndings();
    let tries = 0;
    const write = (): void => {
      tries++;
      // The first retry meets a full disk too; the second finds room.
      if (tries === 1) throw new Error("full");
    };
    held.hold("j1", { write, row: {} as never }, new Error("full"));
    // 1 s: the first retry fails (backing off to 2 s); 3 s: the second succeeds.
    await Bun.sleep(1200);
    expect([tries, held.size]).toEqual([1, 1]);
    await Bun.sleep(2000);
    expect([tries, held.size]).toEqual([2, 0]);
  });
});
