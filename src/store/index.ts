// The store facade: one opened database and its typed tables, plus a cheap "did another process write?" probe.
import type { Database } from "bun:sqlite";
import { dataVersionProbe } from "./commit-probe.ts";
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
   * Copies the WAL back into the database when it has grown past a threshold: called where a wait follows anyway (a
   * job's gateway request is on the wire), so the checkpoint's fsync is not spent inside anyone's answer.
   */
  checkpointIfDue(): void;
  /** Permission fixes made while opening. */
  fixes: string[];
  close(): void;
}

/** SQLite's default auto-checkpoint size: 1,000 frames (≈ 4 MiB of WAL). */
const CHECKPOINT_FRAMES = 1000;

export function openStore(path: string): Store {
  const { db, fixes } = openDatabase(path);
  const probe = dataVersionProbe(db, path);
  // SQLite's own checkpoint (at 1,000 frames) runs inside whichever commit crosses it — often a job's last write before
  // its answer. Ours runs at CHECKPOINT_FRAMES in checkpointIfDue; SQLite's stays as a backstop at 4× that.
  db.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_FRAMES * 4}`);
  const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
  const { dataVersion } = probe;
  return {
    db,
    jobs: new JobStore(db, dataVersion),
    sessions: new SessionStore(db),
    personalTokens: new PersonalTokenStore(db),
    oauth: new OAuthStore(db),
    dataVersion,
    checkpointIfDue: () => {
      if ((probe.framesToCheckpoint() ?? 0) >= CHECKPOINT_FRAMES) checkpoint.get();
    },
    fixes,
    close: () => {
      probe.close();
      db.close();
    },
  };
}
