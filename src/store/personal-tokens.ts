// Personal access tokens: stored by name with only their SHA-256 hash and the principal they act as; lookups by hash, last-use bookkeeping.
import type { Database } from "bun:sqlite";

/** What a token may do with Hermes's messaging tools (migration 5; tokens from before it are "off"). */
export type TokenMessaging = "off" | "read" | "send";

export interface PersonalTokenInfo {
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  messaging: TokenMessaging;
}

/** Who a presented token acts as, and what it may do beyond the job tools. Rows from before migration 3 were backfilled with `pat:<name>`. */
export interface PersonalTokenIdentity {
  name: string;
  principal: string;
  messaging: TokenMessaging;
}

export class PersonalTokenStore {
  constructor(private readonly db: Database) {}

  /** Inserts a token acting as `principal` (unique: a new token is a new identity); false when the name is taken. */
  create(name: string, tokenHash: string, principal: string, at: number, messaging: TokenMessaging = "off"): boolean {
    const result = this.db
      .query(
        "INSERT INTO personal_tokens (name, token_hash, principal, created_at, messaging) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
      )
      .run(name, tokenHash, principal, at, messaging);
    return result.changes === 1;
  }

  list(): PersonalTokenInfo[] {
    return this.db
      .query<{ name: string; created_at: number; last_used_at: number | null; messaging: TokenMessaging }, []>(
        "SELECT name, created_at, last_used_at, messaging FROM personal_tokens ORDER BY created_at",
      )
      .all()
      .map((r) => ({ name: r.name, createdAt: r.created_at, lastUsedAt: r.last_used_at, messaging: r.messaging }));
  }

  /** Deletes by name; returns the principal it acted as, or null when there was none. */
  revoke(name: string): string | null {
    const row = this.db
      .query<{ name: string; principal: string | null }, [string]>("DELETE FROM personal_tokens WHERE name = ? RETURNING name, principal")
      .get(name);
    return row ? (row.principal ?? `pat:${row.name}`) : null;
  }

  findByHash(tokenHash: string): PersonalTokenIdentity | null {
    const row = this.db
      .query<{ name: string; principal: string | null; messaging: TokenMessaging }, [string]>(
        "SELECT name, principal, messaging FROM personal_tokens WHERE token_hash = ?",
      )
      .get(tokenHash);
    return row ? { name: row.name, principal: row.principal ?? `pat:${row.name}`, messaging: row.messaging } : null;
  }

  touch(principal: string, at: number): void {
    this.db.query("UPDATE personal_tokens SET last_used_at = ? WHERE principal = ?").run(at, principal);
  }
}
