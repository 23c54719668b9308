// Who an OAuth access token speaks for on /mcp: the app's principal — fixed when the app is first stored, new after a revoke and re-approval.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../../src/config/load.ts";
import { hashToken } from "../../src/crypto/tokens.ts";
import { silentLogger } from "../../src/log.ts";
import { oauthAccessTokenKind } from "../../src/oauth/access-token-kind.ts";
import { MetadataClients } from "../../src/oauth/cimd.ts";
import { revokeClient } from "../../src/oauth/management.ts";
import type { ClientKind } from "../../src/store/oauth-grants.ts";
import type { StoredClient } from "../../src/store/oauth-clients.ts";
import { openStore, type Store } from "../../src/store/index.ts";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const NOW = Date.now();
const CIMD_ID = "https://app.example/oauth/client.json";

function setup(): { store: Store; config: Config } {
  const home = mkdtempSync(join(tmpdir(), "hermes-mcp-principals-"));
  dirs.push(home);
  const config = loadConfig({
    env: { HOME: home, OAUTH_CLIENT_ID: "claude-static", OAUTH_CLIENT_SECRET: "s".repeat(40) },
    cwd: home,
  }).config;
  const store = openStore(join(home, "hermes-mcp.db"));
  stores.push(store);
  return { store, config };
}

let serial = 0;
/** A connection of `clientId` with one access token; the principal the /mcp verifier sees for it. */
function principalOf(store: Store, config: Config, clientId: string, kind: ClientKind): unknown {
  const grantId = `g_${++serial}`;
  store.oauth.grants.insert({
    id: grantId,
    clientId,
    clientKind: kind,
    scope: "hermes",
    resource: config.resourceUrl,
    refreshExpiresAt: NOW + 86_400_000,
    createdAt: NOW,
  });
  const token = `hmcp_at_${serial}`;
  store.oauth.grants.insertAccessToken(hashToken(token), grantId, NOW + 3_600_000);
  const info = oauthAccessTokenKind(store, config).lookup(hashToken(token), token);
  expect(info?.extra?.grantId).toBe(grantId);
  return info?.extra?.principal;
}

/** A fetched metadata document as the daemon keeps it in memory (never re-fetched between approvals here). */
const fetched: StoredClient = {
  clientId: CIMD_ID,
  kind: "cimd",
  name: "App",
  secretHash: null,
  authMethod: "none",
  redirectUris: ["https://app.example/cb"],
  createdAt: NOW,
  lastUsedAt: null,
  cachedUntil: NOW + 600_000,
  principal: CIMD_ID,
  approvedAt: null,
};

describe("principals on OAuth access tokens", () => {
  test("a metadata-document app: <url>#<random> from its first approval, kept by refreshes, new after revoke and re-approval", () => {
    const { store, config } = setup();
    const metadata = new MetadataClients(store, false, silentLogger);
    metadata.remember(fetched);
    const first = principalOf(store, config, CIMD_ID, "cimd");
    expect(first).toMatch(new RegExp(`^${CIMD_ID.replace(/[.]/g, "\\.")}#[0-9a-f]{8}$`));

    // Approved again, its document fetched again: the same app, the same principal.
    metadata.remember({ ...fetched, name: "App v2" });
    store.oauth.clients.refreshMetadata({ ...fetched, name: "App v3", principal: "ignored" });
    expect(principalOf(store, config, CIMD_ID, "cimd")).toBe(first);
    expect(store.oauth.clients.get(CIMD_ID)?.name).toBe("App v3");

    // `hermes-mcp clients revoke`, then the owner approves it again (the daemon still holding the same cached document).
    revokeClient(store, config, CIMD_ID);
    metadata.remember(fetched);
    const second = principalOf(store, config, CIMD_ID, "cimd");
    expect(second).toStartWith(`${CIMD_ID}#`);
    expect(second).not.toBe(first);
  });

  test("a refresh of a revoked metadata-document app's document does not bring its row back", () => {
    const { store } = setup();
    store.oauth.clients.refreshMetadata(fetched);
    expect(store.oauth.clients.get(CIMD_ID)).toBeNull();
  });

  test("a registered app is its own client_id: registering again is a new principal; the static client is its id; NULL falls back to client_id", () => {
    const { store, config } = setup();
    const register = (clientId: string) =>
      store.oauth.clients.upsert({
        clientId,
        kind: "registered",
        name: "Cursor",
        secretHash: null,
        authMethod: "none",
        redirectUris: ["https://app.example/cb"],
        createdAt: NOW,
        cachedUntil: null,
        principal: clientId,
      });
    register("hmcp_client_one");
    register("hmcp_client_two");
    expect(principalOf(store, config, "hmcp_client_one", "registered")).toBe("hmcp_client_one");
    expect(principalOf(store, config, "hmcp_client_two", "registered")).toBe("hmcp_client_two");
    expect(principalOf(store, config, "claude-static", "static")).toBe("claude-static");
    store.db.query("UPDATE oauth_clients SET principal = NULL WHERE client_id = 'hmcp_client_one'").run();
    expect(principalOf(store, config, "hmcp_client_one", "registered")).toBe("hmcp_client_one");
  });
});
