// Typed queries over oauth_grants and oauth_access_tokens: one grant per approval and its access tokens (hashes only; refresh tokens: oauth-refresh-tokens.ts).
import type { Database } from "bun:sqlite";
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";

/** Who a grant was given to: the static client, a registered app, or a metadata-document app. */
export const CLIENT_KINDS = ["static", "registered", "cimd"] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

const GrantRowSchema = builtOnFirstUse(() =>
  z.object({
    id: z.string(),
    client_id: z.string(),
    client_kind: z.enum(CLIENT_KINDS),
    scope: z.string(),
    resource: z.string(),
    refresh_expires_at: z.number(),
    created_at: z.number(),
    last_used_at: z.number().nullable(),
  }),
);

export interface Grant {
  id: string;
  clientId: string;
  clientKind: ClientKind;
  scope: string;
  resource: string;
  refreshExpiresAt: number;
  createdAt: number;
  lastUsedAt: number | null;
}

function toGrant(row: unknown): Grant {
  const r = GrantRowSchema.parse(row);
  return {
    id: r.id,
    clientId: r.client_id,
    clientKind: r.client_kind,
    scope: r.scope,
    resource: r.resource,
    refreshExpiresAt: r.refresh_expires_at,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
  };
}

/** What the /mcp hot path needs to accept an access token, in one indexed query. */
export interface AccessTokenRecord {
  grantId: string;
  clientId: string;
  clientKind: ClientKind;
  scope: string;
  resource: string;
  expiresAt: number;
  /** For registered and metadata-document clients: the client still exists (not revoked). */
  clientKnown: boolean;
  /** For registered and metadata-document clients: the identity of the app (oauth_clients.principal; its client_id when unset). */
  clientPrincipal: string | null;
}

const AccessRowSchema = builtOnFirstUse(() =>
  z.object({
    grant_id: z.string(),
    client_id: z.string(),
    client_kind: z.enum(CLIENT_KINDS),
    scope: z.string(),
    resource: z.string(),
    expires_at: z.number(),
    client_principal: z.string().nullable(),
  }),
);

export interface ClientUsage {
  clientId: string;
  grants: number;
  lastUsedAt: number | null;
}

export class OAuthGrantStore {
  private readonly accessStmt;
  private readonly touchStmt;

  constructor(private readonly db: Database) {
    this.accessStmt = db.query(
      `SELECT a.grant_id, a.expires_at, g.client_id, g.client_kind, g.scope, g.resource,
              (SELECT COALESCE(c.principal, c.client_id) FROM oauth_clients c WHERE c.client_id = g.client_id) AS client_principal
       FROM oauth_access_tokens a JOIN oauth_grants g ON g.id = a.grant_id WHERE a.token_hash = ?`,
    );
    this.touchStmt = db.query("UPDATE oauth_grants SET last_used_at = ? WHERE id = ?");
  }

  insert(grant: Omit<Grant, "lastUsedAt">): void {
    this.db
      .query(
        `INSERT INTO oauth_grants (id, client_id, client_kind, scope, resource, refresh_expires_at, created_at, last_used_at)
         VALUES ($id, $clientId, $clientKind, $scope, $resource, $refreshExpiresAt, $createdAt, $createdAt)`,
      )
      .run({
        id: grant.id,
        clientId: grant.clientId,
        clientKind: grant.clientKind,
        scope: grant.scope,
        resource: grant.resource,
        refreshExpiresAt: grant.refreshExpiresAt,
        createdAt: grant.createdAt,
      });
  }

  get(id: string): Grant | null {
    const row = this.db.query("SELECT * FROM oauth_grants WHERE id = ?").get(id);
    return row ? toGrant(row) : null;
  }

  /** A refresh slides the grant's refresh lifetime, so an active connector never expires. */
  slide(grantId: string, refreshExpiresAt: number, at: number): void {
    this.db.query("UPDATE oauth_grants SET refresh_expires_at = ?, last_used_at = ? WHERE id = ?").run(refreshExpiresAt, at, grantId);
  }

  touch(grantId: string, at: number): void {
    this.touchStmt.run(at, grantId);
  }

  /** Deletes a grant and (by cascade) its access tokens; false when there was none. */
  delete(grantId: string): boolean {
    return this.db.query("DELETE FROM oauth_grants WHERE id = ?").run(grantId).changes === 1;
  }

  deleteForClient(clientId: string): number {
    return this.db.query("DELETE FROM oauth_grants WHERE client_id = ?").run(clientId).changes;
  }

  insertAccessToken(tokenHash: string, grantId: string, expiresAt: number): void {
    this.db.query("INSERT INTO oauth_access_tokens (token_hash, grant_id, expires_at) VALUES (?, ?, ?)").run(tokenHash, grantId, expiresAt);
  }

  findAccessToken(tokenHash: string): AccessTokenRecord | null {
    const row = this.accessStmt.get(tokenHash);
    if (!row) return null;
    const r = AccessRowSchema.parse(row);
    return {
      grantId: r.grant_id,
      clientId: r.client_id,
      clientKind: r.client_kind,
      scope: r.scope,
      resource: r.resource,
      expiresAt: r.expires_at,
      clientKnown: r.client_principal !== null,
      clientPrincipal: r.client_principal,
    };
  }

  deleteAccessToken(tokenHash: string): boolean {
    return this.db.query("DELETE FROM oauth_access_tokens WHERE token_hash = ?").run(tokenHash).changes === 1;
  }

  /**
   * Live grants, and how many were ever used after being issued (last_used_at moves on /mcp use and on refresh):
   * doctor's hint that something in front of the tunnel drops MCP calls after sign-in succeeded.
   */
  useSummary(): { grants: number; used: number } {
    const row = this.db
      .query<{ grants: number; used: number | null }, []>(
        "SELECT COUNT(*) AS grants, SUM(CASE WHEN last_used_at > created_at THEN 1 ELSE 0 END) AS used FROM oauth_grants",
      )
      .get();
    return { grants: row?.grants ?? 0, used: row?.used ?? 0 };
  }

  /** Per client: live grants and the last time any of them was used. */
  usage(): ClientUsage[] {
    return this.db
      .query<{ client_id: string; grants: number; last_used_at: number | null }, []>(
        "SELECT client_id, COUNT(*) AS grants, MAX(last_used_at) AS last_used_at FROM oauth_grants GROUP BY client_id",
      )
      .all()
      .map((r) => ({ clientId: r.client_id, grants: r.grants, lastUsedAt: r.last_used_at }));
  }

  /** Expired access tokens, and grants whose refresh token expired with no live access token left. */
  deleteExpired(now: number): number {
    const tokens = this.db.query("DELETE FROM oauth_access_tokens WHERE expires_at <= ?").run(now).changes;
    const grants = this.db
      .query(
        `DELETE FROM oauth_grants WHERE refresh_expires_at <= ?
           AND NOT EXISTS (SELECT 1 FROM oauth_access_tokens a WHERE a.grant_id = oauth_grants.id)`,
      )
      .run(now).changes;
    return tokens + grants;
  }
}
