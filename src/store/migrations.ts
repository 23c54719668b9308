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
  // 2: the OAuth authorization server: dynamic clients, grants, access tokens, codes (hashes only), settings, rate limits.
  `
  CREATE TABLE oauth_clients (
    client_id     TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('registered', 'cimd')),
    name          TEXT NOT NULL,
    secret_hash   TEXT,
    auth_method   TEXT NOT NULL CHECK (auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
    redirect_uris TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER,
    cached_until  INTEGER
  );
  CREATE INDEX oauth_clients_unused ON oauth_clients (created_at) WHERE last_used_at IS NULL;

  CREATE TABLE oauth_grants (
    id                    TEXT PRIMARY KEY,
    client_id             TEXT NOT NULL,
    client_kind           TEXT NOT NULL CHECK (client_kind IN ('static', 'registered', 'cimd')),
    scope                 TEXT NOT NULL,
    resource              TEXT NOT NULL,
    refresh_hash          TEXT NOT NULL UNIQUE,
    previous_refresh_hash TEXT UNIQUE,
    refresh_expires_at    INTEGER NOT NULL,
    created_at            INTEGER NOT NULL,
    last_used_at          INTEGER
  );
  CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

  CREATE TABLE oauth_access_tokens (
    token_hash TEXT PRIMARY KEY,
    grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX oauth_access_tokens_grant ON oauth_access_tokens (grant_id);
  CREATE INDEX oauth_access_tokens_expiry ON oauth_access_tokens (expires_at);

  CREATE TABLE oauth_codes (
    code_hash      TEXT PRIMARY KEY,
    client_id      TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    resource       TEXT NOT NULL,
    scope          TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    used_at        INTEGER,
    grant_id       TEXT
  );
  CREATE INDEX oauth_codes_created ON oauth_codes (created_at);

  CREATE TABLE oauth_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE oauth_limits (
    bucket       TEXT PRIMARY KEY,
    window_start INTEGER NOT NULL,
    count        INTEGER NOT NULL
  );
  `,
  // 3: principals are identities, not names (a revoked token or app re-created under the same name is someone new);
  //    apps remember when the owner first approved them (RFC 9700 §4.11.2: no redirects to an app never approved);
  //    jobs are read per principal.
  `
  ALTER TABLE personal_tokens ADD COLUMN principal TEXT;
  UPDATE personal_tokens SET principal = 'pat:' || name;
  CREATE UNIQUE INDEX personal_tokens_principal ON personal_tokens (principal);

  ALTER TABLE oauth_clients ADD COLUMN principal TEXT;
  UPDATE oauth_clients SET principal = client_id;
  ALTER TABLE oauth_clients ADD COLUMN approved_at INTEGER;
  UPDATE oauth_clients SET approved_at = last_used_at WHERE last_used_at IS NOT NULL;

  CREATE INDEX jobs_principal ON jobs (principal, status);
  `,
  // 4: refresh tokens become rows of their own, each live, grace (exchangeable once) or spent (its reuse means theft:
  //    RFC 9700 §4.14.2), so oauth_grants loses refresh_hash / previous_refresh_hash. SQLite cannot drop UNIQUE
  //    columns, so oauth_grants is rebuilt; its access tokens are set aside first, since dropping a table with
  //    foreign keys on cascades (ids and data are kept).
  `
  CREATE TEMP TABLE m4_access AS SELECT * FROM oauth_access_tokens;
  CREATE TEMP TABLE m4_refresh AS
    SELECT refresh_hash AS token_hash, id AS grant_id, 'live' AS state, COALESCE(last_used_at, created_at) AS created_at FROM oauth_grants
    UNION ALL
    SELECT previous_refresh_hash, id, 'grace', created_at FROM oauth_grants WHERE previous_refresh_hash IS NOT NULL;

  CREATE TABLE oauth_grants_v4 (
    id                 TEXT PRIMARY KEY,
    client_id          TEXT NOT NULL,
    client_kind        TEXT NOT NULL CHECK (client_kind IN ('static', 'registered', 'cimd')),
    scope              TEXT NOT NULL,
    resource           TEXT NOT NULL,
    refresh_expires_at INTEGER NOT NULL,
    created_at         INTEGER NOT NULL,
    last_used_at       INTEGER
  );
  INSERT INTO oauth_grants_v4 (id, client_id, client_kind, scope, resource, refresh_expires_at, created_at, last_used_at)
    SELECT id, client_id, client_kind, scope, resource, refresh_expires_at, created_at, last_used_at FROM oauth_grants;
  DROP TABLE oauth_access_tokens;
  DROP TABLE oauth_grants;
  ALTER TABLE oauth_grants_v4 RENAME TO oauth_grants;
  CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

  CREATE TABLE oauth_access_tokens (
    token_hash TEXT PRIMARY KEY,
    grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX oauth_access_tokens_grant ON oauth_access_tokens (grant_id);
  CREATE INDEX oauth_access_tokens_expiry ON oauth_access_tokens (expires_at);
  INSERT INTO oauth_access_tokens (token_hash, grant_id, expires_at) SELECT token_hash, grant_id, expires_at FROM m4_access;

  CREATE TABLE oauth_refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    state      TEXT NOT NULL CHECK (state IN ('live', 'grace', 'spent')),
    created_at INTEGER NOT NULL
  );
  CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
  INSERT INTO oauth_refresh_tokens (token_hash, grant_id, state, created_at) SELECT token_hash, grant_id, state, created_at FROM m4_refresh;

  DROP TABLE m4_access;
  DROP TABLE m4_refresh;
  `,
  // 5: what a personal token may do beyond the job tools (messaging: off, read, send — issue 12), and how long a job
  //    created as an MCP task is kept after it ends (its requested ttl, within the retention — issue 13).
  `
  ALTER TABLE personal_tokens ADD COLUMN messaging TEXT NOT NULL DEFAULT 'off' CHECK (messaging IN ('off', 'read', 'send'));
  ALTER TABLE jobs ADD COLUMN task_ttl_ms INTEGER;
  `,
  // 6: the jobs' indexes are keyed on what a job is born with, so its ending rewrites its row and one page of a small
  //    index (the pending and running jobs) instead of three indexes (two on its status, one on its end): 2 WAL frames
  //    instead of 4.1 in the commit a sync answer waits for (tests/store/database.test.ts holds it there). A principal's jobs are read newest
  //    first straight off jobs_principal (a page of 20 among 10,000 jobs: 5.6 → 0.09 ms), and finished jobs are reaped
  //    through jobs_created (a job finishes after it is created).
  `
  DROP INDEX jobs_status;
  DROP INDEX jobs_finished;
  DROP INDEX jobs_principal;
  CREATE INDEX jobs_principal ON jobs (principal, created_at, id);
  CREATE INDEX jobs_created ON jobs (created_at);
  CREATE INDEX jobs_active ON jobs (id) WHERE status IN ('pending', 'running');
  `,
  // 7: the tasks' expiry (creation + ttl, both set at creation) has an index of its own, over the tasks only, so the
  //    reaper that runs every few minutes reads the expired tasks instead of every stored job (100,000 jobs: 49 → 0.05 ms).
  `
  CREATE INDEX jobs_task_expiry ON jobs (created_at + task_ttl_ms) WHERE task_ttl_ms IS NOT NULL;
  `,
];
