// Backups of the database: a consistent copy taken while serve runs, and putting one back while it does not.
import type { Database } from "bun:sqlite";
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, resolve } from "node:path";
import { acquireDaemonLock } from "./daemon-lock.ts";
import { openDatabase, openForReading, SchemaRefusal, StoreError } from "./database.ts";

/** What a backup holds, as the owner recognises it. */
export interface BackupContents {
  /** The schema version it was written at (an older one is upgraded when restored). */
  version: number;
  bytes: number;
  jobs: number;
  /** Registered and metadata-document apps (the static client lives in the env file, not here). */
  apps: number;
  personalTokens: number;
  /** Signed-in connections: OAuth grants, each with its refresh token. */
  connections: number;
}

/**
 * Writes a consistent copy of the database at `dbPath` to `target`, safe while serve runs: VACUUM INTO reads one
 * snapshot, the commits still in the -wal file included, which a plain copy of the .db file misses.
 */
export function backupDatabase(dbPath: string, target: string): BackupContents {
  if (!existsSync(dbPath))
    throw new StoreError(`there is no database at ${dbPath} yet: nothing to back up (the first \`serve\` creates it)`);
  if (resolve(target) === resolve(dbPath)) throw new StoreError(`${target} is the database itself: name a new file`);
  const folder = dirname(resolve(target));
  if (!existsSync(folder)) throw new StoreError(`the folder ${folder} does not exist: create it first`);
  let db: Database;
  try {
    db = openForReading(dbPath).db;
  } catch (error) {
    if (error instanceof SchemaRefusal) throw new StoreError(`the database ${dbPath} ${error.problem}: ${error.fix}`);
    throw error;
  }
  try {
    // VACUUM INTO writes only the new file, but SQLite's query_only counts it as a write.
    db.exec("PRAGMA query_only = OFF");
    copyInto(db, target);
  } finally {
    db.close();
  }
  return contentsOf(target);
}

/** Writes one consistent snapshot of the open database `db` to the new file `target` (mode 0600). */
export function copyInto(db: Database, target: string): void {
  // A copy never replaces a file (an older backup, or anything else, stays as it was), so removing a failed one below
  // can only remove what this call made.
  if (existsSync(target)) throw new StoreError(`${target} already exists: name a new file (a backup never overwrites one)`);
  // Threat: a local user reading the copy (token hashes, job results): it is created 0600 from its first byte.
  const umask = process.umask(0o077);
  try {
    db.query("VACUUM INTO ?").run(target);
  } catch (error) {
    // A failed VACUUM INTO can leave an empty file behind; it is ours (the name was free a moment ago).
    rmSync(target, { force: true });
    throw new StoreError(`could not write ${target}: ${(error as Error).message}`);
  } finally {
    process.umask(umask);
  }
  chmodSync(target, 0o600);
}

/** A UTC time for a file name: 20261124T235900Z. */
export const fileStamp = (now: Date): string =>
  now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");

/** Checks that `file` is an undamaged hermes-mcp database this binary can restore, and says what it holds. */
export function contentsOf(file: string): BackupContents {
  if (!existsSync(file)) throw new StoreError(`${file} does not exist`);
  let opened: { db: Database; version: number };
  try {
    opened = openForReading(file);
  } catch (error) {
    if (!(error instanceof SchemaRefusal)) throw error;
    const fix = { newer: "restore it with that hermes-mcp", foreign: "it is no hermes-mcp backup", unreadable: "use another backup" }[
      error.kind
    ];
    throw new StoreError(`${file} ${error.problem}: ${fix}`);
  }
  const { db, version } = opened;
  try {
    const verdict = db
      .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
      .all()
      .map((row) => row.integrity_check)
      .join("; ");
    if (verdict !== "ok") throw new StoreError(`${file} is damaged (integrity check: ${verdict.slice(0, 200)}): use another backup`);
    if (version === 0) throw new StoreError(`${file} is an empty database, not a hermes-mcp backup`);
    const count = (sql: string): number => db.query<{ n: number }, []>(sql).get()?.n ?? 0;
    return {
      version,
      bytes: statSync(file).size,
      jobs: count("SELECT count(*) AS n FROM jobs"),
      // The OAuth tables arrived with schema 2.
      apps: version >= 2 ? count("SELECT count(*) AS n FROM oauth_clients WHERE kind <> 'static'") : 0,
      personalTokens: count("SELECT count(*) AS n FROM personal_tokens"),
      connections: version >= 2 ? count("SELECT count(*) AS n FROM oauth_grants") : 0,
    };
  } finally {
    db.close();
  }
}

