// Typed queries over oauth_refresh_tokens: every refresh token a grant ever issued (hashes only), live, grace (once) or spent.
import type { Database } from "bun:sqlite";
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";

export const REFRESH_STATES = ["live", "grace", "spent"] as const;
export type RefreshState = (typeof REFRESH_STATES)[number];

const RefreshRowSchema = builtOnFirstUse(() => z.object({ grant_id: z.string(), state: z.enum(REFRESH_STATES) }));

export interface RefreshTokenRecord {
  grantId: string;
  state: RefreshState;
}

export class OAuthRefreshTokenStore {
  private readonly findStmt;

  constructor(private readonly db: Database) {
    this.findStmt = db.query("SELECT grant_id, state FROM oauth_refresh_tokens WHERE token_hash = ?");
  }

  find(tokenHash: string): RefreshTokenRecord | null {
    const row = this.findStmt.get(tokenHash);
    if (!row) return null;
    const r = RefreshRowSchema.parse(row);
    return { grantId: r.grant_id, state: r.state };
  }

  insert(tokenHash: string, grantId: string, state: RefreshState, at: number): void {
    this.db
      .query("INSERT INTO oauth_refresh_tokens (token_hash, grant_id, state, created_at) VALUES (?, ?, ?, ?)")
      .run(tokenHash, grantId, state, at);
  }

  /**
   * A live token was presented: every other token of its grant is spent, it becomes the grace token, `nextHash` is live.
   * Guarded on the presented token still being live; false when a concurrent rotation or revocation won.
   */
  rotateLive(grantId: string, presentedHash: string, nextHash: string, at: number): boolean {
    if (
      this.db
        .query("UPDATE oauth_refresh_tokens SET state = 'grace' WHERE token_hash = ? AND grant_id = ? AND state = 'live'")
        .run(presentedHash, grantId).changes !== 1
    )
      return false;
    this.db
      .query("UPDATE oauth_refresh_tokens SET state = 'spent' WHERE grant_id = ? AND token_hash <> ? AND state <> 'spent'")
      .run(grantId, presentedHash);
    this.insert(nextHash, grantId, "live", at);
    return true;
  }

  /** The grace token was presented (its successor still unused): it is spent now, and `nextHash` is live beside the successor. */
  spendGrace(grantId: string, presentedHash: string, nextHash: string, at: number): boolean {
    if (
      this.db
        .query("UPDATE oauth_refresh_tokens SET state = 'spent' WHERE token_hash = ? AND grant_id = ? AND state = 'grace'")
        .run(presentedHash, grantId).changes !== 1
    )
      return false;
    this.insert(nextHash, grantId, "live", at);
    return true;
  }

  /** Spent tokens are remembered (to recognise their reuse) until they are this old. */
  deleteSpentBefore(before: number): number {
    return this.db.query("DELETE FROM oauth_refresh_tokens WHERE state = 'spent' AND created_at < ?").run(before).changes;
  }
}
