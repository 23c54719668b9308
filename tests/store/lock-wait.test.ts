// LockWait on a real database file beside another connection holding its lock: writes fail at once while a lock that outlasted the timeout lasts, and wait again once it is gone.
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LockWait } from "../../src/store/lock-wait.ts";
import { BUSY_TIMEOUT_MS } from "../../src/store/storage-failure.ts";
import { lockedForAWhile } from "../support/lock-holder.ts";
import { until } from "../support/until.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** Ours (busy timeout set as the daemon's) and another program's connection to one WAL database. */
function twoConnections(): { ours: Database; other: Database } {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-lock-wait-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const ours = new Database(join(dir, "db.sqlite"), { create: true });
  ours.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; CREATE TABLE t (x INTEGER)`);
  const other = new Database(join(dir, "db.sqlite"));
  cleanups.push(() => ours.close());
  cleanups.push(() => other.close());
  return { ours, other };
}

const busyTimeoutOf = (db: Database): number => db.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout ?? Number.NaN;

/** How long `write` took before it threw, in ms (it must throw). */
function msUntilRefused(write: () => void): number {
  const started = performance.now();
  expect(write).toThrow(/locked/);
  return performance.now() - started;
}

test("after a lock ran out the timeout, writes fail at once; once it is gone they wait again and both listeners hear it once", async () => {
  const { ours, other } = twoConnections();
  let freedForStore = 0;
  let freedForOwner = 0;
  const wait = new LockWait(ours, () => freedForStore++, 50);
  cleanups.push(() => wait.close());
  const insert = () => ours.exec("INSERT INTO t VALUES (1)");
  other.exec("BEGIN IMMEDIATE");
  wait.ranOut(() => freedForOwner++);
  wait.ranOut(() => freedForOwner++);
  expect(wait.patient).toBe(false);
  expect(busyTimeoutOf(ours)).toBe(0);
  expect(msUntilRefused(insert)).toBeLessThan(500);
  // The probe keeps looking while the lock is held.
  await Bun.sleep(200);
  expect(wait.patient).toBe(false);
  other.exec("ROLLBACK");
  await until("the lock seen gone", () => wait.patient, 2000);
  expect(busyTimeoutOf(ours)).toBe(BUSY_TIMEOUT_MS);
  expect([freedForStore, freedForOwner]).toEqual([1, 1]);
  // The probe wrote nothing.
  expect(other.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 0 });
  // A short lock is waited out again.
  cleanups.push(await lockedForAWhile(ours.filename, 300));
  const started = performance.now();
  insert();
  expect(performance.now() - started).toBeGreaterThan(100);
});

test("atOnce fails at once on a held lock and leaves the wait as it was; patiently waits whatever the mode", async () => {
  const { ours, other } = twoConnections();
  // No probe within the test: the lock the patient write waits for must be the one ranOut met.
  const wait = new LockWait(ours, () => {}, 60_000);
  cleanups.push(() => wait.close());
  const insert = () => ours.exec("INSERT INTO t VALUES (1)");
  other.exec("BEGIN IMMEDIATE");
  expect(msUntilRefused(() => wait.atOnce(insert))).toBeLessThan(500);
  expect(busyTimeoutOf(ours)).toBe(BUSY_TIMEOUT_MS);
  wait.ranOut();
  expect(msUntilRefused(() => wait.atOnce(insert))).toBeLessThan(500);
  expect(busyTimeoutOf(ours)).toBe(0);
  other.exec("ROLLBACK");
  // Another holder lets go 300 ms later: the patient write, still under ranOut, waits for it.
  cleanups.push(await lockedForAWhile(ours.filename, 300));
  const started = performance.now();
  wait.patiently(insert);
  expect(performance.now() - started).toBeGreaterThan(100);
  expect(busyTimeoutOf(ours)).toBe(0);
});
