// Client authentication at /token and /revoke: reading Basic or body credentials (one method only), and proving a client's identity.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, loadConfig } from "../../src/config/load.ts";
import { hashToken } from "../../src/crypto/tokens.ts";
import { authenticateClient, type PresentedCredentials, presentedCredentials } from "../../src/oauth/client-auth.ts";
import type { ResolvedClient } from "../../src/oauth/clients.ts";
import type { StoredClient } from "../../src/store/oauth-clients.ts";

const tokenRequest = (authorization?: string): Request =>
  new Request("http://127.0.0.1/token", { method: "POST", headers: authorization === undefined ? {} : { authorization } });
/** RFC 6749 §2.3.1: id and secret are form-encoded, joined by ':', then base64. */
const basic = (raw: string): string => `Basic ${Buffer.from(raw, "utf8").toString("base64")}`;

describe("presentedCredentials: Basic", () => {
  test("id and secret are form-decoded, so ':', '%' and '+' in them survive", () => {
    const id = "my:client";
    const secret = "p%ss:w+rd é";
    const header = basic(`${encodeURIComponent(id)}:${encodeURIComponent(secret).replace(/%20/g, "+")}`);
    expect(presentedCredentials(tokenRequest(header), {})).toEqual({
      ok: true,
      credentials: { clientId: id, secret, method: "client_secret_basic" },
    });
  });

  test("only the first ':' separates id from secret", () => {
    expect(presentedCredentials(tokenRequest(basic("id:a:b")), {})).toMatchObject({
      ok: true,
      credentials: { clientId: "id", secret: "a:b" },
    });
  });

  test("the scheme name is case-insensitive", () => {
    const encoded = Buffer.from("id:s").toString("base64");
    for (const header of [`basic ${encoded}`, `BASIC ${encoded}`, `Basic   ${encoded}`]) {
      expect({ header, result: presentedCredentials(tokenRequest(header), {}) }).toMatchObject({
        header,
        result: { ok: true, credentials: { clientId: "id", secret: "s" } },
      });
    }
  });

  test("malformed credentials are invalid_client (401): no colon, empty id, bad base64, bad percent-encoding", () => {
    for (const header of [
      basic("no-colon-here"),
      basic(":secret"),
      "Basic !!!",
      "Basic @@@@",
      basic("id%ZZ:secret"),
      basic("id:secret%"),
      basic("id:%E9"),
    ]) {
      expect({ header, result: presentedCredentials(tokenRequest(header), {}) }).toMatchObject({
        header,
        result: { ok: false, status: 401, error: "invalid_client" },
      });
    }
  });

  test("using Basic and a body secret together is invalid_request (400), even when they agree", () => {
    expect(presentedCredentials(tokenRequest(basic("id:s")), { client_secret: "s" })).toMatchObject({
      ok: false,
      status: 400,
      error: "invalid_request",
    });
    expect(presentedCredentials(tokenRequest(basic("id:s")), { client_id: "id", client_secret: "other" })).toMatchObject({
      ok: false,
      status: 400,
      error: "invalid_request",
    });
  });

  test("a body client_id must name the same client as the Basic header", () => {
    expect(presentedCredentials(tokenRequest(basic("id:s")), { client_id: "id" })).toMatchObject({
      ok: true,
      credentials: { clientId: "id", method: "client_secret_basic" },
    });
    for (const clientId of ["other", "ID", "", "id "]) {
      expect({ clientId, result: presentedCredentials(tokenRequest(basic("id:s")), { client_id: clientId }) }).toMatchObject({
        clientId,
        result: { ok: false, status: 400, error: "invalid_request" },
      });
    }
  });
});

