import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { openDatabase, StoreError } from "../../src/store/database.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { inspectStore, openStore } from "../../src/store/index.ts";
import type { JobRow } from "../../src/store/jobs.ts";

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-store-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("openDatabase", () => {
  test("creates a private folder and file, in WAL mode, at the latest schema", () => {
    const path = join(tempDir(), "nested", "hermes-mcp.db");
    const { db } = openDatabase(path);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(MIGRATIONS.length);
    db.close();
  });

  test("tightens modes that were loosened, and says so", () => {
    const path = join(tempDir(), "db", "hermes-mcp.db");
    openDatabase(path).db.close();
    chmodSync(path, 0o644);
    const { db, fixes } = openDatabase(path);
    db.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(fixes.join("\n")).toContain("644");
  });

  test("refuses a database from a newer version instead of corrupting it", () => {
    const path = join(tempDir(), "hermes-mcp.db");
    const db = new Database(path);
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 5}`);
    db.close();
    expect(() => openDatabase(path)).toThrow(StoreError);
    expect(() => openDatabase(path)).toThrow(`the database ${path} was written by a newer hermes-mcp (schema ${MIGRATIONS.length + 5}`);
  });

  test("another program's database is left untouched, and the error says what to set", () => {
    const folder = join(tempDir(), "theirs");
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    const path = join(folder, "state.db");
    const other = new Database(path);
    other.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY); INSERT INTO sessions VALUES ('theirs')");
    other.close();
    expect(() => openDatabase(path)).toThrow("holds another program's tables and no hermes-mcp schema");
    const after = new Database(path, { readonly: true });
    const tables = after.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    expect(tables.map((t) => t.name)).toEqual(["sessions"]);
    expect(after.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(0);
    // Not even switched to WAL (the journal mode is written into the file).
    expect(after.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("delete");
    expect(statSync(folder).mode & 0o777).toBe(0o755);
    after.close();
    // An empty SQLite file (touched, or created by an earlier attempt) is ours to set up.
    const empty = join(tempDir(), "empty.db");
    new Database(empty).close();
    openDatabase(empty).db.close();
  });

  test("a file that is not a database (or is damaged) is named as such, with both ways out", () => {
    const path = join(tempDir(), "hermes-mcp.db");
    writeFileSync(path, "not a database, just text that is long enough to fill the SQLite header and then some more bytes");
    expect(() => openDatabase(path)).toThrow(
      `the database ${path} is not a database hermes-mcp can read (file is not a database: another program's file, or a damaged one): set HERMES_MCP_DB_PATH to a file of its own, put a backup in its place (\`hermes-mcp restore FILE\`), or move this one aside`,
    );
  });

  test("a damaged database (its first page overwritten) gets the same two ways out", () => {
    const path = join(tempDir(), "hermes-mcp.db");
    const made = new Database(path);
    made.exec("PRAGMA journal_mode = DELETE; CREATE TABLE t (x)");
    made.close();
    const bytes = readFileSync(path);
    bytes.fill(0xff, 100, 4096);
    writeFileSync(path, bytes);
    expect(() => openDatabase(path)).toThrow(
      `the database ${path} is not a database hermes-mcp can read (database disk image is malformed: another program's file, or a damaged one)`,
    );
  });

  test("a path that cannot be created gives an error naming HERMES_MCP_DB_PATH", () => {
    expect(() => openDatabase("/proc/hermes-mcp-test/x.db")).toThrow(/HERMES_MCP_DB_PATH/);
  });
});

