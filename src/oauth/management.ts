// What `hermes-mcp clients list|revoke` shows and does: every client (static, registered, metadata, personal tokens) and revocation by id.
import type { Config } from "../config/load.ts";
import type { Store } from "../store/index.ts";
import { listPersonalTokens, revokePersonalToken } from "./personal-tokens.ts";
import { nameHint } from "../name-hint.ts";

export type ClientListKind = "static" | "registered" | "cimd" | "token";

export interface ClientListRow {
  id: string;
  kind: ClientListKind;
  name: string;
  createdAt: number | null;
  lastUsedAt: number | null;
  /** Live grants (connections holding a refresh token); personal tokens have none. */
  grants: number;
}

export class ManagementError extends Error {
  override name = "ManagementError";
}

const PAT_PREFIX = "pat:";
const latest = (a: number | null, b: number | null | undefined): number | null =>
  a === null ? (b ?? null) : b == null ? a : Math.max(a, b);

export function listClients(store: Store, config: Config): ClientListRow[] {
  const usage = new Map(store.oauth.grants.usage().map((u) => [u.clientId, u]));
  const rows: ClientListRow[] = [];
  if (config.staticClient) {
    const used = usage.get(config.staticClient.id);
    rows.push({
      id: config.staticClient.id,
      kind: "static",
      name: "static client (OAUTH_CLIENT_ID)",
      createdAt: null,
      lastUsedAt: used?.lastUsedAt ?? null,
      grants: used?.grants ?? 0,
    });
  }
  for (const client of store.oauth.clients.list()) {
    const used = usage.get(client.clientId);
    rows.push({
      id: client.clientId,
      kind: client.kind,
      name: client.name,
      createdAt: client.createdAt,
      lastUsedAt: latest(client.lastUsedAt, used?.lastUsedAt),
      grants: used?.grants ?? 0,
    });
  }
  for (const token of listPersonalTokens(store)) {
    rows.push({
      id: `${PAT_PREFIX}${token.name}`,
      kind: "token",
      name: token.name,
      createdAt: token.createdAt,
      lastUsedAt: token.lastUsedAt,
      grants: 0,
    });
  }
  return rows;
}

/**
 * Revokes by id; the running daemon refuses the revoked tokens on its next request (its verifier cache is keyed on
 * SQLite's data_version, which this commit moves). Returns a sentence for the owner.
 */
export function revokeClient(store: Store, config: Config, id: string): string {
  if (id.startsWith(PAT_PREFIX)) {
    try {
      revokePersonalToken(store, id.slice(PAT_PREFIX.length));
    } catch (error) {
      throw new ManagementError((error as Error).message);
    }
    return `personal access token "${id.slice(PAT_PREFIX.length)}" revoked`;
  }
  const oauth = store.oauth;
  if (config.staticClient && id === config.staticClient.id) {
    const grants = oauth.transaction(() => {
      oauth.codes.deleteForClient(id);
      return oauth.grants.deleteForClient(id);
    });
    return `revoked ${grants} connection(s) of the static client; it can sign in again with its secret — if the secret leaked, run \`hermes-mcp mint-client\` and replace OAUTH_CLIENT_SECRET`;
  }
  const client = oauth.clients.get(id);
  if (!client) {
    const known = listClients(store, config).map((r) => r.id);
    throw new ManagementError(`no client with id "${id}"${nameHint(id, known)} — see \`hermes-mcp clients list\``);
  }
  const grants = oauth.transaction(() => {
    oauth.codes.deleteForClient(id);
    const n = oauth.grants.deleteForClient(id);
    oauth.clients.delete(id);
    return n;
  });
  return `${client.kind === "cimd" ? "metadata-document client" : "registered client"} ${id} revoked with ${grants} connection(s); it needs your approval to connect again`;
}
