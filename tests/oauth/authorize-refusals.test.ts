// /authorize refusals: no PKCE or plain PKCE, foreign, look-alike and dangerous redirect URIs (error page, never a redirect), unknown clients, foreign resources.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authorize, CLAUDE_CALLBACK, pkce, redirectParams, STATIC_ID, startOAuthWorld, type OAuthWorld } from "../support/oauth-flow.ts";

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld({ env: { OAUTH_ALLOWED_REDIRECT_URIS: "https://example.org/oauth/cb" } });
});
afterAll(async () => {
  await world.close();
});

const pair = pkce();
const base = (extra: Record<string, string | undefined> = {}): Record<string, string | undefined> => ({
  response_type: "code",
  client_id: STATIC_ID,
  redirect_uri: CLAUDE_CALLBACK,
  code_challenge: pair.challenge,
  code_challenge_method: "S256",
  state: "state-123",
  ...extra,
});

/** An error page: HTML, the given status, and no Location anywhere. */
async function expectErrorPage(response: Response, status = 400): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toContain("text/html");
  expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  return await response.text();
}

describe("PKCE (RFC 7636, S256 only)", () => {
  test("a missing code_challenge is an invalid_request redirect carrying state and iss", async () => {
    const { url, params } = redirectParams(
      await authorize(world.url, base({ code_challenge: undefined, code_challenge_method: undefined })),
    );
    expect(`${url.origin}${url.pathname}`).toBe(CLAUDE_CALLBACK);
    expect(params.get("error")).toBe("invalid_request");
    expect(params.get("error_description")).toContain("code_challenge");
    expect(params.get("state")).toBe("state-123");
    expect(params.get("iss")).toBe(world.url);
    expect(params.get("code")).toBeNull();
  });

  test("plain, or no method (which means plain), is refused", async () => {
    for (const method of ["plain", undefined, "s256"]) {
      const { params } = redirectParams(await authorize(world.url, base({ code_challenge: pair.verifier, code_challenge_method: method })));
      expect(params.get("error")).toBe("invalid_request");
      expect(params.get("error_description")).toContain("S256");
    }
  });

  test("a malformed S256 challenge is refused", async () => {
    const { params } = redirectParams(await authorize(world.url, base({ code_challenge: "short" })));
    expect(params.get("error")).toBe("invalid_request");
  });
});

describe("redirect URIs of the static client", () => {
  test("Claude's two callbacks, loopback on any port and path, and the allowed app schemes are accepted", async () => {
    for (const uri of [
      CLAUDE_CALLBACK,
      "https://claude.com/api/mcp/auth_callback",
      "http://127.0.0.1:5555/callback",
      "http://localhost:1/x",
      "http://[::1]:9/cb",
      "claude://oauth/callback",
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://example.org/oauth/cb",
    ]) {
      const response = await authorize(world.url, base({ redirect_uri: uri }));
      expect(response.status).toBe(302);
      const { params } = redirectParams(response);
      expect(params.get("code")).toStartWith("hmcp_code_");
      expect(params.get("state")).toBe("state-123");
      expect(params.get("iss")).toBe(world.url);
    }
  });

  test("foreign and look-alike https URIs get an error page and no redirect (no open redirector)", async () => {
    for (const uri of [
      "https://evil.example/callback",
      "https://claude.ai.evil.example/api/mcp/auth_callback",
      "https://claude.ai@evil.example/api/mcp/auth_callback",
      "https://claude.ai/api/mcp/auth_callback/",
      "https://claude.ai/api/mcp/auth_callback?next=https://evil.example",
      "https://claude.ai/api/mcp/auth_callback#frag",
      "https://CLAUDE.AI/api/mcp/auth_callback",
      "https://example.org/oauth/cb2",
      "http://evil.example/callback",
      "http://claude.ai/api/mcp/auth_callback",
      "evilapp://callback",
      "not a url",
    ]) {
      const html = await expectErrorPage(await authorize(world.url, base({ redirect_uri: uri })));
      expect(html).toContain("not allowed");
    }
  });

  test("dangerous schemes are never accepted", async () => {
    for (const uri of [
      "javascript:alert(document.domain)",
      "JavaScript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "file:///etc/passwd",
      "vbscript:msgbox(1)",
      "blob:https://claude.ai/x",
    ]) {
      const html = await expectErrorPage(await authorize(world.url, base({ redirect_uri: uri })));
      expect(html).not.toContain("<script>alert");
    }
  });

  test("a missing redirect_uri is an error page", async () => {
    await expectErrorPage(await authorize(world.url, base({ redirect_uri: undefined })));
  });
});

describe("clients and parameters", () => {
  test("unknown or missing client_id: an error page, even with a valid redirect", async () => {
    expect(await expectErrorPage(await authorize(world.url, base({ client_id: "someone-else" })))).toContain("Unknown client");
    await expectErrorPage(await authorize(world.url, base({ client_id: undefined })));
  });

  test("registered-style and metadata-document client ids are refused while no consent password is set", async () => {
    const html = await expectErrorPage(await authorize(world.url, base({ client_id: "hmcp_client_0123456789abcdef0123456789abcdef" })));
    expect(html).toContain("set-password");
    expect(
      await expectErrorPage(await authorize(world.url, base({ client_id: "https://claude.ai/oauth/mcp-oauth-client-metadata" }))),
    ).toContain("set-password");
  });

  test("a repeated parameter is an error page (RFC 6749 §3.1)", async () => {
    const url = new URL(`${world.url}/authorize`);
    for (const [k, v] of Object.entries(base())) url.searchParams.append(k, v as string);
    url.searchParams.append("redirect_uri", "https://evil.example/cb");
    await expectErrorPage(await fetch(url, { redirect: "manual" }));
  });

  test("response_type other than code → unsupported_response_type", async () => {
    const { params } = redirectParams(await authorize(world.url, base({ response_type: "token" })));
    expect(params.get("error")).toBe("unsupported_response_type");
  });

  test("a foreign resource (RFC 8707) → invalid_target; ours, with or without a trailing slash, passes", async () => {
    for (const resource of ["https://other.example/mcp", `${world.url}/other`, `${world.url}/mcp?x=1`]) {
      const { params } = redirectParams(await authorize(world.url, base({ resource })));
      expect(params.get("error")).toBe("invalid_target");
    }
    for (const resource of [`${world.url}/mcp`, `${world.url}/mcp/`]) {
      const { params } = redirectParams(await authorize(world.url, base({ resource })));
      expect(params.get("code")).toStartWith("hmcp_code_");
    }
  });

  test("unknown and extra scopes never fail the flow", async () => {
    const { params } = redirectParams(await authorize(world.url, base({ scope: "openid profile offline_access claudeai mcp:tools" })));
    expect(params.get("code")).toStartWith("hmcp_code_");
  });

  test("state is passed through exactly, including characters that need encoding", async () => {
    const state = "a b&c=d/é?#";
    const { params } = redirectParams(await authorize(world.url, base({ state })));
    expect(params.get("state")).toBe(state);
  });

  test("a foreign Host is refused before any OAuth logic (DNS rebinding)", async () => {
    const response = await authorize(world.url, base(), { Host: "evil.example" });
    expect(response.status).toBe(421);
  });
});
