// The store facade: one opened database and its typed tables, plus a cheap "did another process write?" probe.
import type { Database } from "bun:sqlite";
import { dataVersionAtMostEveryMs } from "./commit-probe.ts";
import { inspectDatabase, openDatabase } from "./database.ts";
import { JobStore } from "./jobs.ts";
import { LockWait } from "./lock-wait.ts";
import { OAuthStore } from "./oauth-store.ts";
import { PersonalTokenStore } from "./personal-tokens.ts";
import { SessionStore } from "./sessions.ts";

export interface Store {
  db: Database;
  /** The database file (":memory:" in tests). */
  path: string;
  jobs: JobStore;
  sessions: SessionStore;
  personalTokens: PersonalTokenStore;
  /** The OAuth authorization server's tables (clients, grants, tokens, codes, settings, limits). */
  oauth: OAuthStore;
  /** Changes whenever another connection (a CLI command) commits: caches keyed on it see revocations at once. */
  dataVersion(): number;
  /**
   * Called once per job admitted to run: every CHECKPOINT_EVERY_JOBS-th call copies the WAL back into the database, at a
   * moment where a wait follows anyway (that job's gateway request is on the wire), so the fsync is in nobody's answer.
   */
  checkpointIfDue(): void;
  /** How long writes wait for another program's lock: not at all while one that outlasted the busy timeout lasts. */
  lockWait: LockWait;
  /** Permission fixes made while opening. */
  fixes: string[];
  close(): void;
}

/**
 * SQLite's own checkpoint runs inside whichever commit takes the WAL past 1,000 frames (≈ 4 MiB) — often a job's last
 * write before its answer. Ours runs every CHECKPOINT_EVERY_JOBS admitted jobs (a job writes ≈ 8 frames: ≈ 200 frames);
 * SQLite's stays as the backstop for writes that are not jobs, at 4,000 frames. A checkpoint costs what its fsync
 * flushes, so it grows with the WAL behind it (measured here: 0.6 ms after 25 jobs, 3 ms after 150, 6.5 ms after 300):
 * small and often keeps each one well inside one gateway round trip, where it waits for nobody.
 */
export const CHECKPOINT_EVERY_JOBS = 25;
const BACKSTOP_FRAMES = 4000;

export function openStore(path: string): Store {
  const { db, fixes } = openDatabase(path);
  db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_FRAMES}`);
  return storeOn(db, fixes, path);
}

/** The database as it is, to read (doctor): nothing created, tightened or upgraded, and SQLite refuses any write. */
export function inspectStore(path: string): Store {
  return storeOn(inspectDatabase(path), [], path);
}

function storeOn(db: Database, fixes: string[], path: string): Store {
  const versionStmt = db.query<{ data_version: number }, []>("PRAGMA data_version");
  const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
  const dataVersion = dataVersionAtMostEveryMs(() => versionStmt.get()?.data_version ?? 0);
  // Once a lock that outlasted the busy timeout is gone, the endings held meanwhile are written at once.
  const lockWait = new LockWait(db, () => jobs.held.flush(true));
  const jobs = new JobStore(db, dataVersion, lockWait);
  let jobsSinceCheckpoint = 0;
  let closed = false;
  return {
    db,
    path,
    jobs,
    sessions: new SessionStore(db),
    personalTokens: new PersonalTokenStore(db),
    oauth: new OAuthStore(db),
    dataVersion,
    lockWait,
    checkpointIfDue: () => {
      if (closed || ++jobsSinceCheckpoint < CHECKPOINT_EVERY_JOBS) return;
      jobsSinceCheckpoint = 0;
      checkpoint.get();
    },
    fixes,
    close: () => {
      // Rows insertSoon still holds are written first (a failure is reported to their jobs, never thrown here), then
      // the endings a full disk held, if the database takes them now (JobService.shutdown says when it does not).
      jobs.writeUnwritten();
      jobs.held.flush(true);
      jobs.held.forget(() => true);
      lockWait.close();
      closed = true;
      db.close();
    },
  };
}
