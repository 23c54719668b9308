// Typed queries over oauth_settings: small named values (the consent password's argon2id hash).
import type { Database } from "bun:sqlite";

export class OAuthSettingsStore {
  constructor(private readonly db: Database) {}

  get(key: string): string | null {
    return this.db.query<{ value: string }, [string]>("SELECT value FROM oauth_settings WHERE key = ?").get(key)?.value ?? null;
  }

  set(key: string, value: string): void {
    this.db
      .query("INSERT INTO oauth_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
      .run(key, value);
  }

  delete(key: string): boolean {
    return this.db.query("DELETE FROM oauth_settings WHERE key = ?").run(key).changes === 1;
  }
}
