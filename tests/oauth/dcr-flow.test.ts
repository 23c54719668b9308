// Dynamic Client Registration (RFC 7591) through the consent page over plain HTTP: Cursor's registration, approve, deny, wrong password, refusals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectClient } from "../support/mcp-client.ts";
import {
  consentPage,
  mcpStatus,
  PASSWORD,
  pkce,
  redirectParams,
  registerClient,
  registerOk,
  startOAuthWorld,
  submitConsent,
  tokenRequest,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

const CURSOR_URIS = [
  "cursor://anysphere.cursor-mcp/oauth/callback",
  "https://www.cursor.com/agents/mcp/oauth/callback",
  "http://localhost:8787/callback",
];

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld({ password: true });
});
afterAll(async () => {
  await world.close();
});

const register = (metadata: Record<string, unknown>) => registerOk(world.url, metadata);

const authParams = (clientId: string, redirectUri: string, challenge: string, extra: Record<string, string> = {}) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: redirectUri,
  code_challenge: challenge,
  code_challenge_method: "S256",
  state: "dcr-state",
  scope: "mcp offline_access",
  ...extra,
});

describe("discovery with a consent password set", () => {
  test("advertises registration and client metadata documents", async () => {
    const metadata = (await (await fetch(`${world.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.registration_endpoint).toBe(`${world.url}/register`);
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });
});

describe("Cursor-style public client", () => {
  test("registers three redirect URIs at once, is approved on the consent page, redeems with PKCE alone and calls tools", async () => {
    const client = await register({
      client_name: "Cursor",
      redirect_uris: CURSOR_URIS,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    });
    expect(client.client_id).toStartWith("hmcp_client_");
    expect(client.redirect_uris).toEqual(CURSOR_URIS);
    expect(client.token_endpoint_auth_method).toBe("none");
    expect(client.client_secret).toBeUndefined();

    const pair = pkce();
    const form = await consentPage(world.url, authParams(client.client_id, "http://localhost:8787/callback", pair.challenge));
    expect(form.status).toBe(200);
    expect(form.html).toContain("Cursor");
    expect(form.html).toContain(client.client_id);
    expect(form.html).toContain("localhost:8787");
    expect(form.html).toContain("run tasks on your Hermes Agent");
    expect(form.html).toContain('type="password"');

    const approved = await submitConsent(world.url, form, PASSWORD, "approve");
    expect(approved.status).toBe(303);
    const { url, params } = redirectParams(approved);
    expect(url.href).toStartWith("http://localhost:8787/callback?");
    expect(params.get("state")).toBe("dcr-state");
    expect(params.get("iss")).toBe(world.url);
    const tokens = await tokenRequest(world.url, {
      grant_type: "authorization_code",
      code: params.get("code") as string,
      redirect_uri: "http://localhost:8787/callback",
      code_verifier: pair.verifier,
      client_id: client.client_id,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe("hermes");

    const mcp = await connectClient(world.url, tokens.body.access_token as string);
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
    await mcp.close();

    const refreshed = await tokenRequest(world.url, {
      grant_type: "refresh_token",
      refresh_token: tokens.body.refresh_token as string,
      client_id: client.client_id,
    });
    expect(refreshed.status).toBe(200);
  });

  test("its custom-scheme callback works too, with form-action allowing the scheme", async () => {
    const client = await register({ client_name: "Cursor", redirect_uris: CURSOR_URIS, token_endpoint_auth_method: "none" });
    const pair = pkce();
    const response = await fetch(
      new URL(`${world.url}/authorize?${new URLSearchParams(authParams(client.client_id, CURSOR_URIS[0] as string, pair.challenge))}`),
    );
    expect(response.headers.get("content-security-policy")).toContain("form-action 'self' cursor:");
  });
});

describe("consent page decisions", () => {
  test("a wrong password shows the page again with an error and no redirect; Deny redirects with access_denied only once the app was ever approved", async () => {
    const client = await register({
      client_name: "Inspector",
      redirect_uris: ["http://localhost:6274/oauth/callback"],
      token_endpoint_auth_method: "none",
    });
    const pair = pkce();
    const form = await consentPage(world.url, authParams(client.client_id, "http://localhost:6274/oauth/callback", pair.challenge));
    const wrong = await submitConsent(world.url, form, "not the password", "approve");
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get("location")).toBeNull();
    expect(await wrong.text()).toContain("Wrong password");

    // Never approved: Deny is a page, not a redirect to wherever a stranger registered (RFC 9700 §4.11.2).
    const deniedFirst = await submitConsent(world.url, form, "", "deny");
    expect(deniedFirst.status).toBe(200);
    expect(deniedFirst.headers.get("location")).toBeNull();
    expect(await deniedFirst.text()).toContain("You denied this app");

    // Approved once, the app hears about a later denial at its callback.
    expect((await submitConsent(world.url, form, PASSWORD, "approve")).status).toBe(303);
    const again = await consentPage(world.url, authParams(client.client_id, "http://localhost:6274/oauth/callback", pkce().challenge));
    const denied = await submitConsent(world.url, again, "", "deny");
    expect(denied.status).toBe(303);
    const { params } = redirectParams(denied);
    expect(params.get("error")).toBe("access_denied");
    expect(params.get("state")).toBe("dcr-state");
    expect(params.get("iss")).toBe(world.url);
    expect(params.get("code")).toBeNull();
  });

  test("a forged or edited anti-CSRF token, or a submission from another site, is refused", async () => {
    const client = await register({ client_name: "Victim", redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "none" });
    const form = await consentPage(world.url, authParams(client.client_id, "https://app.example/cb", pkce().challenge));
    const other = await consentPage(world.url, authParams(client.client_id, "https://app.example/cb", pkce().challenge));
    for (const forged of [
      { req: form.req, csrf: other.csrf },
      { req: other.req, csrf: form.csrf },
      { req: form.req, csrf: "" },
      { req: `${form.req}x`, csrf: form.csrf },
    ]) {
      const response = await submitConsent(world.url, forged, PASSWORD, "approve");
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
    }
    const crossSite = await submitConsent(world.url, form, PASSWORD, "approve", {
      Origin: "https://evil.example",
      "Sec-Fetch-Site": "cross-site",
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get("location")).toBeNull();
  });

  test("the page is strict: CSP without scripts or external assets, no framing, no caching", async () => {
    const client = await register({
      client_name: "<img src=x onerror=alert(1)>",
      redirect_uris: ["https://app.example/cb"],
      token_endpoint_auth_method: "none",
    });
    const response = await fetch(
      `${world.url}/authorize?${new URLSearchParams(authParams(client.client_id, "https://app.example/cb", pkce().challenge))}`,
    );
    const csp = response.headers.get("content-security-policy") as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("script-src");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x");
    expect(html).not.toMatch(/(src|href)=["']?https?:/);
    expect(html).toContain('name="viewport"');
  });
});

describe("confidential registered client", () => {
  test("gets a secret once (client_secret_basic by default) and must present it", async () => {
    const client = await register({ client_name: "Codex", redirect_uris: ["http://127.0.0.1:41234/callback"] });
    expect(client.token_endpoint_auth_method).toBe("client_secret_basic");
    expect(client.client_secret).toStartWith("hmcp_cs_");
    const pair = pkce();
    // Loopback redirect on another port (RFC 8252 §7.3).
    const form = await consentPage(world.url, authParams(client.client_id, "http://127.0.0.1:50001/callback", pair.challenge));
    expect(form.status).toBe(200);
    const { params } = redirectParams(await submitConsent(world.url, form, PASSWORD, "approve"));
    const code = params.get("code") as string;
    const grant = { grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1:50001/callback", code_verifier: pair.verifier };
    expect((await tokenRequest(world.url, { ...grant, client_id: client.client_id })).status).toBe(401);
    expect((await tokenRequest(world.url, grant, [client.client_id, "hmcp_cs_wrong"])).status).toBe(401);
    const ok = await tokenRequest(world.url, grant, [client.client_id, client.client_secret]);
    expect(ok.status).toBe(200);
    expect(await mcpStatus(world.url, ok.body.access_token as string)).toBe(200);

    // Another client cannot use this client's refresh token.
    const other = await register({ client_name: "Other", redirect_uris: ["http://127.0.0.1/cb"], token_endpoint_auth_method: "none" });
    const stolen = await tokenRequest(world.url, {
      grant_type: "refresh_token",
      refresh_token: ok.body.refresh_token as string,
      client_id: other.client_id,
    });
    expect(stolen.body.error).toBe("invalid_grant");
  });

  test("redirects it did not register are an error page, even on loopback with another path", async () => {
    const client = await register({ client_name: "Codex", redirect_uris: ["http://127.0.0.1:41234/callback"] });
    for (const uri of ["http://127.0.0.1:41234/other", "http://localhost:41234/callback", "https://evil.example/cb"]) {
      const form = await consentPage(world.url, authParams(client.client_id, uri, pkce().challenge));
      expect(form.status).toBe(400);
      expect(form.req).toBe("");
    }
  });
});

describe("registration refusals (RFC 7591 §3.2.2)", () => {
  const raw = (body: string, type = "application/json") =>
    fetch(`${world.url}/register`, { method: "POST", headers: { "Content-Type": type }, body });
  const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error;

  test("JSON only, valid JSON, size-capped", async () => {
    const form = await raw("redirect_uris=https://a.example/cb", "application/x-www-form-urlencoded");
    expect(form.status).toBe(400);
    expect(await errorOf(form)).toBe("invalid_client_metadata");
    expect(await errorOf(await raw("{not json"))).toBe("invalid_client_metadata");
    const big = await raw(JSON.stringify({ redirect_uris: ["https://a.example/cb"], client_name: "x", pad: "p".repeat(20_000) }));
    expect(big.status).toBe(413);
  });

  test("dangerous, non-loopback http, fragment and missing redirect URIs are invalid_redirect_uri", async () => {
    for (const uris of [
      ["javascript:alert(1)"],
      ["data:text/html,hi"],
      ["file:///etc/passwd"],
      ["http://evil.example/cb"],
      ["https://a.example/cb#x"],
      [],
      ["https://ok.example/cb", "vbscript:x"],
    ]) {
      const response = await raw(JSON.stringify({ redirect_uris: uris, token_endpoint_auth_method: "none" }));
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toBe("invalid_redirect_uri");
    }
    expect(await errorOf(await raw(JSON.stringify({ client_name: "no uris" })))).toBe("invalid_redirect_uri");
  });

  test("unsupported auth methods and grant types are invalid_client_metadata; unknown fields are ignored", async () => {
    expect(
      await errorOf(await raw(JSON.stringify({ redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "private_key_jwt" }))),
    ).toBe("invalid_client_metadata");
    expect(await errorOf(await raw(JSON.stringify({ redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] })))).toBe(
      "invalid_client_metadata",
    );
    const ok = await raw(
      JSON.stringify({
        redirect_uris: ["https://a.example/cb"],
        token_endpoint_auth_method: "none",
        software_id: "x",
        logo_uri: "https://a.example/l.png",
        scope: "anything",
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.headers.get("cache-control")).toBe("no-store");
  });
});

describe("dynamic clients turned off", () => {
  test("OAUTH_DYNAMIC_CLIENTS=false hides registration even with a password, and /register refuses", async () => {
    const off = await startOAuthWorld({ password: true, env: { OAUTH_DYNAMIC_CLIENTS: "false" } });
    try {
      const metadata = (await (await fetch(`${off.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata.registration_endpoint).toBeUndefined();
      expect(metadata.client_id_metadata_document_supported).toBeUndefined();
      const response = await registerClient(off.url, { redirect_uris: ["https://a.example/cb"] });
      expect(response.status).toBe(403);
    } finally {
      await off.close();
    }
  });
});
