import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { openStore } from "../../src/store/index.ts";
import { newJob, tempDbPaths } from "../support/store-fixtures.ts";

// The stored-job counts behind the per-principal caps are kept in memory between reads: they must stay exact through
// our own inserts and deletes, and through another process's writes (a `hermes-mcp jobs` CLI on the same database).
const newPath = tempDbPaths();
const job = newJob;

test("counts follow our own inserts, per principal and in all", () => {
  const store = openStore(newPath());
  expect(store.jobs.counts("a")).toEqual({ total: 0, mine: 0 });
  store.jobs.insert(job("1", "a"));
  store.jobs.insert(job("2", "a"));
  store.jobs.insert(job("3", "b"));
  expect(store.jobs.counts("a")).toEqual({ total: 3, mine: 2 });
  expect(store.jobs.counts("b")).toEqual({ total: 3, mine: 1 });
  store.jobs.insert(job("4", "b"));
  expect(store.jobs.counts("b")).toEqual({ total: 4, mine: 2 });
  expect(store.jobs.counts("c")).toEqual({ total: 4, mine: 0 });
  store.close();
});

test("counts follow our own deletes: clearing a principal, reaping finished jobs and expired tasks", () => {
  const store = openStore(newPath());
  for (const [id, principal] of [
    ["1", "a"],
    ["2", "a"],
    ["3", "b"],
  ] as const)
    store.jobs.insert(job(id, principal));
  expect(store.jobs.counts("a")).toEqual({ total: 3, mine: 2 });
  store.jobs.clearFor("a");
  expect(store.jobs.counts("a")).toEqual({ total: 1, mine: 0 });
  store.jobs.finish("3", { status: "completed", result: "", endReason: "completed", finishedAt: 1100 });
  expect(store.jobs.counts("b")).toEqual({ total: 1, mine: 1 });
  expect(store.jobs.reapFinishedBefore(1500)).toBe(1);
  expect(store.jobs.counts("b")).toEqual({ total: 0, mine: 0 });
  store.close();
});

test("counts see what another connection wrote or deleted since (within a millisecond)", async () => {
  const nextTurn = (): Promise<void> => Bun.sleep(2);
  const path = newPath();
  const store = openStore(path);
  store.jobs.insert(job("1", "a"));
  expect(store.jobs.counts("a")).toEqual({ total: 1, mine: 1 });
  const other = new Database(path);
  other.exec("PRAGMA busy_timeout = 5000");
  other.exec("INSERT INTO jobs (id, principal, mode, status, prompt_chars, created_at) VALUES ('2', 'a', 'async', 'pending', 1, 1)");
  await nextTurn();
  expect(store.jobs.counts("a")).toEqual({ total: 2, mine: 2 });
  other.exec("DELETE FROM jobs WHERE principal = 'a'");
  await nextTurn();
  expect(store.jobs.counts("a")).toEqual({ total: 0, mine: 0 });
  other.close();
  store.close();
});
