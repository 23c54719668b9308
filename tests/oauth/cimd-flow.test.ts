// Client ID Metadata Documents: a document served on loopback (behind the test-only switch) through consent to tools; SSRF, mismatch, redirect and size refusals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { runCli } from "../support/daemon.ts";
import {
  authorize,
  consentPage,
  mcpStatus,
  PASSWORD,
  pkce,
  redirectParams,
  startOAuthWorld,
  submitConsent,
  tokenRequest,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

let world: OAuthWorld;
let docs: Server<undefined>;
let docBase: string;
const fetches = new Map<string, number>();
const CALLBACK = "http://127.0.0.1:47123/callback";

beforeAll(async () => {
  docs = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      fetches.set(path, (fetches.get(path) ?? 0) + 1);
      const self = `${docBase}${path}`;
      const doc = (body: Record<string, unknown>, headers: Record<string, string> = {}) => Response.json(body, { headers });
      switch (path) {
        case "/client.json":
          return doc(
            {
              client_id: self,
              client_name: "Metadata App",
              redirect_uris: [CALLBACK],
              token_endpoint_auth_method: "none",
              grant_types: ["authorization_code", "refresh_token"],
            },
            { "Cache-Control": "max-age=600" },
          );
        case "/fresh.json":
          return doc({ client_id: self, client_name: "Fresh App", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
        case "/mismatch.json":
          return doc({ client_id: "https://claude.ai/oauth/mcp-oauth-client-metadata", redirect_uris: [CALLBACK] });
        case "/secret.json":
          return doc({ client_id: self, redirect_uris: [CALLBACK], token_endpoint_auth_method: "client_secret_basic" });
        case "/danger.json":
          return doc({ client_id: self, redirect_uris: ["javascript:alert(1)"] });
        case "/big.json":
          return doc({ client_id: self, redirect_uris: [CALLBACK], client_name: "x".repeat(20_000) });
        case "/moved.json":
          return Response.redirect(`${docBase}/client.json`, 302);
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  docBase = `http://127.0.0.1:${docs.port}`;
  world = await startOAuthWorld({ password: true, env: { HERMES_MCP_TEST_ALLOW_LOOPBACK_CIMD: "1" } });
});
afterAll(async () => {
  await world.close();
  docs.stop(true);
});

/** The first log line matching `wanted`, waiting a little for the daemon's output to arrive ("" if it never does). */
async function logLine(w: OAuthWorld, wanted: (line: string) => boolean): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const line = w.daemon.logs().split("\n").find(wanted);
    if (line) return line;
    await Bun.sleep(20);
  }
  return "";
}

const params = (clientId: string, challenge: string, redirectUri = CALLBACK) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: redirectUri,
  code_challenge: challenge,
  code_challenge_method: "S256",
  state: "cimd",
  resource: `${world.url}/mcp`,
});

describe("a metadata-document client", () => {
  test("is fetched, shown on the consent page by host, approved, redeemed with PKCE alone, and calls tools", async () => {
    const clientId = `${docBase}/client.json`;
    const pair = pkce();
    const form = await consentPage(world.url, params(clientId, pair.challenge));
    expect(form.status).toBe(200);
    expect(form.html).toContain("Metadata App");
    expect(form.html).toContain(`127.0.0.1:${docs.port}`);
    const { params: answer } = redirectParams(await submitConsent(world.url, form, PASSWORD, "approve"));
    const tokens = await tokenRequest(world.url, {
      grant_type: "authorization_code",
      code: answer.get("code") as string,
      redirect_uri: CALLBACK,
      code_verifier: pair.verifier,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    expect(await mcpStatus(world.url, tokens.body.access_token as string)).toBe(200);
    const refreshed = await tokenRequest(world.url, {
      grant_type: "refresh_token",
      refresh_token: tokens.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);

    // Cached by Cache-Control: a second authorization does not fetch again.
    const before = fetches.get("/client.json");
    expect((await consentPage(world.url, params(clientId, pkce().challenge))).status).toBe(200);
    expect(fetches.get("/client.json")).toBe(before as number);

    const listed = await runCli(["clients", "list"], { home: world.home, env: world.env });
    expect(listed.stdout).toContain(clientId);
    expect(listed.stdout).toContain("cimd");
  });

  test("refusals: a redirect it does not list; a document naming another client_id, a secret method, a dangerous URI, a redirect, oversize, 404 — one page for all, the reason in the log", async () => {
    const challenge = pkce().challenge;
    const unlisted = await authorize(world.url, params(`${docBase}/client.json`, challenge, "http://127.0.0.1:47123/other"));
    expect(unlisted.status).toBe(400);
    expect(unlisted.headers.get("location")).toBeNull();
    const bodies = new Set<string>();
    for (const [path, words] of [
      ["/mismatch.json", "different client_id"],
      ["/secret.json", "not supported"],
      ["/danger.json", "never allowed"],
      ["/moved.json", "redirect"],
      ["/big.json", "larger than"],
      ["/missing.json", "404"],
    ] as const) {
      const response = await authorize(world.url, params(`${docBase}${path}`, challenge));
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      const body = await response.text();
      expect(body).toContain("client metadata document could not be used");
      bodies.add(body);
      // The owner still learns why, from the log.
      expect(await logLine(world, (line) => line.includes("client metadata document refused") && line.includes(path))).toContain(words);
    }
    // /authorize is no oracle: every failure reads the same.
    expect(bodies.size).toBe(1);
  });
});

describe("a metadata-document client and open redirects (RFC 9700 §4.11.2)", () => {
  test("never approved: a bad request is a page here; approved once: it is redirected to the app with the error", async () => {
    const clientId = `${docBase}/fresh.json`;
    const plain = () => authorize(world.url, { ...params(clientId, pkce().challenge), code_challenge_method: "plain" });
    const before = await plain();
    expect(before.status).toBe(400);
    expect(before.headers.get("location")).toBeNull();
    expect(
      (await submitConsent(world.url, await consentPage(world.url, params(clientId, pkce().challenge)), PASSWORD, "approve")).status,
    ).toBe(303);
    const after = await plain();
    expect(after.status).toBe(302);
    expect(redirectParams(after).params.get("error")).toBe("invalid_request");
  });
});

describe("SSRF guard without the test switch", () => {
  test("client ids resolving to loopback or private addresses are never fetched; http ids are not metadata ids", async () => {
    const strict = await startOAuthWorld({ password: true });
    try {
      const before = fetches.get("/client.json") ?? 0;
      const challenge = pkce().challenge;
      for (const clientId of [
        `https://localhost:${docs.port}/client.json`,
        `https://127.0.0.1:${docs.port}/client.json`,
        "https://[::1]/client.json",
        "https://10.0.0.1/client.json",
        "https://169.254.169.254/latest/meta-data",
      ]) {
        const response = await authorize(strict.url, params(clientId, challenge));
        expect(response.status).toBe(400);
        expect(await response.text()).toContain("client metadata document could not be used");
      }
      expect(await logLine(strict, (line) => line.includes("169.254.169.254"))).toContain("private or loopback");
      const http = await authorize(strict.url, params(`${docBase}/client.json`, challenge));
      expect(http.status).toBe(400);
      expect(await http.text()).toContain("not known");
      expect(fetches.get("/client.json") ?? 0).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
