// Who a client_id is: the static client from the environment, a registered client, or a metadata-document client — and where it may redirect.
import type { Config } from "../config/load.ts";
import type { ClientKind } from "../store/oauth-grants.ts";
import type { StoredClient } from "../store/oauth-clients.ts";
import type { Store } from "../store/index.ts";
import { isMetadataClientId, type MetadataClients } from "./cimd.ts";
import { CLIENT_ID_PREFIX } from "./constants.ts";
import { dynamicClientsEnabled } from "./password.ts";
import { matchRegisteredRedirect, staticClientAllows } from "./redirects.ts";

export interface ResolvedClient {
  id: string;
  kind: ClientKind;
  name: string;
  /** Registered redirect URIs (empty for the static client, which follows the static policy). */
  redirectUris: readonly string[];
  /** Confidential clients authenticate with a secret at /token; public ones ("none") with PKCE alone. */
  confidential: boolean;
  /** The stored record (registered and metadata clients). */
  record: StoredClient | null;
}

export type Resolution = { ok: true; client: ResolvedClient } | { ok: false; reason: string };

function fromRecord(record: StoredClient): ResolvedClient {
  return {
    id: record.clientId,
    kind: record.kind,
    name: record.name,
    redirectUris: record.redirectUris,
    confidential: record.secretHash !== null,
    record,
  };
}

export class ClientDirectory {
  constructor(
    private readonly config: Config,
    private readonly store: Store,
    private readonly metadata: MetadataClients,
  ) {}

  private staticClient(clientId: string): ResolvedClient | null {
    const configured = this.config.staticClient;
    if (!configured || configured.id !== clientId) return null;
    return {
      id: configured.id,
      kind: "static",
      name: "Static client (OAUTH_CLIENT_ID)",
      redirectUris: [],
      confidential: true,
      record: null,
    };
  }

  /** For /authorize: may fetch a metadata document. Dynamic clients need a consent password and OAUTH_DYNAMIC_CLIENTS. */
  async forAuthorization(clientId: string, now: number): Promise<Resolution> {
    const fixed = this.staticClient(clientId);
    if (fixed) return { ok: true, client: fixed };
    const isMetadata = isMetadataClientId(clientId, this.config.oauth.allowLoopbackCimd);
    if (!clientId.startsWith(CLIENT_ID_PREFIX) && !isMetadata) return { ok: false, reason: "this client_id is not known to this server" };
    if (!dynamicClientsEnabled(this.config, this.store)) {
      return {
        ok: false,
        reason: this.config.oauth.dynamicClients
          ? "this server accepts only its configured client until its owner runs `hermes-mcp set-password`"
          : "this server accepts only its configured client (OAUTH_DYNAMIC_CLIENTS=false)",
      };
    }
    if (isMetadata) {
      const result = await this.metadata.resolve(clientId, now);
      return result.ok ? { ok: true, client: fromRecord(result.client) } : result;
    }
    const record = this.store.oauth.clients.get(clientId);
    return record && record.kind === "registered"
      ? { ok: true, client: fromRecord(record) }
      : {
          ok: false,
          reason: "this client_id is not known to this server (registrations never approved expire after an hour; register again)",
        };
  }

  /** For /token and /revoke: the static client or a stored one, never a fetch (a code or grant already names it). */
  forToken(clientId: string): ResolvedClient | null {
    const fixed = this.staticClient(clientId);
    if (fixed) return fixed;
    const record = this.store.oauth.clients.get(clientId);
    return record ? fromRecord(record) : null;
  }

  /**
   * Has the owner ever approved this client? (The static client is the owner's own configuration.) Read from the
   * database, not from a cached metadata document, so an approval counts at once.
   */
  everApproved(client: ResolvedClient): boolean {
    if (client.kind === "static") return true;
    return (this.store.oauth.clients.get(client.id)?.approvedAt ?? null) !== null;
  }

  /** The one redirect decision: the static policy for the static client, registered URIs (exact, loopback any port) for the rest. */
  redirectAllowed(client: ResolvedClient, redirectUri: string): boolean {
    if (client.kind === "static")
      return staticClientAllows(redirectUri, { schemes: this.config.oauth.redirectSchemes, uris: this.config.oauth.redirectUris });
    return matchRegisteredRedirect(redirectUri, client.redirectUris);
  }
}
