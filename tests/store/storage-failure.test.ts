import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diskRoomCheck } from "../../src/cli/doctor-checks.ts";
import { loadConfig } from "../../src/config/load.ts";
import { failureResponse } from "../../src/http/failure-response.ts";
import type { Logger, LogFields } from "../../src/log.ts";
import { until } from "../support/until.ts";
import { LockWait } from "../../src/store/lock-wait.ts";
import { publicStorageMessage, StorageAlarm, startRefusal, storageFailureCode, storageFailureOf } from "../../src/store/storage-failure.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-storage-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "db.sqlite");
}

/** The error SQLite really throws when a write needs a page the database may not have (what a full disk gives). */
function fullDiskError(): unknown {
  const db = new Database(tempFile(), { create: true });
  cleanups.push(() => db.close());
  db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x BLOB)");
  const pages = db.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;
  db.exec(`PRAGMA max_page_count = ${pages}`);
  try {
    db.query("INSERT INTO t VALUES (randomblob(100000))").run();
  } catch (error) {
    return error;
  }
  throw new Error("expected SQLITE_FULL");
}

/** The error a write gets when another connection holds the write lock and we do not wait. */
function lockedError(): unknown {
  const path = tempFile();
  const holder = new Database(path, { create: true });
  holder.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x)");
  const writer = new Database(path);
  cleanups.push(() => {
    writer.close();
    holder.close();
  });
  holder.exec("BEGIN IMMEDIATE");
  writer.exec("PRAGMA busy_timeout = 0");
  try {
    writer.query("INSERT INTO t VALUES (1)").run();
  } catch (error) {
    return error;
  }
  throw new Error("expected SQLITE_BUSY");
}

function captureLog(): { log: Logger; lines: { message: string; fields?: LogFields }[] } {
  const lines: { message: string; fields?: LogFields }[] = [];
  const push = (message: string, fields?: LogFields): void => {
    lines.push({ message, fields });
  };
  return { log: { debug: push, info: push, warn: push, error: push }, lines };
}

describe("storageFailureOf", () => {
  test("a full disk is named with its file, the way out, and a public reason that names neither", () => {
    const failure = storageFailureOf(fullDiskError(), "/home/me/.local/share/hermes-mcp/hermes-mcp.db");
    expect(failure?.code).toBe("SQLITE_FULL");
    expect(failure?.problem).toBe("the disk holding /home/me/.local/share/hermes-mcp/hermes-mcp.db is full");
    expect(failure?.fix).toContain("free some space");
    expect(failure?.publicReason).not.toContain("/home/me");
    expect(publicStorageMessage(failure as NonNullable<typeof failure>)).toBe(
      "hermes-mcp cannot write its database right now: the disk of the machine hermes-mcp runs on is full. Try again once its owner has fixed that.",
    );
  });

  test("a lock another program holds too long, and a read-only database, each say what to do", () => {
    const locked = storageFailureOf(lockedError(), "/db");
    expect(locked?.problem).toBe("another program kept /db locked for more than 5 s");
    expect(locked?.fix).toContain("sqlite3 shell");
    const path = tempFile();
    new Database(path, { create: true }).close();
    const readOnly = new Database(path, { readonly: true });
    cleanups.push(() => readOnly.close());
    let error: unknown;
    try {
      readOnly.exec("CREATE TABLE t (x)");
    } catch (caught) {
      error = caught;
    }
    expect(storageFailureOf(error, path)?.problem).toBe(`${path} cannot be written (a read-only file, folder or filesystem)`);
  });

  test("anything else is not a storage failure: a constraint, a plain error, a non-error", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (x PRIMARY KEY); INSERT INTO t VALUES (1)");
    let constraint: unknown;
    try {
      db.exec("INSERT INTO t VALUES (1)");
    } catch (error) {
      constraint = error;
    }
    db.close();
    expect((constraint as { code?: string }).code).toStartWith("SQLITE_CONSTRAINT");
    expect(storageFailureOf(constraint, "/db")).toBeNull();
    expect(storageFailureOf(new Error("boom"), "/db")).toBeNull();
    expect(storageFailureOf({ code: "SQLITE_FULL" }, "/db")).toBeNull();
    expect(storageFailureOf(null, "/db")).toBeNull();
    // The cheap test JobStore holds an ending by: the code alone.
    expect(storageFailureCode(constraint)).toBeNull();
    expect(storageFailureCode(fullDiskError())).toBe("SQLITE_FULL");
    expect(storageFailureCode(lockedError())).toBe("SQLITE_BUSY");
  });

  test("a start-up (or restore) failure says it could not start (or restore) and how to", () => {
    expect(startRefusal(fullDiskError(), "/srv/db")).toBe(
      "cannot start: the disk holding /srv/db is full — free some space on it (`df -h` shows how much is left), then start hermes-mcp again",
    );
    expect(startRefusal(new Error("other"), "/srv/db")).toBeNull();
    // A restore refused by the disk is no start.
    expect(startRefusal(fullDiskError(), "/srv/db", "restore")).toBe(
      "cannot restore: the disk holding /srv/db is full — free some space on it (`df -h` shows how much is left), then run the restore again",
    );
  });
});