describe("inspectStore", () => {
  test("reads the database as it is: SQLite refuses a write, nothing is left beside it, an older one is not read", () => {
    const dir = tempDir();
    const path = join(dir, "hermes-mcp.db");
    openStore(path).close();
    const store = inspectStore(path);
    expect(store.jobs.list({ limit: 5 }).length).toBe(0);
    expect(() => store.db.exec("DELETE FROM jobs")).toThrow(/readonly|read-only/i);
    store.close();
    expect(readdirSync(dir)).toEqual(["hermes-mcp.db"]);
    const old = join(dir, "old.db");
    const db = new Database(old);
    for (const sql of MIGRATIONS.slice(0, 3)) db.exec(sql);
    db.exec("PRAGMA user_version = 3");
    db.close();
    expect(() => inspectStore(old)).toThrow(`was written by an older hermes-mcp (schema 3; this one writes ${MIGRATIONS.length})`);
    expect(new Database(old).query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(3);
    expect(() => inspectStore(join(dir, "missing.db"))).toThrow(StoreError);
    expect(readdirSync(dir).sort()).toEqual(["hermes-mcp.db", "old.db"]);
  });
});

describe("JobStore", () => {
  const newStore = () => openStore(join(tempDir(), "hermes-mcp.db"));
  const job = (id: string, createdAt = 1000) => ({
    id,
    principal: "p",
    mode: "async" as const,
    promptChars: 5,
    sessionLabel: null,
    createdAt,
  });

  test("only an active job can end, and the first ending wins", () => {
    const path = join(tempDir(), "hermes-mcp.db");
    const store = openStore(path);
    store.jobs.insert(job("a"));
    expect(store.jobs.markRunning("a", 1100)).toBe(true);
    expect(store.jobs.markRunning("a", 1200)).toBe(false);
    const ended = store.jobs.finish("a", { status: "cancelled", error: "x", endReason: "cancelled", finishedAt: 1300 });
    // The ended row comes back exactly as a later read finds it.
    expect(ended).toMatchObject({ status: "cancelled", result: null, finished_at: 1300, started_at: 1100 });
    expect(store.jobs.finish("a", { status: "completed", result: "late", endReason: "completed", finishedAt: 1400 })).toBeNull();
    expect(store.jobs.get("a")).toEqual(ended as JobRow);
    store.close();
    // …and as another connection reads it from the file.
    const fresh = openStore(path);
    expect(fresh.jobs.get("a")).toEqual(ended as JobRow);
    fresh.close();
  });

  test("the row an ending returns is the row another connection reads from the file, every column and their order", () => {
    const path = join(tempDir(), "hermes-mcp.db");
    const store = openStore(path);
    store.jobs.insert({ ...job("t"), mode: "sync", sessionLabel: "chat", startedAt: 1050, taskTtlMs: 60_000 });
    const ended = store.jobs.finish("t", {
      status: "completed",
      result: "the answer",
      partial: "the",
      endReason: "completed",
      finishedAt: 1300,
    });
    const fresh = openStore(path);
    expect(JSON.stringify(fresh.jobs.get("t"))).toBe(JSON.stringify(ended));
    expect(ended).toMatchObject({ mode: "sync", session_label: "chat", task_ttl_ms: 60_000, result: "the answer", partial: "the" });
    fresh.close();
    store.close();
  });

  test("jobs left active by a dead process become failed, with the reason", () => {
    const store = newStore();
    store.jobs.insert(job("pending"));
    store.jobs.insert(job("running"));
    store.jobs.markRunning("running", 1);
    store.jobs.insert(job("done"));
    store.jobs.finish("done", { status: "completed", result: "ok", endReason: "completed", finishedAt: 2 });
    expect(store.jobs.failAbandoned(5000, "restarted").sort()).toEqual(["pending", "running"]);
    expect(store.jobs.get("running")).toMatchObject({ status: "failed", error: "restarted", end_reason: "restart" });
    expect(store.jobs.get("done")?.status).toBe("completed");
    store.close();
  });

  test("reaps only terminal jobs older than the cut-off; clearing a principal counts by status", () => {
    const store = newStore();
    store.jobs.insert(job("old"));
    store.jobs.finish("old", { status: "completed", result: "", endReason: "completed", finishedAt: 1100 });
    store.jobs.insert(job("new"));
    store.jobs.finish("new", { status: "failed", error: "e", endReason: "x", finishedAt: 1900 });
    store.jobs.insert(job("active"));
    expect(store.jobs.reapFinishedBefore(1500)).toBe(1);
    expect(store.jobs.get("old")).toBeNull();
    expect(store.jobs.clearFor("p").counts).toEqual({ failed: 1, pending: 1 });
    expect(store.jobs.counts("p")).toEqual({ total: 0, mine: 0 });
    store.close();
  });

  test("a job whose clock stepped back between its creation and its ending is reaped once both are past", () => {
    const store = newStore();
    store.jobs.insert(job("stepped", 1000));
    store.jobs.finish("stepped", { status: "completed", result: "", endReason: "completed", finishedAt: 100 });
    expect(store.jobs.reapFinishedBefore(500)).toBe(0);
    expect(store.jobs.reapFinishedBefore(1001)).toBe(1);
    expect(store.jobs.get("stepped")).toBeNull();
    store.close();
  });

  test("a job's ending writes its row and one page of the active jobs' index: 2 WAL frames (more only when a page splits)", () => {
    const path = join(tempDir(), "hermes-mcp.db");
    const store = openStore(path);
    // Enough jobs, of several principals and every ending, that each index spans many pages.
    const endings = ["completed", "failed", "cancelled"] as const;
    for (let i = 0; i < 600; i++) {
      const id = crypto.randomUUID();
      store.jobs.insert({ ...job(id, 1000 + i), principal: `p${i % 3}` });
      if (i % 10 !== 0)
        store.jobs.finish(id, {
          status: endings[i % 3] as (typeof endings)[number],
          result: "answer ".repeat(20),
          endReason: "completed",
          finishedAt: 2000 + i,
        });
    }
    store.db.exec("PRAGMA wal_autocheckpoint = 0");
    const pageSize = store.db.query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size as number;
    const walBytes = (): number => statSync(`${path}-wal`).size;
    const framesOf = (write: () => void): number => {
      store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const before = walBytes();
      write();
      // The first frame after a reset also writes the WAL's 32-byte header.
      return Math.floor((walBytes() - before) / (24 + pageSize));
    };
    const frames: number[] = [];
    for (let i = 0; i < 100; i++) {
      const id = crypto.randomUUID();
      store.jobs.insert({ ...job(id, 5000 + i), principal: `p${i % 3}` });
      expect(store.jobs.markRunning(id, 5100 + i)).toBe(true);
      frames.push(
        framesOf(() =>
          store.jobs.finish(id, { status: "completed", result: "answer ".repeat(20), endReason: "completed", finishedAt: 6000 + i }),
        ),
      );
    }
    // Schema 5's indexes on the status made it 4 frames and more.
    expect(frames.filter((n) => n === 2).length).toBeGreaterThanOrEqual(80);
    expect(frames.reduce((a, b) => a + b, 0) / frames.length).toBeLessThan(2.5);
    store.close();
  });

  test("a database at schema 5 keeps every job through the index changes of schemas 6 and 7, and reads them by the new indexes", () => {
    const path = join(tempDir(), "hermes-mcp.db");
    const old = new Database(path);
    for (const [i, migration] of MIGRATIONS.slice(0, 5).entries()) {
      old.exec(migration);
      old.exec(`PRAGMA user_version = ${i + 1}`);
    }
    const insert = old.query(
      "INSERT INTO jobs (id, principal, mode, status, prompt_chars, created_at, finished_at, result) VALUES (?, ?, 'async', ?, 1, ?, ?, ?)",
    );
    for (let i = 0; i < 30; i++) {
      insert.run(
        `job-${i}`,
        `p${i % 2}`,
        i % 5 === 0 ? "running" : "completed",
        1000 + i,
        i % 5 === 0 ? null : 2000 + i,
        i % 5 === 0 ? null : `answer ${i}`,
      );
    }
    // Two finished tasks: one past its ttl by 2000, one not.
    const task = old.query(
      "INSERT INTO jobs (id, principal, mode, status, prompt_chars, created_at, finished_at, task_ttl_ms) VALUES (?, 'p9', 'async', 'completed', 1, 1000, 1200, ?)",
    );
    task.run("task-expired", 500);
    task.run("task-kept", 5000);
    old.close();
    const store = openStore(path);
    const indexes = store.db
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' AND sql IS NOT NULL ORDER BY name",
      )
      .all()
      .map((row) => row.name);
    expect(indexes).toEqual(["jobs_active", "jobs_created", "jobs_principal", "jobs_task_expiry"]);
    expect(store.jobs.counts("p0")).toEqual({ total: 32, mine: 15 });
    expect(store.jobs.get("job-7")).toMatchObject({ status: "completed", result: "answer 7", finished_at: 2007 });
    expect([...store.jobs.activeIds()].sort()).toEqual(["job-0", "job-10", "job-15", "job-20", "job-25", "job-5"]);
    expect(store.jobs.pageOwned("p1", null, 3).map((row) => row.id)).toEqual(["job-29", "job-27", "job-25"]);
    expect(store.jobs.pageOwned("p1", { createdAt: 1025, id: "job-25" }, 2).map((row) => row.id)).toEqual(["job-23", "job-21"]);
    expect(store.jobs.reapExpiredTasks(2000)).toBe(1);
    expect(store.jobs.get("task-expired")).toBeNull();
    expect(store.jobs.get("task-kept")).toMatchObject({ task_ttl_ms: 5000 });
    store.close();
  });

  test("a corrupted row is reported, not returned as a wrong answer", () => {
    const store = newStore();
    store.db.exec("PRAGMA ignore_check_constraints = ON");
    store.db.exec("INSERT INTO jobs (id, principal, mode, status, prompt_chars, created_at) VALUES ('bad', 'p', 'async', 'weird', 1, 1)");
    expect(() => store.jobs.get("bad")).toThrow();
    store.close();
  });

  test("session labels map to the gateway's latest id, per principal", () => {
    const store = newStore();
    expect(store.sessions.get("alice", "trip")).toBeNull();
    store.sessions.put("alice", "trip", "api-1", 1);
    store.sessions.put("alice", "trip", "api-2", 2);
    store.sessions.put("bob", "trip", "api-9", 2);
    expect(store.sessions.get("alice", "trip")).toBe("api-2");
    expect(store.sessions.get("bob", "trip")).toBe("api-9");
    store.close();
  });

  test("data_version moves when another connection writes (seen within a millisecond)", async () => {
    const path = join(tempDir(), "hermes-mcp.db");
    const a = openStore(path);
    const b = openStore(path);
    const nextTurn = (): Promise<void> => Bun.sleep(2);
    const before = a.dataVersion();
    a.personalTokens.create("mine", "h1", "pat:mine#1", 1);
    await nextTurn();
    expect(a.dataVersion()).toBe(before);
    b.personalTokens.create("theirs", "h2", "pat:theirs#2", 1);
    await nextTurn();
    expect(a.dataVersion()).not.toBe(before);
    a.close();
    b.close();
  });
});
