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
  /** Permission fixes made while opening. */
  fixes: string[];
  close(): void;
}

export function openStore(path: string): Store {
  const { db, fixes } = openDatabase(path);
  const probe = dataVersionProbe(db, path);
  const { dataVersion } = probe;
  return {
    db,
    jobs: new JobStore(db, dataVersion),
    sessions: new SessionStore(db),
    personalTokens: new PersonalTokenStore(db),
    oauth: new OAuthStore(db),
    dataVersion,
    fixes,
    close: () => {
      probe.close();
      db.close();
    },
  };
}
