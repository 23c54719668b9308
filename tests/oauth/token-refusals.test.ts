// /token and /revoke: client authentication, wrong verifier, code replay revoking what it issued, refresh rotation (one grace use, reuse revokes), audiences.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  CLAUDE_CALLBACK,
  mcpStatus,
  refreshWith,
  STATIC_ID,
  staticCode,
  staticTokens,
  startOAuthWorld,
  tokenRequest,
  staticExchange,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(async () => {
  await world.close();
});

const redeem = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  tokenRequest(world.url, { ...staticExchange(world, code, verifier), ...extra });

describe("client authentication", () => {
  test("a wrong secret (post or Basic) is 401 invalid_client; Basic gets a Basic challenge", async () => {
    const { code, pair } = await staticCode(world);
    const post = await redeem(code, pair.verifier, { client_secret: "wrong-secret-wrong-secret-wrong-secret" });
    expect(post.status).toBe(401);
    expect(post.body.error).toBe("invalid_client");
    const basic = await tokenRequest(
      world.url,
      { grant_type: "authorization_code", code, redirect_uri: CLAUDE_CALLBACK, code_verifier: pair.verifier },
      [STATIC_ID, "nope"],
    );
    expect(basic.status).toBe(401);
    expect(basic.headers.get("www-authenticate")).toContain("Basic");
    // The code was not spent by failed client authentication: the real client still redeems it.
    expect((await redeem(code, pair.verifier)).status).toBe(200);
  });

  test("no secret for the confidential static client, an unknown client, or two methods at once are refused", async () => {
    const { code, pair } = await staticCode(world);
    const none = await tokenRequest(world.url, {
      grant_type: "authorization_code",
      code,
      redirect_uri: CLAUDE_CALLBACK,
      code_verifier: pair.verifier,
      client_id: STATIC_ID,
    });
    expect(none.status).toBe(401);
    const unknown = await redeem(code, pair.verifier, { client_id: "who-is-this" });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe("invalid_client");
    const both = await tokenRequest(
      world.url,
      {
        grant_type: "authorization_code",
        code,
        redirect_uri: CLAUDE_CALLBACK,
        code_verifier: pair.verifier,
        client_secret: world.staticSecret,
      },
      [STATIC_ID, world.staticSecret],
    );
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("invalid_request");
    const missing = await tokenRequest(world.url, { grant_type: "authorization_code", code });
    expect(missing.status).toBe(401);
  });
});

describe("authorization codes", () => {
  test("a successful exchange answers no-store with the granted scope", async () => {
    const { code, pair } = await staticCode(world);
    const answer = await redeem(code, pair.verifier);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.body).toMatchObject({ token_type: "Bearer", scope: "hermes", expires_in: 86_400 });
    expect(String(answer.body.access_token)).toStartWith("hmcp_at_");
  });

  test("a wrong PKCE verifier is invalid_grant, and the code is spent", async () => {
    const { code, pair } = await staticCode(world);
    const wrong = await redeem(code, "x".repeat(43));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
    expect(String(wrong.body.error_description)).toContain("PKCE");
    expect((await redeem(code, pair.verifier)).body.error).toBe("invalid_grant");
  });

  test("a missing verifier is invalid_request; a different redirect_uri is invalid_grant", async () => {
    const { code, pair } = await staticCode(world);
    const missing = await tokenRequest(world.url, {
      grant_type: "authorization_code",
      code,
      redirect_uri: CLAUDE_CALLBACK,
      client_id: STATIC_ID,
      client_secret: world.staticSecret,
    });
    expect(missing.body.error).toBe("invalid_request");
    const other = await redeem(code, pair.verifier, { redirect_uri: "https://claude.com/api/mcp/auth_callback" });
    expect(other.body.error).toBe("invalid_grant");
  });

  test("a foreign resource at the token endpoint is invalid_target", async () => {
    const { code, pair } = await staticCode(world);
    const answer = await redeem(code, pair.verifier, { resource: "https://other.example/mcp" });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_target");
  });

  test("a replayed code is refused and revokes every token issued from it (RFC 6749 §10.5)", async () => {
    const { code, pair } = await staticCode(world);
    const first = await redeem(code, pair.verifier);
    expect(first.status).toBe(200);
    const access = first.body.access_token as string;
    expect(await mcpStatus(world.url, access)).toBe(200);
    const replay = await redeem(code, pair.verifier);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    expect(String(replay.body.error_description)).toContain("revoked");
    // At once, despite the verifier's cache.
    expect(await mcpStatus(world.url, access)).toBe(401);
    expect((await refreshWith(world, first.body.refresh_token as string)).body.error).toBe("invalid_grant");
  });

  test("an unknown code, an unsupported grant type and a JSON body are refused with specific errors", async () => {
    expect((await redeem("hmcp_code_nope", "x".repeat(43))).body.error).toBe("invalid_grant");
    const password = await tokenRequest(world.url, {
      grant_type: "password",
      username: "a",
      password: "b",
      client_id: STATIC_ID,
      client_secret: world.staticSecret,
    });
    expect(password.body.error).toBe("unsupported_grant_type");
    const none = await tokenRequest(world.url, { client_id: STATIC_ID, client_secret: world.staticSecret });
    expect(none.body.error).toBe("invalid_request");
    const json = await fetch(`${world.url}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ grant_type: "authorization_code" }),
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toBe("invalid_request");
  });

  test("an oversized body is 413 and GET is 405", async () => {
    const big = await fetch(`${world.url}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `grant_type=x&pad=${"a".repeat(20_000)}`,
    });
    expect(big.status).toBe(413);
    const get = await fetch(`${world.url}/token`);
    expect(get.status).toBe(405);
  });
});