describe("StorageAlarm", () => {
  test("a lock's refusal makes writes fail at once until it is gone, then the owner hears so once; other failures change nothing", async () => {
    const path = tempFile();
    const ours = new Database(path, { create: true });
    ours.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000");
    const other = new Database(path);
    const wait = new LockWait(ours, () => {}, 50);
    cleanups.push(() => {
      wait.close();
      other.close();
      ours.close();
    });
    const { log, lines } = captureLog();
    const alarm = new StorageAlarm(log, path, Date.now, wait);
    alarm.report(fullDiskError(), "store a new job");
    expect(wait.patient).toBe(true);
    other.exec("BEGIN IMMEDIATE");
    const locked = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    alarm.report(locked, "store a new job");
    alarm.report(locked, "start a queued job");
    expect(wait.patient).toBe(false);
    other.exec("ROLLBACK");
    await until("the lock seen gone", () => wait.patient, 2000);
    expect(lines.filter((line) => line.message.includes("is gone")).map((line) => line.message)).toEqual([
      `the lock another program held on ${path} is gone; hermes-mcp writes its database again`,
    ]);
  });

  test("one line per kind and thing refused every 10 s, then how many were refused meanwhile; other errors are left to the caller", () => {
    let now = 0;
    const { log, lines } = captureLog();
    const alarm = new StorageAlarm(log, "/srv/db", () => now);
    const full = fullDiskError();
    expect(alarm.report(full, "store a new job")?.code).toBe("SQLITE_FULL");
    expect(alarm.report(full, "store a new job")?.code).toBe("SQLITE_FULL");
    now = 9_999;
    alarm.report(full, "store a new job");
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toBe(
      "cannot store a new job: the disk holding /srv/db is full; hermes-mcp keeps running and writes again once it can",
    );
    // Something else refused is its own line at once.
    alarm.report(full, "write a job's ending");
    expect(lines).toHaveLength(2);
    now = 10_000;
    alarm.report(full, "store a new job");
    expect(lines).toHaveLength(3);
    expect(lines[2]?.fields?.failed_since_last_line).toBe(2);
    expect(alarm.report(new Error("not storage"), "store a new job")).toBeNull();
    expect(lines).toHaveLength(3);
    // The clock set back an hour: the owner is still told, not silenced until the clock catches up.
    now -= 3_600_000;
    alarm.report(full, "store a new job");
    expect(lines).toHaveLength(4);
    now += 1;
    alarm.report(full, "store a new job");
    expect(lines).toHaveLength(4);
  });
});

describe("failureResponse", () => {
  test("a refused write is a 503 a client may retry later, naming no path; anything else a 500 logged as it is", async () => {
    const { log, lines } = captureLog();
    const alarm = new StorageAlarm(log, "/srv/db");
    const refused = failureResponse(fullDiskError(), "/token", alarm, log);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(await refused.json()).toEqual({
      error: "temporarily_unavailable",
      error_description:
        "hermes-mcp cannot write its database right now: the disk of the machine hermes-mcp runs on is full. Try again once its owner has fixed that.",
    });
    expect(lines.map((l) => l.message)).toEqual([
      "cannot answer a request to /token: the disk holding /srv/db is full; hermes-mcp keeps running and writes again once it can",
    ]);
    const broken = failureResponse(new Error("boom"), "/mcp", alarm, log);
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ error: "server_error", error_description: "internal error; see the hermes-mcp log" });
    expect(lines.at(-1)).toEqual({ message: "request failed", fields: { path: "/mcp", error: "boom" } });
  });
});

describe("doctor's room check", () => {
  let home = "";
  const config = (): ReturnType<typeof loadConfig>["config"] => {
    home = mkdtempSync(join(tmpdir(), "hermes-mcp-room-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    return loadConfig({ env: { HOME: home }, cwd: home }).config;
  };
  const MiB = 1024 * 1024;

  test("plenty is ✔ with the figure, little is ⚠, almost none is ✖ with the fix", () => {
    const c = config();
    const plenty = diskRoomCheck(c, () => 5000 * MiB);
    expect(plenty).toEqual([{ ok: true, title: `room on the disk holding ${c.dbPath}: 4.9 GiB free` }]);
    const low = diskRoomCheck(c, () => 50 * MiB)[0];
    expect(low).toMatchObject({ ok: true, warn: true, title: `room on the disk holding ${c.dbPath}: only 50 MiB free` });
    expect(low?.fix).toContain("free some space");
    const none = diskRoomCheck(c, () => 300 * 1024)[0];
    expect(none?.ok).toBe(false);
    expect(none?.detail).toBe("300 KiB free: too little to count on (a full disk refuses new jobs, and answers then wait in memory)");
    expect(diskRoomCheck(c, () => null)).toEqual([]);
  });

  test("the disk it reads is the database folder's, or the nearest existing folder's before the first start", () => {
    const c = config();
    const asked: string[] = [];
    diskRoomCheck(c, (path) => {
      asked.push(path);
      return 5000 * MiB;
    });
    // HOME exists, ~/.local/share/hermes-mcp does not yet.
    expect(asked).toEqual([home]);
  });
});
