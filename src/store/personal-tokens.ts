// Personal access tokens: stored by name with only their SHA-256 hash and the principal they act as; lookups by hash, last-use bookkeeping.
import type { Database } from "bun:sqlite";

export interface PersonalTokenInfo {
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** Who a presented token acts as. Rows from before migration 3 were backfilled with `pat:<name>`. */
export interface PersonalTokenIdentity {
  name: string;
  principal: string;
}

export class PersonalTokenStore {
  constructor(private readonly db: Database) {}

  /** Inserts a token acting as `principal` (unique: a new token is a new identity); false when the name is taken. */
  create(name: string, tokenHash: string, principal: string, at: number): boolean {
    const result = this.db
      .query("INSERT INTO personal_tokens (name, token_hash, principal, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING")
      .run(name, tokenHash, principal, at);
    return result.changes === 1;
  }

  list(): PersonalTokenInfo[] {
    return this.db
      .query<{ name: string; created_at: number; last_used_at: number | null }, []>(
        "SELECT name, created_at, last_used_at FROM personal_tokens ORDER BY created_at",
      )
      .all()
      .map((r) => ({ name: r.name, createdAt: r.created_at, lastUsedAt: r.last_used_at }));
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
      .query<{ name: string; principal: string | null }, [string]>("SELECT name, principal FROM personal_tokens WHERE token_hash = ?")
      .get(tokenHash);
    return row ? { name: row.name, principal: row.principal ?? `pat:${row.name}` } : null;
  }

  touch(principal: string, at: number): void {
    this.db.query("UPDATE personal_tokens SET last_used_at = ? WHERE principal = ?").run(at, principal);
  }
}
