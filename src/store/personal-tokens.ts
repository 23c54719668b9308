// Personal access tokens: stored by name with only their SHA-256 hash; lookups by hash, last-use bookkeeping.
import type { Database } from "bun:sqlite";

export interface PersonalTokenInfo {
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export class PersonalTokenStore {
  constructor(private readonly db: Database) {}

  /** Inserts a token; false when the name is taken. */
  create(name: string, tokenHash: string, at: number): boolean {
    const result = this.db
      .query("INSERT INTO personal_tokens (name, token_hash, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING")
      .run(name, tokenHash, at);
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

  /** Deletes by name; false when there was none. */
  revoke(name: string): boolean {
    return this.db.query("DELETE FROM personal_tokens WHERE name = ?").run(name).changes === 1;
  }

  findByHash(tokenHash: string): { name: string } | null {
    return this.db.query<{ name: string }, [string]>("SELECT name FROM personal_tokens WHERE token_hash = ?").get(tokenHash) ?? null;
  }

  touch(name: string, at: number): void {
    this.db.query("UPDATE personal_tokens SET last_used_at = ? WHERE name = ?").run(at, name);
  }
}
