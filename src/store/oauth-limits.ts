// Typed queries over oauth_limits: fixed-window counters behind the abuse limits (failed client auth, consent passwords, registrations).
import type { Database } from "bun:sqlite";

export interface LimitWindow {
  windowStart: number;
  count: number;
}

export class OAuthLimitStore {
  constructor(private readonly db: Database) {}

  get(bucket: string): LimitWindow | null {
    const row = this.db
      .query<{ window_start: number; count: number }, [string]>("SELECT window_start, count FROM oauth_limits WHERE bucket = ?")
      .get(bucket);
    return row ? { windowStart: row.window_start, count: row.count } : null;
  }

  put(bucket: string, window: LimitWindow): void {
    this.db
      .query(
        `INSERT INTO oauth_limits (bucket, window_start, count) VALUES (?, ?, ?)
         ON CONFLICT (bucket) DO UPDATE SET window_start = excluded.window_start, count = excluded.count`,
      )
      .run(bucket, window.windowStart, window.count);
  }

  delete(bucket: string): void {
    this.db.query("DELETE FROM oauth_limits WHERE bucket = ?").run(bucket);
  }

  /** Deletes `family` and every `family:<key>` bucket (e.g. all consent counters, global and per address). */
  deleteFamily(family: string): void {
    this.db.query("DELETE FROM oauth_limits WHERE bucket = ?1 OR substr(bucket, 1, length(?1) + 1) = ?1 || ':'").run(family);
  }

  /** The windows of every `family:<key>` bucket (not the global one), keyed by bucket name. */
  members(family: string): Map<string, LimitWindow> {
    const rows = this.db
      .query<{ bucket: string; window_start: number; count: number }, [string]>(
        "SELECT bucket, window_start, count FROM oauth_limits WHERE substr(bucket, 1, length(?1) + 1) = ?1 || ':'",
      )
      .all(family);
    return new Map(rows.map((r) => [r.bucket, { windowStart: r.window_start, count: r.count }]));
  }

  deleteOlderThan(before: number): number {
    return this.db.query("DELETE FROM oauth_limits WHERE window_start < ?").run(before).changes;
  }
}
