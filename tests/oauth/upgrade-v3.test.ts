// Migration 4 on a database written at schema 3: grants, access tokens and both refresh tokens of every connection survive, now as rows.
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashToken } from "../../src/crypto/tokens.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T0 = 1_700_000_000_000;

/** A database exactly as schema 3 left it, with two connections (one rotated once), a client and a used code. */
function v3Database(): string {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-v3-"));
  dirs.push(dir);
  const path = join(dir, "hermes-mcp.db");
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA foreign_keys = ON");
  for (const sql of MIGRATIONS.slice(0, 3)) db.exec(sql);
  db.exec("PRAGMA user_version = 3");
  db.query(
    "INSERT INTO oauth_clients (client_id, kind, name, auth_method, redirect_uris, created_at, last_used_at, principal, approved_at) VALUES (?, 'registered', 'Cursor', 'none', ?, ?, ?, ?, ?)",
  ).run("hmcp_client_a", JSON.stringify(["https://app.example/cb"]), T0, T0 + 5, "hmcp_client_a", T0 + 5);
  const grant = db.query(
    "INSERT INTO oauth_grants (id, client_id, client_kind, scope, resource, refresh_hash, previous_refresh_hash, refresh_expires_at, created_at, last_used_at) VALUES (?, ?, ?, 'hermes', 'http://127.0.0.1:8765/mcp', ?, ?, ?, ?, ?)",
  );
  grant.run(
    "g_static",
    "claude-static",
    "static",
    hashToken("rt-static-current"),
    hashToken("rt-static-previous"),
    T0 + 86_400_000,
    T0,
    T0 + 10,
  );
  grant.run("g_cursor", "hmcp_client_a", "registered", hashToken("rt-cursor-current"), null, T0 + 86_400_000, T0 + 1, null);
  const access = db.query("INSERT INTO oauth_access_tokens (token_hash, grant_id, expires_at) VALUES (?, ?, ?)");
  access.run(hashToken("at-static"), "g_static", T0 + 3_600_000);
  access.run(hashToken("at-cursor"), "g_cursor", T0 + 3_600_000);
  db.query(
    "INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, resource, scope, created_at, expires_at, used_at, grant_id) VALUES ('c', 'hmcp_client_a', 'https://app.example/cb', 'x', 'r', 'hermes', ?, ?, ?, 'g_cursor')",
  ).run(T0, T0 + 60_000, T0 + 1);
  db.close();
  return path;
}

test("upgrading from schema 3 keeps every grant, access token and refresh token (current → live, previous → grace)", () => {
  const store = openStore(v3Database());
  stores.push(store);
  const { db, oauth } = store;
  expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(MIGRATIONS.length);
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);

  const staticGrant = oauth.grants.get("g_static");
  expect(staticGrant).toMatchObject({
    clientId: "claude-static",
    clientKind: "static",
    scope: "hermes",
    resource: "http://127.0.0.1:8765/mcp",
    refreshExpiresAt: T0 + 86_400_000,
    createdAt: T0,
    lastUsedAt: T0 + 10,
  });
  expect(oauth.grants.get("g_cursor")).toMatchObject({ clientId: "hmcp_client_a", clientKind: "registered", lastUsedAt: null });

  expect(oauth.refreshTokens.find(hashToken("rt-static-current"))).toEqual({ grantId: "g_static", state: "live" });
  expect(oauth.refreshTokens.find(hashToken("rt-static-previous"))).toEqual({ grantId: "g_static", state: "grace" });
  expect(oauth.refreshTokens.find(hashToken("rt-cursor-current"))).toEqual({ grantId: "g_cursor", state: "live" });

  expect(oauth.grants.findAccessToken(hashToken("at-static"))).toMatchObject({
    grantId: "g_static",
    clientId: "claude-static",
    clientKnown: false,
  });
  expect(oauth.grants.findAccessToken(hashToken("at-cursor"))).toMatchObject({
    grantId: "g_cursor",
    clientKnown: true,
    clientPrincipal: "hmcp_client_a",
  });
  expect(oauth.codes.get("c")?.grantId).toBe("g_cursor");

  // The rebuilt tables still cascade: revoking a grant takes its access and refresh tokens with it.
  expect(oauth.grants.delete("g_static")).toBe(true);
  expect(oauth.grants.findAccessToken(hashToken("at-static"))).toBeNull();
  expect(oauth.refreshTokens.find(hashToken("rt-static-current"))).toBeNull();
  expect(oauth.refreshTokens.find(hashToken("rt-static-previous"))).toBeNull();
  expect(oauth.grants.findAccessToken(hashToken("at-cursor"))).not.toBeNull();
  // The old columns are gone, and no temporary table is left behind.
  const columns = db
    .query<{ name: string }, []>("PRAGMA table_info(oauth_grants)")
    .all()
    .map((c) => c.name);
  expect(columns).not.toContain("refresh_hash");
  expect(db.query("SELECT name FROM sqlite_temp_master").all()).toEqual([]);
});

test("the rotation state machine: live → grace once, every other token spent; a grace use adds a live token beside its successor", () => {
  const store = openStore(v3Database());
  stores.push(store);
  const tokens = store.oauth.refreshTokens;
  // g_static: current live, previous grace. Presenting the live one spends the grace one.
  expect(tokens.rotateLive("g_static", hashToken("rt-static-current"), "n1", T0 + 20)).toBe(true);
  expect(tokens.find(hashToken("rt-static-previous"))?.state).toBe("spent");
  expect(tokens.find(hashToken("rt-static-current"))?.state).toBe("grace");
  expect(tokens.find("n1")?.state).toBe("live");
  // The grace token once more: spent, and n2 is live beside n1.
  expect(tokens.spendGrace("g_static", hashToken("rt-static-current"), "n2", T0 + 21)).toBe(true);
  expect(tokens.spendGrace("g_static", hashToken("rt-static-current"), "n3", T0 + 22)).toBe(false);
  expect([tokens.find("n1")?.state, tokens.find("n2")?.state]).toEqual(["live", "live"]);
  // Whichever is used first makes the other spent.
  expect(tokens.rotateLive("g_static", "n2", "n4", T0 + 23)).toBe(true);
  expect([tokens.find("n1")?.state, tokens.find("n2")?.state, tokens.find("n4")?.state]).toEqual(["spent", "grace", "live"]);
  expect(tokens.rotateLive("g_static", "n1", "n5", T0 + 24)).toBe(false);
});