/** Waits a little for the daemon's output to include `text` (its log arrives asynchronously); false if it never does. */
async function logged(text: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (world.daemon.logs().includes(text)) return true;
    await Bun.sleep(20);
  }
  return false;
}

describe("refresh tokens: rotation, one grace use, reuse revokes the grant (RFC 9700 §4.14.2)", () => {
  test("the race: Claude's backend and proxy both present r1; whichever new token the client keeps works, and access tokens live on", async () => {
    const t0 = await staticTokens(world);
    const r1 = t0.refresh_token;
    const a = await refreshWith(world, r1);
    expect(a.status).toBe(200);
    expect(a.headers.get("cache-control")).toBe("no-store");
    const r2 = a.body.refresh_token as string;
    expect(r2).not.toBe(r1);
    // Grace: the racing twin presents r1 again and still succeeds.
    const twin = await refreshWith(world, r1);
    expect(twin.status).toBe(200);
    const r3 = twin.body.refresh_token as string;
    // The client kept the twin's token: it works, and keeps working down the chain.
    const b = await refreshWith(world, r3);
    expect(b.status).toBe(200);
    expect((await refreshWith(world, b.body.refresh_token as string)).status).toBe(200);
    expect(await mcpStatus(world.url, a.body.access_token as string)).toBe(200);
    expect(await mcpStatus(world.url, t0.access_token)).toBe(200);
  });

  test("the race, the other way: the client kept the first answer's token, and it works", async () => {
    const { refresh_token: r1 } = await staticTokens(world);
    const r2 = (await refreshWith(world, r1)).body.refresh_token as string;
    expect((await refreshWith(world, r1)).status).toBe(200);
    const c = await refreshWith(world, r2);
    expect(c.status).toBe(200);
    expect(await mcpStatus(world.url, c.body.access_token as string)).toBe(200);
  });

  test("the grace exchange works exactly once: a third presentation of r1 revokes the grant and its access tokens", async () => {
    const t0 = await staticTokens(world);
    const r1 = t0.refresh_token;
    const a = await refreshWith(world, r1);
    const twin = await refreshWith(world, r1);
    expect(twin.status).toBe(200);
    const again = await refreshWith(world, r1);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expect(String(again.body.error_description)).toContain("revoked");
    for (const token of [t0.access_token, a.body.access_token, twin.body.access_token])
      expect(await mcpStatus(world.url, token as string)).toBe(401);
    for (const token of [a.body.refresh_token, twin.body.refresh_token])
      expect((await refreshWith(world, token as string)).body.error).toBe("invalid_grant");
  });

  test("reuse after rotation (r1 → r2 → r3, then r1 again) revokes the whole grant, with a WARNING naming the client", async () => {
    const t0 = await staticTokens(world);
    const r2answer = await refreshWith(world, t0.refresh_token);
    const r3answer = await refreshWith(world, r2answer.body.refresh_token as string);
    expect(r3answer.status).toBe(200);
    expect(await mcpStatus(world.url, r3answer.body.access_token as string)).toBe(200);
    // A thief presents the stolen r1 (superseded twice over).
    const stolen = await refreshWith(world, t0.refresh_token);
    expect(stolen.body.error).toBe("invalid_grant");
    // The real connector's tokens are dead too: the owner has to sign in again, and the thief holds nothing.
    expect(await mcpStatus(world.url, r3answer.body.access_token as string)).toBe(401);
    expect(await mcpStatus(world.url, t0.access_token)).toBe(401);
    expect((await refreshWith(world, r3answer.body.refresh_token as string)).body.error).toBe("invalid_grant");
    expect(
      await logged(
        `WARNING oauth: a superseded refresh token was used again; its grant and every token issued from it were revoked client_id=${STATIC_ID}`,
      ),
    ).toBe(true);
  });

  test("a spent token presented by another client revokes nothing", async () => {
    const t0 = await staticTokens(world);
    const r2 = (await refreshWith(world, t0.refresh_token)).body.refresh_token as string;
    const r3 = await refreshWith(world, r2);
    const foreign = await tokenRequest(world.url, {
      grant_type: "refresh_token",
      refresh_token: t0.refresh_token,
      client_id: "hmcp_client_someone_else",
    });
    expect(foreign.status).not.toBe(200);
    expect(await mcpStatus(world.url, r3.body.access_token as string)).toBe(200);
  });

  test("a foreign resource on refresh is invalid_target; asking for other scopes still grants hermes", async () => {
    const { refresh_token } = await staticTokens(world);
    const foreign = await tokenRequest(world.url, {
      grant_type: "refresh_token",
      refresh_token,
      client_id: STATIC_ID,
      client_secret: world.staticSecret,
      resource: "https://other.example/mcp",
    });
    expect(foreign.body.error).toBe("invalid_target");
    const scoped = await tokenRequest(world.url, {
      grant_type: "refresh_token",
      refresh_token,
      client_id: STATIC_ID,
      client_secret: world.staticSecret,
      scope: "admin everything",
    });
    expect(scoped.status).toBe(200);
    expect(scoped.body.scope).toBe("hermes");
  });
});

