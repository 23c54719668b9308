// kill -9 and restart on the same HOME and port: access tokens, refresh tokens and registered clients all keep working; audiences stay bound.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon } from "../support/daemon.ts";
import {
  consentPage,
  mcpStatus,
  PASSWORD,
  pkce,
  redirectParams,
  refreshWith,
  registerOk,
  STATIC_ID,
  staticCode,
  staticTokens,
  startOAuthWorld,
  submitConsent,
  tokenRequest,
  staticExchange,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld({ password: true });
});
afterAll(async () => {
  await world.close();
});

async function registeredTokens(): Promise<{ clientId: string; secret: string; tokens: Record<string, unknown> }> {
  const registered = await registerOk(world.url, { client_name: "Survivor", redirect_uris: ["http://127.0.0.1:40000/cb"] });
  const pair = pkce();
  const request = {
    response_type: "code",
    client_id: registered.client_id,
    redirect_uri: "http://127.0.0.1:40000/cb",
    code_challenge: pair.challenge,
    code_challenge_method: "S256",
  };
  const form = await consentPage(world.url, request);
  const code = redirectParams(await submitConsent(world.url, form, PASSWORD, "approve")).params.get("code") as string;
  const answer = await tokenRequest(
    world.url,
    { grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1:40000/cb", code_verifier: pair.verifier },
    [registered.client_id, registered.client_secret],
  );
  expect(answer.status).toBe(200);
  return { clientId: registered.client_id, secret: registered.client_secret, tokens: answer.body };
}

describe("restart survival", () => {
  test("after kill -9 every token and registration still works, with no reconnect", async () => {
    const claude = await staticTokens(world);
    const dynamic = await registeredTokens();
    // One rotation before the crash, so the grace token is persisted too.
    const rotated = await refreshWith(world, claude.refresh_token);
    expect(rotated.status).toBe(200);

    await world.restart();

    expect(await mcpStatus(world.url, claude.access_token)).toBe(200);
    expect(await mcpStatus(world.url, rotated.body.access_token as string)).toBe(200);
    expect(await mcpStatus(world.url, dynamic.tokens.access_token as string)).toBe(200);
    // The grace (previous) refresh token and the current one both survived.
    expect((await refreshWith(world, claude.refresh_token)).status).toBe(200);
    const dynamicRefresh = await tokenRequest(
      world.url,
      { grant_type: "refresh_token", refresh_token: dynamic.tokens.refresh_token as string },
      [dynamic.clientId, dynamic.secret],
    );
    expect(dynamicRefresh.status).toBe(200);
    // The registered client can authorize again (its registration, secret hash and redirect URIs persisted).
    const again = await consentPage(world.url, {
      response_type: "code",
      client_id: dynamic.clientId,
      redirect_uri: "http://127.0.0.1:40001/cb",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    expect(again.status).toBe(200);
  });

  test("a used code stays used across a restart: its replay still revokes", async () => {
    const { code, pair } = await staticCode(world);
    const redeem = () => tokenRequest(world.url, staticExchange(world, code, pair.verifier));
    const first = await redeem();
    expect(first.status).toBe(200);
    await world.restart();
    expect((await redeem()).body.error).toBe("invalid_grant");
    expect(await mcpStatus(world.url, first.body.access_token as string)).toBe(401);
  });

  test("tokens are bound to their audience: the same database under another issuer URL refuses them", async () => {
    const claude = await staticTokens(world);
    const port = world.daemon.port;
    await world.daemon.stop();
    // Same HOME and database, but the server now calls itself http://localhost:<port> (resource http://localhost:<port>/mcp).
    const moved = await startTestDaemon({ home: world.home, port, env: { ...world.env, OAUTH_ISSUER_URL: `http://localhost:${port}` } });
    try {
      expect(await mcpStatus(moved.url, claude.access_token)).toBe(401);
      const refresh = await tokenRequest(moved.url, {
        grant_type: "refresh_token",
        refresh_token: claude.refresh_token,
        client_id: STATIC_ID,
        client_secret: world.staticSecret,
      });
      expect(refresh.body.error).toBe("invalid_grant");
    } finally {
      await moved.stop();
      world.daemon = await startTestDaemon({ home: world.home, port, env: world.env });
    }
  });
});
