// Typed queries over oauth_clients: registered (RFC 7591) and client-metadata-document clients; secrets only as hashes.
import type { Database } from "bun:sqlite";
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";

export const CLIENT_AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

const ClientRowSchema = builtOnFirstUse(() =>
  z.object({
    client_id: z.string(),
    kind: z.enum(["registered", "cimd"]),
    name: z.string(),
    secret_hash: z.string().nullable(),
    auth_method: z.enum(CLIENT_AUTH_METHODS),
    redirect_uris: z.string().transform((text) => z.array(z.string()).parse(JSON.parse(text))),
    created_at: z.number(),
    last_used_at: z.number().nullable(),
    cached_until: z.number().nullable(),
    principal: z.string().nullable(),
    approved_at: z.number().nullable(),
  }),
);

export interface StoredClient {
  clientId: string;
  kind: "registered" | "cimd";
  name: string;
  secretHash: string | null;
  authMethod: ClientAuthMethod;
  redirectUris: string[];
  createdAt: number;
  lastUsedAt: number | null;
  /** Client metadata documents: when the cached copy must be fetched again. */
  cachedUntil: number | null;
  /** The identity of the app (jobs and sessions are its own): fixed when the row is first inserted, kept by refreshes. */
  principal: string;
  /** When the owner first approved it; until then errors are never redirected to it (RFC 9700 §4.11.2). */
  approvedAt: number | null;
}

/** A client to insert or refresh; `principal` is used only when the row is new (an existing row keeps its own). */
export type NewClient = Omit<StoredClient, "lastUsedAt" | "approvedAt">;

function toClient(row: unknown): StoredClient {
  const r = ClientRowSchema.parse(row);
  return {
    clientId: r.client_id,
    kind: r.kind,
    name: r.name,
    secretHash: r.secret_hash,
    authMethod: r.auth_method,
    redirectUris: r.redirect_uris,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    cachedUntil: r.cached_until,
    principal: r.principal ?? r.client_id,
    approvedAt: r.approved_at,
  };
}

export class OAuthClientStore {
  private readonly getStmt;

  constructor(private readonly db: Database) {
    this.getStmt = db.query("SELECT * FROM oauth_clients WHERE client_id = ?");
  }

  get(clientId: string): StoredClient | null {
    const row = this.getStmt.get(clientId);
    return row ? toClient(row) : null;
  }

  /** Inserts, or updates the metadata of an existing row (keeping its creation time, last use, approval and principal). */
  upsert(client: NewClient): void {
    this.db
      .query(
        `INSERT INTO oauth_clients (client_id, kind, name, secret_hash, auth_method, redirect_uris, created_at, cached_until, principal)
         VALUES ($clientId, $kind, $name, $secretHash, $authMethod, $redirectUris, $createdAt, $cachedUntil, $principal)
         ON CONFLICT (client_id) DO UPDATE SET name = excluded.name, secret_hash = excluded.secret_hash, auth_method = excluded.auth_method,
           redirect_uris = excluded.redirect_uris, cached_until = excluded.cached_until`,
      )
      .run({
        clientId: client.clientId,
        kind: client.kind,
        name: client.name,
        secretHash: client.secretHash,
        authMethod: client.authMethod,
        redirectUris: JSON.stringify(client.redirectUris),
        createdAt: client.createdAt,
        cachedUntil: client.cachedUntil,
        principal: client.principal,
      });
  }

  /** A metadata document fetched again: updates the stored copy only if it still exists (a revoked client is not brought back). */
  refreshMetadata(client: NewClient): void {
    this.db
      .query("UPDATE oauth_clients SET name = ?, redirect_uris = ?, cached_until = ? WHERE client_id = ? AND kind = 'cimd'")
      .run(client.name, JSON.stringify(client.redirectUris), client.cachedUntil, client.clientId);
  }

  /** The owner approved it: remembered the first time only. */
  markApproved(clientId: string, at: number): void {
    this.db.query("UPDATE oauth_clients SET approved_at = COALESCE(approved_at, ?) WHERE client_id = ?").run(at, clientId);
  }

  touch(clientId: string, at: number): void {
    this.db.query("UPDATE oauth_clients SET last_used_at = ? WHERE client_id = ?").run(at, clientId);
  }

  /** Deletes a client; false when there was none. (Its grants are deleted by the caller, in the same transaction.) */
  delete(clientId: string): boolean {
    return this.db.query("DELETE FROM oauth_clients WHERE client_id = ?").run(clientId).changes === 1;
  }

  list(): StoredClient[] {
    return this.db.query("SELECT * FROM oauth_clients ORDER BY created_at").all().map(toClient);
  }

  countPendingRegistrations(): number {
    return (
      this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM oauth_clients WHERE kind = 'registered' AND approved_at IS NULL").get()
        ?.n ?? 0
    );
  }

  /**
   * Makes room among never-approved registrations: deletes the oldest beyond `keep`, but only those created before
   * `before` (a registration the owner may be approving right now is never evicted). Returns how many went.
   */
  evictPendingRegistrations(keep: number, before: number, now: number): number {
    return this.db
      .query(
        // Created "in the future" (the clock was set back since) counts as old (src/clock.ts): a flood registered before
        // the step must not shield itself from eviction, and lock the owner's own registration out, until it catches up.
        `DELETE FROM oauth_clients WHERE (created_at < ?2 OR created_at > ?3) AND client_id IN (
           SELECT client_id FROM oauth_clients WHERE kind = 'registered' AND approved_at IS NULL
           ORDER BY CASE WHEN created_at > ?3 THEN 0 ELSE created_at END DESC LIMIT -1 OFFSET ?1)`,
      )
      .run(keep, before, now).changes;
  }

  /** Registrations never approved, created before `before`; client metadata documents past their cache with no grant left. */
  deleteStale(before: number, now: number): number {
    const unused = this.db
      .query("DELETE FROM oauth_clients WHERE kind = 'registered' AND approved_at IS NULL AND (created_at < ? OR created_at > ?)")
      .run(before, now).changes;
    const cimd = this.db
      .query(
        `DELETE FROM oauth_clients WHERE kind = 'cimd' AND cached_until < ?
           AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.client_id)
           AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.client_id = oauth_clients.client_id AND c.expires_at > ?)`,
      )
      .run(now, now).changes;
    return unused + cimd;
  }
}
