// Abuse limits: secret guessing, consent-password guessing and registration floods get 429 + Retry-After, and never lock out issued tokens.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  consentPage,
  mcpStatus,
  PASSWORD,
  pkce,
  redirectParams,
  refreshWith,
  registerClient,
  setPassword,
  STATIC_ID,
  staticCode,
  staticTokens,
  startOAuthWorld,
  submitConsent,
  tokenRequest,
  staticExchange,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

describe("client-secret guessing and registration floods", () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld({ password: true });
  });
  afterAll(async () => {
    await world.close();
  });

  test("repeated wrong secrets → 429 with Retry-After; the owner's refresh tokens and new codes still work", async () => {
    const issued = await staticTokens(world);
    const guess = (secret: string) =>
      tokenRequest(world.url, { grant_type: "refresh_token", refresh_token: "hmcp_rt_guess", client_id: STATIC_ID, client_secret: secret });
    for (let i = 0; i < 10; i++) expect((await guess(`wrong-${i}`)).status).toBe(401);
    const blocked = await guess("wrong-again");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    // Even the right secret is throttled when it carries no live credential…
    expect((await guess(world.staticSecret)).status).toBe(429);
    // …but the real connector, holding a live refresh token or a fresh code, is never locked out.
    const refreshed = await refreshWith(world, issued.refresh_token);
    expect(refreshed.status).toBe(200);
    const { code, pair } = await staticCode(world);
    const exchanged = await tokenRequest(world.url, staticExchange(world, code, pair.verifier));
    expect(exchanged.status).toBe(200);
    expect(await mcpStatus(world.url, issued.access_token)).toBe(200);
  });

  test("a registration flood → 429 with Retry-After; earlier registrations keep working", async () => {
    const first = (await (
      await registerClient(world.url, { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "none" })
    ).json()) as { client_id: string };
    let status = 201;
    let response: Response | null = null;
    for (let i = 0; i < 30 && status === 201; i++) {
      response = await registerClient(world.url, { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "none" });
      status = response.status;
    }
    expect(status).toBe(429);
    expect(Number(response?.headers.get("retry-after"))).toBeGreaterThan(0);
    const page = await consentPage(world.url, {
      response_type: "code",
      client_id: first.client_id,
      redirect_uri: "https://a.example/cb",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    expect(page.status).toBe(200);
  });
});

describe("consent-password guessing", () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld({ password: true });
  });
  afterAll(async () => {
    await world.close();
  });

  test("five wrong passwords lock approvals (429 + Retry-After), across a restart, without touching issued tokens", async () => {
    const client = (await (
      await registerClient(world.url, {
        client_name: "Target",
        redirect_uris: ["https://app.example/cb"],
        token_endpoint_auth_method: "none",
      })
    ).json()) as { client_id: string };
    const request = () => ({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "https://app.example/cb",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });

    // An approved connection before the attack.
    const pair = pkce();
    const approved = await submitConsent(
      world.url,
      await consentPage(world.url, { ...request(), code_challenge: pair.challenge }),
      PASSWORD,
      "approve",
    );
    const code = redirectParams(approved).params.get("code") as string;
    const issued = await tokenRequest(world.url, {
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example/cb",
      code_verifier: pair.verifier,
      client_id: client.client_id,
    });
    expect(issued.status).toBe(200);
    const claude = await staticTokens(world);

    const form = await consentPage(world.url, request());
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await submitConsent(world.url, form, `guess-${i}`, "approve")).status);
    expect(statuses).toEqual([403, 403, 403, 403, 429]);
    const locked = await submitConsent(world.url, form, PASSWORD, "approve");
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(locked.headers.get("location")).toBeNull();

    await world.restart();
    const stillLocked = await submitConsent(world.url, await consentPage(world.url, request()), PASSWORD, "approve");
    expect(stillLocked.status).toBe(429);
    expect(await mcpStatus(world.url, issued.body.access_token as string)).toBe(200);
    expect(await mcpStatus(world.url, claude.access_token)).toBe(200);
    expect(
      (
        await tokenRequest(world.url, {
          grant_type: "refresh_token",
          refresh_token: issued.body.refresh_token as string,
          client_id: client.client_id,
        })
      ).status,
    ).toBe(200);

    // The owner, at the machine, sets a new password: the lockout is lifted and the new password approves.
    await setPassword(world.home, world.env, "a brand new password");
    const again = await consentPage(world.url, request());
    expect((await submitConsent(world.url, again, "a brand new password", "approve")).status).toBe(303);
  });
});
