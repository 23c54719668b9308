import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { dataVersionAtMostEveryMs } from "../../src/store/commit-probe.ts";
import { CHECKPOINT_EVERY_JOBS, openStore } from "../../src/store/index.ts";
import { newJob, tempDbPaths } from "../support/store-fixtures.ts";

// Revocation and CLI cancels rest on noticing another process's commit at once: asked at most once a millisecond,
// data_version must still show every foreign commit to any read a millisecond after it.
const newPath = tempDbPaths();
const job = newJob;

/** Past the answer's 1 ms lifetime. */
const nextTurn = (): Promise<void> => Bun.sleep(2);

test("data_version is asked at most once a millisecond", async () => {
  let asked = 0;
  // (A 50 ms lifetime here, so a slow CI machine cannot age the answer between two calls.)
  const version = dataVersionAtMostEveryMs(() => ++asked, 50);
  expect([version(), version(), version()]).toEqual([1, 1, 1]);
  await Bun.sleep(60);
  expect(version()).toBe(2);
  await Bun.sleep(60);
  expect([version(), version()]).toEqual([3, 3]);
  expect(asked).toBe(3);
});

test("every commit of another connection is seen a millisecond later; our own commits do not move it", async () => {
  const path = newPath();
  const store = openStore(path);
  const other = new Database(path);
  other.exec("PRAGMA busy_timeout = 5000");
  let last = store.dataVersion();
  for (let i = 0; i < 50; i++) {
    await nextTurn();
    expect(store.dataVersion()).toBe(last);
    other.run("INSERT INTO oauth_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [
      "probe",
      String(i),
    ]);
    await nextTurn();
    const now = store.dataVersion();
    expect(now).not.toBe(last);
    last = now;
    // Ours: no move (data_version counts other connections' commits only).
    store.jobs.insert(job(`own-${i}`, "a"));
    await nextTurn();
    expect(store.dataVersion()).toBe(last);
  }
  other.close();
  store.close();
});

test("every CHECKPOINT_EVERY_JOBS-th admitted job copies the WAL back, so it is written again from its start instead of growing", () => {
  const path = newPath();
  const store = openStore(path);
  const walSize = (): number => statSync(`${path}-wal`).size;
  let i = 0;
  // Well under SQLite's backstop (4,000 frames): nothing has copied the WAL back yet.
  for (; i < 300; i++) store.jobs.insert(job(`a-${i}`, "a"));
  for (let j = 0; j < CHECKPOINT_EVERY_JOBS - 1; j++) store.checkpointIfDue();
  for (let j = 0; j < 100; j++, i++) store.jobs.insert(job(`a-${i}`, "a"));
  const grown = walSize();
  // The next call checkpoints; what follows reuses the WAL from its start.
  store.checkpointIfDue();
  for (let j = 0; j < 100; j++, i++) store.jobs.insert(job(`a-${i}`, "a"));
  expect(walSize()).toBe(grown);
  expect(store.jobs.counts("a").mine).toBe(500);
  store.close();
});

test("a job read from memory is the row another process just changed, and never another principal's", async () => {
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
  await nextTurn();
  expect(store.jobs.get("j1", "alice")?.status).toBe("cancelled");
  // An id read as absent, then created by another connection, is found at once.
  expect(store.jobs.get("j2", "alice")).toBeNull();
  cli.run("INSERT INTO jobs (id, principal, mode, status, prompt_chars, created_at) VALUES ('j2', 'alice', 'async', 'pending', 1, 1000)");
  await nextTurn();
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
