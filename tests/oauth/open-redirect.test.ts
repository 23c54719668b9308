// No open redirector (RFC 9700 §4.11.2): until the owner has approved an app once, its /authorize errors are pages on this host, never redirects to its URI.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  authorize,
  consentPage,
  PASSWORD,
  pkce,
  redirectParams,
  registerOk,
  startOAuthWorld,
  submitConsent,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

const PHISH = "https://evil.example/phish";

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld({ password: true });
});
afterAll(async () => {
  await world.close();
});

const request = (clientId: string, extra: Record<string, string | undefined> = {}) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: PHISH,
  code_challenge: pkce().challenge,
  code_challenge_method: "S256",
  state: "s",
  ...extra,
});

/** Every error a verified client can provoke after its redirect URI matched. */
const BAD_REQUESTS: [string, Record<string, string | undefined>, string][] = [
  ["unsupported response_type", { response_type: "token" }, "unsupported_response_type"],
  ["no PKCE", { code_challenge: undefined, code_challenge_method: undefined }, "code_challenge is required"],
  ["plain PKCE", { code_challenge_method: "plain" }, "plain is not supported"],
  ["malformed challenge", { code_challenge: "short" }, "43 base64url characters"],
  ["foreign resource", { resource: "https://other.example/mcp" }, "invalid_target"],
];

describe("a registered app the owner never approved", () => {
  test("gets every post-verification error as a page on this host: no Location, nothing sent to its URI", async () => {
    const phisher = await registerOk(world.url, {
      client_name: "Totally Claude",
      redirect_uris: [PHISH],
      token_endpoint_auth_method: "none",
    });
    for (const [what, extra, words] of BAD_REQUESTS) {
      const response = await authorize(world.url, request(phisher.client_id, extra));
      expect({ what, status: response.status, location: response.headers.get("location") }).toEqual({ what, status: 400, location: null });
      expect(await response.text()).toContain(words);
    }
  });

  test("once approved, the same errors go back to it as RFC 6749 §4.1.2.1 redirects with state and iss", async () => {
    const app = await registerOk(world.url, { client_name: "Real App", redirect_uris: [PHISH], token_endpoint_auth_method: "none" });
    const form = await consentPage(world.url, request(app.client_id));
    expect((await submitConsent(world.url, form, PASSWORD, "approve")).status).toBe(303);
    for (const [what, extra] of BAD_REQUESTS) {
      const response = await authorize(world.url, request(app.client_id, extra));
      expect({ what, status: response.status }).toEqual({ what, status: 302 });
      const { url, params } = redirectParams(response);
      expect(`${url.origin}${url.pathname}`).toBe(PHISH);
      expect(params.get("error")).toBeTruthy();
      expect(params.get("state")).toBe("s");
      expect(params.get("iss")).toBe(world.url);
    }
  });

  test("a wrong password on its page does not count as an approval", async () => {
    const app = await registerOk(world.url, { client_name: "Still Unknown", redirect_uris: [PHISH], token_endpoint_auth_method: "none" });
    const form = await consentPage(world.url, request(app.client_id));
    expect((await submitConsent(world.url, form, "wrong password", "approve")).status).toBe(403);
    const response = await authorize(world.url, request(app.client_id, { code_challenge_method: "plain" }));
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });
});
