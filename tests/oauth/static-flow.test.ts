// Claude's static-credential flow driven by the MCP SDK's real OAuth client: discovery, auto-approved authorize, client_secret_post, tools/list, refresh.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  Client,
  discoverAuthorizationServerMetadata,
  refreshAuthorization,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { CLAUDE_CALLBACK, mcpStatus, STATIC_ID, startOAuthWorld, type OAuthWorld } from "../support/oauth-flow.ts";
import { CapturingProvider } from "../support/oauth-sdk.ts";

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(async () => {
  await world.close();
});

describe("Claude's static flow with the SDK's OAuth client", () => {
  test("discovers, is auto-approved to Claude's callback, redeems with client_secret_post, and lists tools", async () => {
    const serverUrl = new URL(`${world.url}/mcp`);
    const provider = new CapturingProvider(
      { client_id: STATIC_ID, client_secret: world.staticSecret, token_endpoint_auth_method: "client_secret_post", issuer: world.url },
      CLAUDE_CALLBACK,
    );
    const tokenRequests: { body: string; authorization: string | null }[] = [];
    const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      if (String(input instanceof Request ? input.url : input).endsWith("/token")) {
        tokenRequests.push({ body: String(init?.body ?? ""), authorization: new Headers(init?.headers).get("authorization") });
      }
      return fetch(input, init);
    };

    const first = new Client({ name: "claude-like", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch: recordingFetch });
    const refused = await first.connect(transport).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UnauthorizedError);

    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${world.url}/authorize`);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(serverUrl.href);

    // No browser: the static client is auto-approved, so the answer is the redirect itself.
    const answer = await fetch(authorizationUrl, { redirect: "manual" });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get("location") as string);
    expect(`${location.origin}${location.pathname}`).toBe(CLAUDE_CALLBACK);
    expect(location.searchParams.get("state")).toBe(provider.lastState as string);
    expect(location.searchParams.get("iss")).toBe(world.url);
    expect(location.searchParams.get("code")).toStartWith("hmcp_code_");

    await transport.finishAuth(location.searchParams);
    const tokens = provider.tokens();
    expect(tokens?.token_type).toBe("Bearer");
    expect(tokens?.scope).toBe("hermes");
    expect(tokens?.expires_in).toBe(86_400);
    expect(tokens?.refresh_token).toStartWith("hmcp_rt_");
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]?.authorization).toBeNull();
    expect(new URLSearchParams(tokenRequests[0]?.body).get("client_secret")).toBe(world.staticSecret);

    const client = new Client({ name: "claude-like", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("hermes_ask");
    await client.close();

    // The SDK's refresh (it picks client_secret_post from the client information) rotates the refresh token.
    const metadata = await discoverAuthorizationServerMetadata(world.url);
    const refreshed = await refreshAuthorization(world.url, {
      metadata,
      clientInformation: { client_id: STATIC_ID, client_secret: world.staticSecret, token_endpoint_auth_method: "client_secret_post" },
      refreshToken: tokens?.refresh_token as string,
      resource: serverUrl,
    });
    expect(refreshed.refresh_token).not.toBe(tokens?.refresh_token);
    expect(await mcpStatus(world.url, refreshed.access_token)).toBe(200);
  });

  test("client_secret_basic works too", async () => {
    const provider = new CapturingProvider(
      { client_id: STATIC_ID, client_secret: world.staticSecret, token_endpoint_auth_method: "client_secret_basic", issuer: world.url },
      "http://127.0.0.1:33418/",
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${world.url}/mcp`), { authProvider: provider });
    await new Client({ name: "basic", version: "1" }).connect(transport).catch(() => undefined);
    const answer = await fetch(provider.authorizationUrl as URL, { redirect: "manual" });
    expect(answer.status).toBe(302);
    await transport.finishAuth(new URL(answer.headers.get("location") as string).searchParams);
    expect(await mcpStatus(world.url, provider.tokens()?.access_token as string)).toBe(200);
  });
});
