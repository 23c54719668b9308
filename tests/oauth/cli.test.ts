// `hermes-mcp set-password` and `hermes-mcp clients list|revoke` against a running daemon: revocation takes effect on the next request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createToken, runCli } from "../support/daemon.ts";
import {
  consentPage,
  mcpStatus,
  PASSWORD,
  pkce,
  redirectParams,
  refreshWith,
  registerClient,
  STATIC_ID,
  staticTokens,
  startOAuthWorld,
  submitConsent,
  tokenRequest,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(async () => {
  await world.close();
});

const cli = (args: string[], stdin?: string) => runCli(args, { home: world.home, env: world.env, stdin });

describe("set-password", () => {
  test("reads one line from stdin, stores only an argon2id hash, and turns dynamic clients on at once (doctor says so)", async () => {
    const doctorBefore = await cli(["doctor"]);
    expect(doctorBefore.stdout).toContain("⚠ apps that register themselves (Claude Code, Codex, Cursor, VS Code) cannot connect yet");
    expect(doctorBefore.stdout).toContain("hermes-mcp set-password");
    const before = (await (await fetch(`${world.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(before.registration_endpoint).toBeUndefined();
    expect((await registerClient(world.url, { redirect_uris: ["https://a.example/cb"] })).status).toBe(403);

    const short = await cli(["set-password"], "short\n");
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("at least 8");
    const empty = await cli(["set-password"], "");
    expect(empty.code).toBe(1);

    const set = await cli(["set-password"], `${PASSWORD}\nignored second line\n`);
    expect(set.code).toBe(0);
    const dbPath = `${world.home}/.local/share/hermes-mcp/hermes-mcp.db`;
    const db = new Database(dbPath, { readonly: true });
    const stored = db.query<{ value: string }, []>("SELECT value FROM oauth_settings WHERE key = 'consent_password'").get()?.value ?? "";
    db.close();
    expect(stored).toStartWith("$argon2id$");
    expect(stored).not.toContain(PASSWORD);

    const after = (await (await fetch(`${world.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(after.registration_endpoint).toBe(`${world.url}/register`);
    expect((await cli(["doctor"])).stdout).toContain("✔ apps that register themselves: on, each approved with your password");
    const off = await runCli(["doctor"], { home: world.home, env: { ...world.env, OAUTH_DYNAMIC_CLIENTS: "false" } });
    expect(off.stdout).toContain("apps that register themselves: off (OAUTH_DYNAMIC_CLIENTS=false)");
  });
});

describe("clients list and revoke", () => {
  test("lists every kind and revokes each at once on the running daemon", async () => {
    const claude = await staticTokens(world);
    const pat = await createToken(world.home, "laptop", world.env);
    const registered = (await (
      await registerClient(world.url, {
        client_name: "Cursor",
        redirect_uris: ["http://localhost:8787/callback"],
        token_endpoint_auth_method: "none",
      })
    ).json()) as { client_id: string };
    const pair = pkce();
    const form = await consentPage(world.url, {
      response_type: "code",
      client_id: registered.client_id,
      redirect_uri: "http://localhost:8787/callback",
      code_challenge: pair.challenge,
      code_challenge_method: "S256",
    });
    const code = redirectParams(await submitConsent(world.url, form, PASSWORD, "approve")).params.get("code") as string;
    const dynamic = await tokenRequest(world.url, {
      grant_type: "authorization_code",
      code,
      redirect_uri: "http://localhost:8787/callback",
      code_verifier: pair.verifier,
      client_id: registered.client_id,
    });
    for (const token of [claude.access_token, pat, dynamic.body.access_token as string])
      expect(await mcpStatus(world.url, token)).toBe(200);

    const list = await cli(["clients", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${STATIC_ID}\\s+static`));
    expect(list.stdout).toMatch(new RegExp(`${registered.client_id}\\s+registered\\s+Cursor`));
    expect(list.stdout).toMatch(/pat:laptop\s+token\s+laptop/);
    expect(list.stdout).toContain("LAST USED");
    for (const secret of [claude.access_token, claude.refresh_token, pat, world.staticSecret])
      expect(list.stdout + list.stderr).not.toContain(secret);

    expect((await cli(["clients", "revoke", registered.client_id])).code).toBe(0);
    expect(await mcpStatus(world.url, dynamic.body.access_token as string)).toBe(401);
    expect(
      (
        await tokenRequest(world.url, {
          grant_type: "refresh_token",
          refresh_token: dynamic.body.refresh_token as string,
          client_id: registered.client_id,
        })
      ).status,
    ).toBe(401);

    expect((await cli(["clients", "revoke", STATIC_ID])).code).toBe(0);
    expect(await mcpStatus(world.url, claude.access_token)).toBe(401);
    expect((await refreshWith(world, claude.refresh_token)).body.error).toBe("invalid_grant");
    // The static client itself stays configured: it can sign in again.
    expect(await mcpStatus(world.url, (await staticTokens(world)).access_token)).toBe(200);

    expect((await cli(["clients", "revoke", "pat:laptop"])).code).toBe(0);
    expect(await mcpStatus(world.url, pat)).toBe(401);

    const unknown = await cli(["clients", "revoke", "nobody"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("clients list");
  });
});
