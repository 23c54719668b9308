// Nothing leaks: after every kind of credential has been issued, used, refreshed, replayed and guessed at, neither the database files nor the DEBUG logs hold any of them in plaintext.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createToken } from "../support/daemon.ts";
import { FAKE_GATEWAY_KEY } from "../support/fake-gateway.ts";
import {
  consentPage,
  mcpStatus,
  PASSWORD,
  pkce,
  redirectParams,
  refreshWith,
  registerOk,
  staticCode,
  startOAuthWorld,
  STATIC_ID,
  submitConsent,
  tokenRequest,
  staticExchange,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

let world: OAuthWorld;
/** Every secret the test saw, by what it is (for a readable failure). */
const secrets = new Map<string, string>();
const keep = (what: string, value: unknown): string => {
  if (typeof value !== "string" || value.length < 16) throw new Error(`expected a credential for ${what}, got ${String(value)}`);
  secrets.set(what, value);
  return value;
};

beforeAll(async () => {
  world = await startOAuthWorld({ password: true, env: { LOG_LEVEL: "DEBUG" } });
  keep("static client secret", world.staticSecret);
  keep("gateway key", FAKE_GATEWAY_KEY);
  keep("consent password", PASSWORD);

  // Claude's static flow, a refresh, then a replay of the code (which revokes its grant).
  const { code, pair } = await staticCode(world);
  keep("static code", code);
  keep("static PKCE verifier", pair.verifier);
  const exchange = staticExchange(world, code, pair.verifier);
  const first = await tokenRequest(world.url, exchange);
  keep("static access token", first.body.access_token);
  keep("static refresh token", first.body.refresh_token);
  expect(await mcpStatus(world.url, first.body.access_token as string)).toBe(200);
  const refreshed = await refreshWith(world, first.body.refresh_token as string);
  keep("rotated access token", refreshed.body.access_token);
  keep("rotated refresh token", refreshed.body.refresh_token);
  expect((await tokenRequest(world.url, exchange)).body.error).toBe("invalid_grant");

  // A confidential registered client approved on the consent page; a wrong password first.
  const registered = await registerOk(world.url, { client_name: "Leaky?", redirect_uris: ["http://127.0.0.1:40111/cb"] });
  keep("registered client secret", registered.client_secret);
  const dcrPair = pkce();
  const form = await consentPage(world.url, {
    response_type: "code",
    client_id: registered.client_id,
    redirect_uri: "http://127.0.0.1:40111/cb",
    code_challenge: dcrPair.challenge,
    code_challenge_method: "S256",
  });
  const wrongPassword = keep("wrong consent password", "not-the-password-but-close");
  expect((await submitConsent(world.url, form, wrongPassword, "approve")).status).toBe(403);
  const dcrCode = keep("registered code", redirectParams(await submitConsent(world.url, form, PASSWORD, "approve")).params.get("code"));
  const dcrTokens = await tokenRequest(
    world.url,
    { grant_type: "authorization_code", code: dcrCode, redirect_uri: "http://127.0.0.1:40111/cb", code_verifier: dcrPair.verifier },
    [registered.client_id, registered.client_secret],
  );
  keep("registered access token", dcrTokens.body.access_token);
  keep("registered refresh token", dcrTokens.body.refresh_token);

  // Guesses and revocations must not be logged either.
  const guess = keep("guessed client secret", "hmcp_cs_guessed-secret-that-is-long-enough");
  expect(
    (
      await tokenRequest(world.url, { grant_type: "refresh_token", refresh_token: dcrTokens.body.refresh_token as string }, [
        registered.client_id,
        guess,
      ])
    ).status,
  ).toBe(401);
  const revoke = await fetch(`${world.url}/revoke`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: refreshed.body.access_token as string, client_id: STATIC_ID, client_secret: world.staticSecret }),
  });
  expect(revoke.status).toBe(200);

  // A personal access token, used once and once in the query string (refused).
  const pat = keep("personal access token", await createToken(world.home, "leak-check", world.env));
  expect(await mcpStatus(world.url, pat)).toBe(200);
  expect((await fetch(`${world.url}/mcp?access_token=${pat}`, { method: "POST" })).status).toBe(400);
  expect(await mcpStatus(world.url, keep("made-up bearer", "hmcp_at_made-up-token-that-was-never-issued"))).toBe(401);

  // kill -9: whatever is in the WAL stays there, unflushed, for the search below.
  await world.daemon.kill9();
});

afterAll(async () => {
  await world.restart();
  await world.close();
});

function leaksIn(text: string): string[] {
  return [...secrets].filter(([, value]) => text.includes(value)).map(([what]) => what);
}

describe("no credential in plaintext", () => {
  test("the database, its WAL and shared-memory files hold none", () => {
    const dir = join(world.home, ".local", "share", "hermes-mcp");
    const files = readdirSync(dir).filter((name) => name.startsWith("hermes-mcp.db"));
    expect(files).toContain("hermes-mcp.db");
    expect(existsSync(join(dir, "hermes-mcp.db-wal"))).toBe(true);
    for (const name of files) {
      // latin1 keeps every byte, so an ASCII secret is found wherever SQLite put it.
      expect({ file: name, leaks: leaksIn(readFileSync(join(dir, name)).toString("latin1")) }).toEqual({ file: name, leaks: [] });
    }
  });

  test("the DEBUG logs hold none, though they record every step", () => {
    const logs = world.daemon.logs();
    expect(logs).toContain("oauth: tokens issued");
    expect(logs).toContain("authorization code replayed");
    expect(logs).toContain("wrong consent password");
    expect(logs).toContain("client authentication failed");
    expect(leaksIn(logs)).toEqual([]);
  });
});
