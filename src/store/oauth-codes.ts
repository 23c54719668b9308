// Typed queries over oauth_codes: authorization codes by hash, with what they are bound to, single-use marking and bounded eviction.
import type { Database } from "bun:sqlite";
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";

const CodeRowSchema = builtOnFirstUse(() =>
  z.object({
    code_hash: z.string(),
    client_id: z.string(),
    redirect_uri: z.string(),
    code_challenge: z.string(),
    resource: z.string(),
    scope: z.string(),
    created_at: z.number(),
    expires_at: z.number(),
    used_at: z.number().nullable(),
    grant_id: z.string().nullable(),
  }),
);

export interface StoredCode {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  /** The grant its redemption created (what a replay revokes). */
  grantId: string | null;
}

export type NewCode = Omit<StoredCode, "usedAt" | "grantId">;

export class OAuthCodeStore {
  constructor(private readonly db: Database) {}

  insert(code: NewCode): void {
    this.db
      .query(
        `INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, resource, scope, created_at, expires_at)
         VALUES ($codeHash, $clientId, $redirectUri, $codeChallenge, $resource, $scope, $createdAt, $expiresAt)`,
      )
      .run({ ...code });
  }

  get(codeHash: string): StoredCode | null {
    const row = this.db.query("SELECT * FROM oauth_codes WHERE code_hash = ?").get(codeHash);
    if (!row) return null;
    const r = CodeRowSchema.parse(row);
    return {
      codeHash: r.code_hash,
      clientId: r.client_id,
      redirectUri: r.redirect_uri,
      codeChallenge: r.code_challenge,
      resource: r.resource,
      scope: r.scope,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      usedAt: r.used_at,
      grantId: r.grant_id,
    };
  }

  /** Marks a code used (and what it produced); false when it already was — only one redemption can win. */
  markUsed(codeHash: string, at: number, grantId: string | null): boolean {
    return (
      this.db.query("UPDATE oauth_codes SET used_at = ?, grant_id = ? WHERE code_hash = ? AND used_at IS NULL").run(at, grantId, codeHash)
        .changes === 1
    );
  }

  /** Keeps at most `keep` unused codes, evicting the oldest (bounded, never refusing a new authorization). */
  evictUnused(keep: number): number {
    return this.db
      .query(
        `DELETE FROM oauth_codes WHERE code_hash IN (
           SELECT code_hash FROM oauth_codes WHERE used_at IS NULL ORDER BY created_at DESC LIMIT -1 OFFSET ?)`,
      )
      .run(keep).changes;
  }

  /** Codes that expired before `before` (used ones are kept that long to recognise a replay). */
  deleteExpired(before: number): number {
    return this.db.query("DELETE FROM oauth_codes WHERE expires_at < ?").run(before).changes;
  }

  deleteForClient(clientId: string): number {
    return this.db.query("DELETE FROM oauth_codes WHERE client_id = ?").run(clientId).changes;
  }
}