describe("bearer use and revocation", () => {
  test("a token in the query string is refused (RFC 6750 §5.3)", async () => {
    const { access_token } = await staticTokens(world);
    const response = await fetch(`${world.url}/mcp?access_token=${access_token}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(400);
  });

  test("a foreign Origin with a valid token is refused at /mcp", async () => {
    const { access_token } = await staticTokens(world);
    const response = await fetch(`${world.url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${access_token}`,
        Origin: "https://evil.example",
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(403);
  });

  test("401s on /mcp name the protected-resource metadata", async () => {
    const response = await fetch(`${world.url}/mcp`, { method: "POST", headers: { Authorization: "Bearer hmcp_at_forged" }, body: "{}" });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") as string;
    expect(challenge).toContain(`resource_metadata="${world.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('error="invalid_token"');
  });

  test("RFC 7009: revoking a refresh token ends its grant; revoking an access token ends only it; foreign tokens are untouched", async () => {
    const first = await staticTokens(world);
    const second = await staticTokens(world);
    const revokeAccess = await tokenRequest(
      world.url,
      { token: first.access_token, token_type_hint: "access_token", client_id: STATIC_ID, client_secret: world.staticSecret },
      undefined,
      "/revoke",
    );
    expect(revokeAccess.status).toBe(200);
    expect(await mcpStatus(world.url, first.access_token)).toBe(401);
    expect((await refreshWith(world, first.refresh_token)).status).toBe(200);

    const revokeRefresh = await tokenRequest(world.url, { token: second.refresh_token }, [STATIC_ID, world.staticSecret], "/revoke");
    expect(revokeRefresh.status).toBe(200);
    expect(await mcpStatus(world.url, second.access_token)).toBe(401);
    expect((await refreshWith(world, second.refresh_token)).body.error).toBe("invalid_grant");

    expect(
      (
        await tokenRequest(
          world.url,
          { token: "hmcp_rt_unknown", client_id: STATIC_ID, client_secret: world.staticSecret },
          undefined,
          "/revoke",
        )
      ).status,
    ).toBe(200);
    expect(
      (await tokenRequest(world.url, { token: first.refresh_token, client_id: STATIC_ID, client_secret: "wrong" }, undefined, "/revoke"))
        .status,
    ).toBe(401);
  });
});
