import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataVersionProbe } from "../../src/store/commit-probe.ts";
import { openStore } from "../../src/store/index.ts";

// Revocation and CLI cancels rest on noticing another process's commit at once. The probe skips SQLite while the
// WAL-index header is unchanged: it must still see every foreign commit, on the very next call.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const newPath = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-probe-"));
  dirs.push(dir);
  return join(dir, "hermes-mcp.db");
};
const job = (id: string, principal: string) => ({
  id,
  principal,
  mode: "async" as const,
  promptChars: 5,
  sessionLabel: null,
  createdAt: 1000,
});

test("every commit of another connection moves the version on the next call; our own commits do not", () => {
  const path = newPath();
  const store = openStore(path);
  const other = new Database(path);
  other.exec("PRAGMA busy_timeout = 5000");
  let last = store.dataVersion();
  for (let i = 0; i < 200; i++) {
    expect(store.dataVersion()).toBe(last);
    other.run("INSERT INTO oauth_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [
      "probe",
      String(i),
    ]);
    const now = store.dataVersion();
    expect(now).not.toBe(last);
    last = now;
    // Ours: no move (data_version counts other connections' commits only).
    store.jobs.insert(job(`own-${i}`, "a"));
    expect(store.dataVersion()).toBe(last);
  }
  // Across a checkpoint that restarts the WAL, too.
  other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  other.run("UPDATE oauth_settings SET value = 'after-checkpoint' WHERE key = 'probe'");
  expect(store.dataVersion()).not.toBe(last);
  other.close();
  store.close();
});

test("without a WAL index the probe asks SQLite every time, and is just as exact", () => {
  const path = newPath();
  const db = new Database(path);
  db.exec("PRAGMA journal_mode = DELETE");
  db.exec("CREATE TABLE t (x)");
  const probe = dataVersionProbe(db, path);
  const other = new Database(path);
  const before = probe.dataVersion();
  other.run("INSERT INTO t VALUES (1)");
  expect(probe.dataVersion()).not.toBe(before);
  other.close();
  probe.close();
  db.close();
});

test("a job read from memory is the row another process just changed, and never another principal's", () => {
  const path = newPath();
  const store = openStore(path);
  store.jobs.insert(job("j1", "alice"));
  expect(store.jobs.get("j1", "alice")?.status).toBe("pending");
  expect(store.jobs.get("j1")?.principal).toBe("alice");
  // Read (and kept) by its owner: still absent for anyone else, and for an unknown id.
  expect(store.jobs.get("j1", "bob")).toBeNull();
  expect(store.jobs.get("nope", "alice")).toBeNull();
  // The owner at the machine cancels it from the CLI (another connection): the next read says so.
  const cli = new Database(path);
  cli.run("UPDATE jobs SET status = 'cancelled', finished_at = 2000, end_reason = 'cancelled' WHERE id = 'j1'");
  expect(store.jobs.get("j1", "alice")?.status).toBe("cancelled");
  // An id read as absent, then created by another connection, is found at once.
  expect(store.jobs.get("j2", "alice")).toBeNull();
  cli.run("INSERT INTO jobs (id, principal, mode, status, prompt_chars, created_at) VALUES ('j2', 'alice', 'async', 'pending', 1, 1000)");
  expect(store.jobs.get("j2", "alice")?.status).toBe("pending");
  cli.close();
  // Our own ending and clearing are seen at once as well.
  store.jobs.insert(job("j3", "alice"));
  expect(store.jobs.get("j3", "alice")?.status).toBe("pending");
  store.jobs.finish("j3", { status: "completed", finishedAt: 3000, result: "x".repeat(10_000), endReason: "completed" });
  expect(store.jobs.get("j3", "alice")?.result).toHaveLength(10_000);
  store.jobs.clearFor("alice");
  expect(store.jobs.get("j3", "alice")).toBeNull();
  expect(store.jobs.get("j1")).toBeNull();
  store.close();
});

test("the WAL is copied back once it passes 1,000 frames, where the store chooses, not in a later commit", () => {
  const path = newPath();
  const store = openStore(path);
  const probe = dataVersionProbe(store.db, path);
  let i = 0;
  while ((probe.framesToCheckpoint() ?? 0) < 200) store.jobs.insert(job(`a-${i++}`, "a"));
  // Under the threshold: nothing is done.
  store.checkpointIfDue();
  expect(probe.framesToCheckpoint()).toBeGreaterThanOrEqual(200);
  // SQLite's own checkpoint no longer runs at 1,000 frames: the WAL keeps growing until checkpointIfDue.
  while ((probe.framesToCheckpoint() ?? 0) < 1500) store.jobs.insert(job(`a-${i++}`, "a"));
  store.checkpointIfDue();
  expect(probe.framesToCheckpoint()).toBe(0);
  expect(store.jobs.counts("a").mine).toBe(i);
  probe.close();
  store.close();
});
