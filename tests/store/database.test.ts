import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { openDatabase, StoreError } from "../../src/store/database.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStore } from "../../src/store/index.ts";
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
    expect(() => openDatabase(path)).toThrow(/newer hermes-mcp/);
  });

  test("a path that cannot be created gives an error naming HERMES_MCP_DB_PATH", () => {
    expect(() => openDatabase("/proc/hermes-mcp-test/x.db")).toThrow(/HERMES_MCP_DB_PATH/);
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
    store.jobs.finish("old", { status: "completed", result: "", endReason: "completed", finishedAt: 100 });
    store.jobs.insert(job("new"));
    store.jobs.finish("new", { status: "failed", error: "e", endReason: "x", finishedAt: 900 });
    store.jobs.insert(job("active"));
    expect(store.jobs.reapFinishedBefore(500)).toBe(1);
    expect(store.jobs.get("old")).toBeNull();
    expect(store.jobs.clearFor("p")).toEqual({ failed: 1, pending: 1 });
    expect(store.jobs.counts("p")).toEqual({ total: 0, mine: 0 });
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
