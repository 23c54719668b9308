// One daemon per database: an exclusive SQLite lock held for the daemon's life (the OS drops it when the process dies), plus who holds it.
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import { folderFailure, foreignOwnerError, StoreError } from "./database.ts";
import { startRefusal } from "./storage-failure.ts";

/*
 * Why a SQLite lock and not a pid file: `BEGIN EXCLUSIVE` on `<db>.lock` takes an fcntl lock that the kernel releases
 * the moment its holder dies, kill -9 included, so a stale lock never blocks a restart and a recycled pid can never
 * pass for a live daemon. The holder's pid and address are only information, kept in `<db>.lock.json` and trusted
 * only while the lock is actually held. The holder must never open `<db>.lock` other than through SQLite: closing any
 * other descriptor on that file would drop the process's fcntl locks (POSIX).
 */

const HolderSchema = builtOnFirstUse(() =>
  z.object({
    pid: z.number().int().positive(),
    host: z.string(),
    /** Null until the daemon has bound its port. */
    port: z.number().int().min(0).max(65_535).nullable(),
    started_at: z.number(),
    /**
     * serve's tunnel-probe key, drawn at each start (src/http/tunnel-probe.ts): doctor's proof that the public URL reaches
     * this process. Kept here, not in the database: writing it there was the start's first commit, whose WAL header and
     * folder fsyncs delayed the first answer (2–44 ms). This file is as private as the database (0600, in the 0700 data
     * folder) and trusted only while its lock is held. Absent while starting, and for a restore's lock.
     */
    probe_key: z.string().optional(),
  }),
);
export type DaemonHolder = z.output<typeof HolderSchema>;

export class DaemonLockedError extends StoreError {
  override name = "DaemonLockedError";
  constructor(readonly holder: DaemonHolder | null) {
    super(`hermes-mcp is already running on this database (${describeHolder(holder)})`);
  }
}

/** "pid 123, port 8765", or as much of it as is known. */
export function describeHolder(holder: DaemonHolder | null): string {
  if (!holder) return "pid unknown";
  return `pid ${holder.pid}, ${holder.port === null ? "still starting" : `port ${holder.port}`}`;
}

export interface DaemonLock {
  /**
   * Records the address actually bound (BIND_PORT=0 picks one at start) so `doctor` and a second `serve` can name it,
   * and the tunnel-probe key doctor proves the public URL with.
   */
  setAddress(host: string, port: number, probeKey?: string): void;
  release(): void;
}

/** Connections holding a lock: a Database nobody references is closed by the garbage collector, which would drop the lock. */
const held = new Set<Database>();

const lockPath = (dbPath: string): string => `${dbPath}.lock`;
const holderPath = (dbPath: string): string => `${dbPath}.lock.json`;
/** A `doctor` probing the lock holds it for microseconds: wait that out rather than refuse to start. */
const ACQUIRE_WAIT_MS = 1000;

/**
 * Takes the lock for `dbPath`, or throws DaemonLockedError naming the daemon that holds it. Nothing else is touched
 * first. `doing` words a refusal of the disk under it (serve's start, or a restore).
 */
export function acquireDaemonLock(dbPath: string, host: string, doing: "start" | "restore" = "start"): DaemonLock {
  if (dbPath === ":memory:") return { setAddress() {}, release() {} };
  try {
    // Created private if missing; an existing folder's mode is checked (and reported) when the store opens.
    mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw folderFailure(dbPath, error);
  }
  let db: Database;
  try {
    db = new Database(lockPath(dbPath), { create: true });
    db.exec(`PRAGMA busy_timeout = ${ACQUIRE_WAIT_MS}`);
  } catch (error) {
    const failed = `cannot open the lock file ${lockPath(dbPath)}`;
    throw (
      foreignOwnerError(failed, dbPath) ??
      new StoreError(`${failed}: ${(error as Error).message} — set HERMES_MCP_DB_PATH to a writable location`)
    );
  }
  try {
    db.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new DaemonLockedError(readHolder(dbPath));
    throw new StoreError(startRefusal(error, dbPath, doing) ?? `cannot lock ${lockPath(dbPath)}: ${(error as Error).message}`);
  }
  held.add(db);
  let holder: DaemonHolder = { pid: process.pid, host, port: null, started_at: Date.now() };
  writeHolder(dbPath, holder);
  let released = false;
  return {
    setAddress(boundHost, port, probeKey) {
      holder = { ...holder, host: boundHost, port, ...(probeKey === undefined ? {} : { probe_key: probeKey }) };
      writeHolder(dbPath, holder);
    },
    release() {
      if (released) return;
      released = true;
      rmSync(holderPath(dbPath), { force: true });
      db.exec("ROLLBACK");
      db.close();
      held.delete(db);
    },
  };
}

/**
 * Who holds the lock for `dbPath`: null when no daemon runs on it. Creates nothing (doctor must not leave files
 * behind); holds the lock only for the instant of the probe.
 */
export function runningDaemon(dbPath: string): DaemonHolder | null | "unknown" {
  if (dbPath === ":memory:" || !existsSync(lockPath(dbPath))) return null;
  let db: Database;
  try {
    db = new Database(lockPath(dbPath), { readwrite: true, create: false });
  } catch {
    return null;
  }
  try {
    // Reading needs a shared lock, which the daemon's exclusive lock refuses: busy means a daemon is alive.
    db.query("SELECT count(*) FROM sqlite_master").get();
    return null;
  } catch (error) {
    if (!isBusy(error)) return null;
    return readHolder(dbPath) ?? "unknown";
  } finally {
    db.close();
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? "";
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED") || /database is locked/i.test((error as Error).message);
}

function readHolder(dbPath: string): DaemonHolder | null {
  try {
    const parsed = HolderSchema.safeParse(JSON.parse(readFileSync(holderPath(dbPath), "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function writeHolder(dbPath: string, holder: DaemonHolder): void {
  const path = holderPath(dbPath);
  // Written whole then renamed: a reader never sees half a record.
  writeFileSync(`${path}.tmp`, JSON.stringify(holder), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}
