// The store facade: one opened database and its typed tables, plus a cheap "did another process write?" probe.
import type { Database } from "bun:sqlite";
import { dataVersionAtMostEveryMs } from "./commit-probe.ts";
import { openDatabase } from "./database.ts";
import { JobStore } from "./jobs.ts";
import { OAuthStore } from "./oauth-store.ts";
import { PersonalTokenStore } from "./personal-tokens.ts";
import { SessionStore } from "./sessions.ts";

export interface Store {
  db: Database;
  jobs: JobStore;
  sessions: SessionStore;
  personalTokens: PersonalTokenStore;
  /** The OAuth authorization server's tables (clients, grants, tokens, codes, settings, limits). */
  oauth: OAuthStore;
  /** Changes whenever another connection (a CLI command) commits: caches keyed on it see revocations at once. */
  dataVersion(): number;
  /**
   * Copies the WAL back into the database (at most every CHECKPOINT_EVERY_MS): called where a wait follows anyway (a
   * job's gateway request is on the wire), so the checkpoint's fsync is not spent inside anyone's answer.
   */
  checkpointIfDue(): void;
  /** Permission fixes made while opening. */
  fixes: string[];
  close(): void;
}

/**
 * SQLite's own checkpoint runs inside whichever commit takes the WAL past 1,000 frames (≈ 4 MiB) — often a job's last
 * write before its answer. Ours runs every CHECKPOINT_EVERY_MS at most, from checkpointIfDue; SQLite's stays as the
 * backstop for writes that are not jobs, at 4,000 frames.
 */
const CHECKPOINT_EVERY_MS = 200;
const BACKSTOP_FRAMES = 4000;

export function openStore(path: string): Store {
  const { db, fixes } = openDatabase(path);
  db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_FRAMES}`);
  const versionStmt = db.query<{ data_version: number }, []>("PRAGMA data_version");
  const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
  const dataVersion = dataVersionAtMostEveryMs(() => versionStmt.get()?.data_version ?? 0);
  let lastCheckpoint = 0;
  let closed = false;
  return {
    db,
    jobs: new JobStore(db, dataVersion),
    sessions: new SessionStore(db),
    personalTokens: new PersonalTokenStore(db),
    oauth: new OAuthStore(db),
    dataVersion,
    checkpointIfDue: () => {
      const now = Date.now();
      if (closed || now - lastCheckpoint < CHECKPOINT_EVERY_MS) return;
      lastCheckpoint = now;
      checkpoint.get();
    },
    fixes,
    close: () => {
      closed = true;
      db.close();
    },
  };
}