describe("presentedCredentials: body", () => {
  test("client_id with client_secret is client_secret_post; client_id alone is a public client", () => {
    expect(presentedCredentials(tokenRequest(), { client_id: "id", client_secret: "s" })).toEqual({
      ok: true,
      credentials: { clientId: "id", secret: "s", method: "client_secret_post" },
    });
    expect(presentedCredentials(tokenRequest(), { client_id: "id" })).toEqual({
      ok: true,
      credentials: { clientId: "id", secret: null, method: "none" },
    });
  });

  test("an empty client_secret is still a presented (wrong) secret, not a public client", () => {
    expect(presentedCredentials(tokenRequest(), { client_id: "id", client_secret: "" })).toMatchObject({
      ok: true,
      credentials: { secret: "", method: "client_secret_post" },
    });
  });

  test("no client_id at all is invalid_client (401), even with a secret or a non-Basic Authorization header", () => {
    for (const [header, params] of [
      [undefined, {}],
      [undefined, { client_id: "" }],
      [undefined, { client_secret: "s" }],
      ["Bearer hmcp_at_x", {}],
      ["Basic", {}],
    ] as const) {
      expect(presentedCredentials(tokenRequest(header), params)).toMatchObject({ ok: false, status: 401, error: "invalid_client" });
    }
  });

  test("a non-Basic Authorization header is ignored in favour of the body", () => {
    expect(presentedCredentials(tokenRequest("Bearer hmcp_at_x"), { client_id: "id" })).toEqual({
      ok: true,
      credentials: { clientId: "id", secret: null, method: "none" },
    });
  });
});

describe("authenticateClient", () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const configWith = (env: Record<string, string> = {}): Config => {
    const home = mkdtempSync(join(tmpdir(), "hermes-mcp-client-auth-"));
    homes.push(home);
    return loadConfig({ env: { HOME: home, ...env }, cwd: home }).config;
  };

  const STATIC_SECRET = "s".repeat(40);
  const staticClient: ResolvedClient = {
    id: "static-id",
    kind: "static",
    name: "static",
    redirectUris: [],
    confidential: true,
    record: null,
  };
  const registered = (secretHash: string | null): ResolvedClient => {
    const record: StoredClient = {
      clientId: "hmcp_client_x",
      kind: "registered",
      name: "x",
      secretHash,
      authMethod: secretHash === null ? "none" : "client_secret_post",
      redirectUris: ["https://app.example/cb"],
      createdAt: 0,
      lastUsedAt: null,
      cachedUntil: null,
      principal: "hmcp_client_x",
      approvedAt: null,
    };
    return {
      id: record.clientId,
      kind: "registered",
      name: record.name,
      redirectUris: record.redirectUris,
      confidential: secretHash !== null,
      record,
    };
  };
  const withSecret = (secret: string | null): PresentedCredentials => ({
    clientId: "any",
    secret,
    method: secret === null ? "none" : "client_secret_post",
  });

  test("an unknown client never authenticates", () => {
    expect(authenticateClient(null, withSecret("anything"), configWith())).toBe(false);
  });

  test("a public client needs no secret (PKCE and the grant prove it elsewhere)", () => {
    const config = configWith();
    expect(authenticateClient(registered(null), withSecret(null), config)).toBe(true);
  });

  test("the static client authenticates with exactly its configured secret", () => {
    const config = configWith({ OAUTH_CLIENT_ID: "static-id", OAUTH_CLIENT_SECRET: STATIC_SECRET });
    expect(authenticateClient(staticClient, withSecret(STATIC_SECRET), config)).toBe(true);
    for (const secret of [null, "", STATIC_SECRET.slice(1), `${STATIC_SECRET}x`, STATIC_SECRET.toUpperCase(), hashToken(STATIC_SECRET)]) {
      expect({ secret, ok: authenticateClient(staticClient, withSecret(secret), config) }).toEqual({ secret, ok: false });
    }
  });

  test("the static client cannot authenticate when none is configured", () => {
    expect(authenticateClient(staticClient, withSecret(""), configWith())).toBe(false);
    expect(authenticateClient(staticClient, withSecret(STATIC_SECRET), configWith())).toBe(false);
  });

  test("a registered confidential client authenticates with the secret whose hash is stored, not with the hash itself", () => {
    const config = configWith();
    const secret = "hmcp_cs_registered-secret";
    const client = registered(hashToken(secret));
    expect(authenticateClient(client, withSecret(secret), config)).toBe(true);
    for (const wrong of [null, "", "hmcp_cs_other", hashToken(secret)]) {
      expect({ wrong, ok: authenticateClient(client, withSecret(wrong), config) }).toEqual({ wrong, ok: false });
    }
  });

  test("an absurdly long presented secret is refused without comparing", () => {
    const config = configWith();
    const long = "x".repeat(513);
    expect(authenticateClient(registered(hashToken(long)), withSecret(long), config)).toBe(false);
    const limit = "x".repeat(512);
    expect(authenticateClient(registered(hashToken(limit)), withSecret(limit), config)).toBe(true);
  });
});