/**
 * Puts the backup `file` in place of the database at `dbPath`, holding the daemon lock so no serve runs meanwhile
 * (DaemonLockedError when one does). The database it replaces is moved aside, never deleted, even a damaged one; the
 * restored copy is upgraded to this binary's schema first, so a problem shows here rather than at the next start. Every
 * check and the copy come before the renames: until they run, a failure changes nothing. `onCopied` runs once the copy is
 * ready, before anything is moved (tests open a connection there).
 */
export function restoreDatabase(
  dbPath: string,
  file: string,
  now = new Date(),
  onCopied: () => void = () => {},
): { contents: BackupContents; aside: string | null } {
  if (resolve(file) === resolve(dbPath)) throw new StoreError(`${file} is the database itself: name a backup file`);
  const contents = contentsOf(file);
  const lock = acquireDaemonLock(dbPath, "restore", "restore");
  try {
    const aside = existsSync(dbPath) ? asideName(dbPath, now) : null;
    const incoming = upgradedCopy(file, `${dbPath}.restoring`);
    onCopied();
    if (aside) {
      // Again after the copy, which can take seconds: a program that opened the database meanwhile counts too.
      try {
        refuseIfOpenElsewhere(dbPath);
      } catch (error) {
        removeWithSidecars(incoming);
        throw error;
      }
      renameSync(dbPath, aside);
      // A -wal file left beside the restored database would be applied to it (SQLite finds it by name): it goes with
      // the database it belongs to.
      for (const suffix of ["-wal", "-shm"]) if (existsSync(dbPath + suffix)) renameSync(dbPath + suffix, aside + suffix);
    }
    renameSync(incoming, dbPath);
    syncPath(dirname(dbPath));
    return { contents, aside };
  } finally {
    lock.release();
  }
}

/** Where the database at `dbPath` goes when a backup replaces it: `<db>.before-restore-<UTC time>`, checked free. */
function asideName(dbPath: string, now: Date): string {
  try {
    // Closing the last connection folds the -wal file back into the database.
    openForReading(dbPath).db.close();
  } catch (error) {
    // Another program's file is not ours to move (HERMES_MCP_DB_PATH names the wrong file). A newer hermes-mcp's or a
    // damaged database is moved as it is: that is what restoring is for.
    if (error instanceof SchemaRefusal && error.kind === "foreign")
      throw new StoreError(`${dbPath} ${error.problem}: set HERMES_MCP_DB_PATH to hermes-mcp's database, or to a new file to restore into`);
  }
  refuseIfOpenElsewhere(dbPath);
  const aside = `${dbPath}.before-restore-${fileStamp(now)}`;
  if (existsSync(aside)) throw new StoreError(`${aside} already exists: wait a second and try again`);
  return aside;
}

/**
 * Threat: a write lost without a word. A -wal file after our read-write close means another connection still has the
 * database open (SQLite removes it when the last one closes); what that program writes next would land in the file
 * moved aside, not in the restored one.
 */
function refuseIfOpenElsewhere(dbPath: string): void {
  if (existsSync(`${dbPath}-wal`) && writableByUs(dbPath))
    throw new StoreError(
      `another program has ${dbPath} open (an sqlite3 shell, or a hermes-mcp command still running): close it, then restore`,
    );
}

/** `file` copied to `target` (0600), upgraded to this binary's schema and on disk; nothing is left behind if that fails. */
function upgradedCopy(file: string, target: string): string {
  removeWithSidecars(target);
  try {
    copyFileSync(file, target);
    chmodSync(target, 0o600);
    // Closed as the only connection, its WAL is folded back: the one file is the whole database.
    openDatabase(target).db.close();
    syncPath(target);
    return target;
  } catch (error) {
    removeWithSidecars(target);
    throw new StoreError(`the backup ${file} could not be made ready (${(error as Error).message}): use another backup`);
  }
}

/** A database file and the -wal and -shm files SQLite keeps beside it, gone (those absent included). */
function removeWithSidecars(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
}

/** Whether this user may write the file (a read-only connection leaves the -wal file behind whoever else reads). */
function writableByUs(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Flushes a file's or folder's contents to disk (a restore survives a power cut right after it). */
function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
