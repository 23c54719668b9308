// Strangers cannot lock the owner out: registration and consent-password limits count per source address (behind a loopback tunnel: CF-Connecting-IP), under global ceilings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  consentPage,
  PASSWORD,
  pkce,
  registerClient,
  registerOk,
  setPassword,
  startOAuthWorld,
  submitConsent,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

const CALLBACK = "https://app.example/cb";
/** The daemon's peer is loopback in these tests (as behind cloudflared), so it believes CF-Connecting-IP. */
const from = (address: string): Record<string, string> => ({ "CF-Connecting-IP": address });
const ATTACKER = from("198.51.100.66");
const OWNER = from("203.0.113.10");

const request = (clientId: string) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: CALLBACK,
  code_challenge: pkce().challenge,
  code_challenge_method: "S256",
});
let world: OAuthWorld;
const register = (name: string, headers: Record<string, string>) =>
  registerClient(world.url, { client_name: name, redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" }, headers);

describe("one attacking address", () => {
  beforeAll(async () => {
    world = await startOAuthWorld({ password: true });
  });
  afterAll(async () => {
    await world.close();
  });

  test("a registration flood locks only its own address; the owner registers from another", async () => {
    let status = 201;
    let count = 0;
    while (status === 201 && count < 50) {
      status = (await register(`flood-${count}`, ATTACKER)).status;
      count++;
    }
    expect({ status, count }).toEqual({ status: 429, count: 21 });
    // Another header form of the same address is the same bucket.
    expect((await register("flood-xff", { "X-Forwarded-For": "10.0.0.1, 198.51.100.66" })).status).toBe(429);
    expect((await register("Owner's app", OWNER)).status).toBe(201);
  });

  test("wrong passwords from one address lock that address only: the owner approves from another, even the same app; the locked page names the fix", async () => {
    const target = await registerOk(world.url, { client_name: "Target", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const other = await registerOk(world.url, { client_name: "Other", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const form = await consentPage(world.url, request(target.client_id));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await submitConsent(world.url, form, `guess-${i}`, "approve", ATTACKER)).status);
    expect(statuses).toEqual([403, 403, 403, 403, 429]);
    const locked = await submitConsent(world.url, form, PASSWORD, "approve", ATTACKER);
    expect(locked.status).toBe(429);
    const text = await locked.text();
    expect(text).toContain("run <code>hermes-mcp set-password</code> on the machine where hermes-mcp runs");
    expect(text).not.toContain("`");

    expect(
      (await submitConsent(world.url, await consentPage(world.url, request(other.client_id)), PASSWORD, "approve", OWNER)).status,
    ).toBe(303);
    expect(
      (await submitConsent(world.url, await consentPage(world.url, request(target.client_id)), PASSWORD, "approve", OWNER)).status,
    ).toBe(303);
  });

  test("with no forwarding header the loopback peer itself is the address: locking it leaves forwarded addresses untouched", async () => {
    const app = await registerOk(world.url, { client_name: "Local", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const form = await consentPage(world.url, request(app.client_id));
    for (let i = 0; i < 5; i++) await submitConsent(world.url, form, `local-guess-${i}`, "approve");
    expect((await submitConsent(world.url, form, PASSWORD, "approve")).status).toBe(429);
    expect(
      (await submitConsent(world.url, await consentPage(world.url, request(app.client_id)), PASSWORD, "approve", from("203.0.113.11")))
        .status,
    ).toBe(303);
  });
});

describe("many attacking addresses", () => {
  beforeAll(async () => {
    world = await startOAuthWorld({ password: true });
  });
  afterAll(async () => {
    await world.close();
  });

  test("password guessing is bounded overall: 30 wrong passwords an hour from everywhere, then approvals lock for all until set-password", async () => {
    const app = await registerOk(world.url, { client_name: "Target", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const form = await consentPage(world.url, request(app.client_id));
    let checked = 0;
    let status = 403;
    // Four guesses per address: no single address ever reaches its own limit of five.
    for (let address = 1; status === 403 && address <= 20; address++) {
      for (let i = 0; i < 4 && status === 403; i++) {
        status = (await submitConsent(world.url, form, `guess-${address}-${i}`, "approve", from(`192.0.2.${address}`))).status;
        checked++;
      }
    }
    expect({ status, checked }).toEqual({ status: 429, checked: 30 });
    // A fresh address, even with the right password, waits: the ceiling is global.
    const fresh = await submitConsent(world.url, form, PASSWORD, "approve", from("203.0.113.99"));
    expect(fresh.status).toBe(429);
    expect(Number(fresh.headers.get("retry-after"))).toBeGreaterThan(0);
    // The owner, at the machine, lifts every consent lock at once.
    await setPassword(world.home, world.env, "the owner's new password");
    expect(
      (
        await submitConsent(
          world.url,
          await consentPage(world.url, request(app.client_id)),
          "the owner's new password",
          "approve",
          from("203.0.113.99"),
        )
      ).status,
    ).toBe(303);
  });
});

describe("many registering addresses", () => {
  beforeAll(async () => {
    world = await startOAuthWorld({ password: true });
  });
  afterAll(async () => {
    await world.close();
  });

  test("registrations are bounded overall: 200 an hour from everywhere", async () => {
    let made = 0;
    for (let address = 1; address <= 10; address++) {
      for (let i = 0; i < 20; i++) {
        const response = await register(`r-${address}-${i}`, from(`192.0.2.${100 + address}`));
        await response.body?.cancel();
        if (response.status === 201) made++;
      }
    }
    expect(made).toBe(200);
    const beyond = await register("one more", from("203.0.113.50"));
    expect(beyond.status).toBe(429);
    expect(Number(beyond.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
