// Tells a failure of the machine under the database (a full disk, a lock held too long, a read-only file, a disk error) from other errors, in words the owner and a caller can act on.
import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import { elapsedSince } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { LockWait } from "./lock-wait.ts";

/** How long a write waits for a lock another process holds (PRAGMA busy_timeout) before SQLite gives up. */
export const BUSY_TIMEOUT_MS = 5000;

export interface StorageFailure {
  /** SQLite's code, e.g. SQLITE_FULL. */
  code: string;
  /** What is wrong, naming the file: for the owner (log, CLI). */
  problem: string;
  /** What the owner can do about it (an action; whether a restart follows depends on who says it). */
  fix: string;
  /** What a remote caller is told: no path, nothing else of the machine. */
  publicReason: string;
}

/** SQLite's codes for a machine that refuses the write: no room, a lock held elsewhere, no write access, a disk error. */
const STORAGE_CODE = /^SQLITE_(FULL|BUSY|LOCKED|READONLY|IOERR)/;

/** SQLite's code when `error` is a storage failure, else null; asks nothing of the disk (JobStore tells with it whether to hold an ending). */
export function storageFailureCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && STORAGE_CODE.test(code) ? code : null;
}

/** The storage failure `error` is, in words naming `dbPath`, or null for any other error. */
export function storageFailureOf(error: unknown, dbPath: string): StorageFailure | null {
  const code = storageFailureCode(error);
  if (code === null) return null;
  // SQLite maps ENOSPC to SQLITE_FULL, but not where it grows the -shm file (SQLITE_IOERR_SHMSIZE) and some other
  // writes: an I/O error on a disk with no room left is that full disk.
  if (code === "SQLITE_FULL" || (code.startsWith("SQLITE_IOERR") && hasNoRoom(dbPath)))
    return {
      code,
      problem: `the disk holding ${dbPath} is full`,
      fix: "free some space on it (`df -h` shows how much is left)",
      publicReason: "the disk of the machine hermes-mcp runs on is full",
    };
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
    return {
      code,
      problem: `another program kept ${dbPath} locked for more than ${BUSY_TIMEOUT_MS / 1000} s`,
      fix: "close what holds it (an open sqlite3 shell, or a tool writing the file)",
      publicReason: "its database is locked by another program",
    };
  if (code.startsWith("SQLITE_READONLY"))
    return {
      code,
      problem: `${dbPath} cannot be written (a read-only file, folder or filesystem)`,
      fix: "make it writable by the user hermes-mcp runs as, or set HERMES_MCP_DB_PATH to a writable location",
      publicReason: "its database cannot be written",
    };
  return {
    code,
    problem: `the disk holding ${dbPath} failed a read or write (${code})`,
    fix: "check that disk (`dmesg` names its errors, `df -h` its free space)",
    publicReason: "its disk failed a read or write",
  };
}

/** How often the same storage failure is logged again while it lasts: a full disk must not fill faster with our log. */
const REPEAT_EVERY_MS = 10_000;

/**
 * Logs storage failures for the owner: the first of each kind at once, then one line per REPEAT_EVERY_MS with how many
 * failed meanwhile. Every layer that writes reports here, so one full disk gives one readable line, not one per request;
 * and a lock that outlasted the busy timeout makes the next writes fail at once (`lockWait`, lock-wait.ts).
 */
export class StorageAlarm {
  private readonly last = new Map<string, { at: number; since: number }>();

  constructor(
    private readonly log: Logger,
    private readonly dbPath: string,
    private readonly now: () => number = Date.now,
    private readonly lockWait: Pick<LockWait, "ranOut"> | null = null,
  ) {}

  /** The failure `error` is (logged, at most once per REPEAT_EVERY_MS for each kind and thing refused), or null when it is no storage failure. */
  report(error: unknown, doing: string): StorageFailure | null {
    const failure = storageFailureOf(error, this.dbPath);
    if (!failure) return null;
    // Plain SQLITE_BUSY is a wait that ran out; the extended codes (a stale snapshot, a recovery) come back at once.
    if (failure.code === "SQLITE_BUSY")
      this.lockWait?.ranOut(() =>
        this.log.info(`the lock another program held on ${this.dbPath} is gone; hermes-mcp writes its database again`),
      );
    const at = this.now();
    // Per kind and per thing refused: a full disk that refuses a new job and then an answer is told twice.
    const key = `${failure.code} ${doing}`;
    const seen = this.last.get(key);
    if (seen && elapsedSince(seen.at, at) < REPEAT_EVERY_MS) {
      seen.since++;
      return failure;
    }
    this.last.set(key, { at, since: 0 });
    const more = seen && seen.since > 0 ? { failed_since_last_line: seen.since } : {};
    this.log.error(`cannot ${doing}: ${failure.problem}; hermes-mcp keeps running and writes again once it can`, {
      fix: failure.fix,
      ...more,
    });
    return failure;
  }
}

/** What a caller is told when the database refused its work: the reason without the machine's details, and that it is temporary. */
export function publicStorageMessage(failure: StorageFailure): string {
  return `hermes-mcp cannot write its database right now: ${failure.publicReason}. Try again once its owner has fixed that.`;
}

/**
 * A failure to begin (`serve` starting, or a `restore`) said as what stopped it and what to do, or null when `error` is
 * no storage failure.
 */
export function startRefusal(error: unknown, dbPath: string, doing: "start" | "restore" = "start"): string | null {
  const failure = storageFailureOf(error, dbPath);
  const again = doing === "start" ? "start hermes-mcp again" : "run the restore again";
  return failure && `cannot ${doing}: ${failure.problem} — ${failure.fix}, then ${again}`;
}

/** Below this, the disk holding the database counts as full: SQLite needs room for its pages, its WAL and its -shm. */
export const NO_ROOM_BYTES = 1024 * 1024;

/** Bytes this user may still write on the disk holding `folder`, or null when that cannot be read. */
export function freeBytesIn(folder: string): number | null {
  try {
    const disk = statfsSync(folder);
    return disk.bavail * disk.bsize;
  } catch {
    return null;
  }
}

/** Whether the disk holding the file `path` has no room left (unknown reads as room). */
function hasNoRoom(path: string): boolean {
  const free = freeBytesIn(dirname(path));
  return free !== null && free < NO_ROOM_BYTES;
}
