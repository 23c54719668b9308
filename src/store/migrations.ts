// The schema, as an append-only list of migrations: entry N brings a database from user_version N-1 to N.
export const MIGRATIONS: readonly string[] = [
  // 1: jobs, session threading, personal access tokens.
  `
  CREATE TABLE jobs (
    id            TEXT PRIMARY KEY,
    principal     TEXT NOT NULL,
    mode          TEXT NOT NULL CHECK (mode IN ('sync', 'async')),
    status        TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
    prompt_chars  INTEGER NOT NULL,
    session_label TEXT,
    created_at    INTEGER NOT NULL,
    started_at    INTEGER,
    finished_at   INTEGER,
    result        TEXT,
    partial       TEXT,
    error         TEXT,
    end_reason    TEXT
  );
  CREATE INDEX jobs_status ON jobs (status);
  CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;

  CREATE TABLE gateway_sessions (
    principal          TEXT NOT NULL,
    label              TEXT NOT NULL,
    gateway_session_id TEXT NOT NULL,
    updated_at         INTEGER NOT NULL,
    PRIMARY KEY (principal, label)
  );

  CREATE TABLE personal_tokens (
    name         TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER
  );
  `,
];
