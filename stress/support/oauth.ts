// The static client's OAuth round trips the stress scripts repeat: code flow, refresh, revoke, and "does this token still work".
import { CLAUDE_CALLBACK, STATIC_ID, authorize, mcpStatus, pkce, redirectParams, tokenRequest } from "../../tests/support/oauth-flow.ts";

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

export interface StaticClient {
  url: string;
  secret: string;
}

/** The whole static flow: /authorize (auto-approved) then the code at /token. Throws with the status on any refusal. */
export async function staticFlow(client: StaticClient): Promise<TokenPair> {
  const pair = pkce();
  const response = await authorize(client.url, {
    response_type: "code",
    client_id: STATIC_ID,
    redirect_uri: CLAUDE_CALLBACK,
    code_challenge: pair.challenge,
    code_challenge_method: "S256",
    state: "stress",
    resource: `${client.url}/mcp`,
  });
  await response.body?.cancel();
  const code = redirectParams(response).params.get("code");
  if (!code) throw new Error(`/authorize gave no code (status ${response.status}, ${response.headers.get("location")})`);
  const answer = await tokenRequest(client.url, {
    grant_type: "authorization_code",
    code,
    redirect_uri: CLAUDE_CALLBACK,
    code_verifier: pair.verifier,
    client_id: STATIC_ID,
    client_secret: client.secret,
  });
  if (answer.status !== 200) throw new Error(`/token refused the code (${answer.status}): ${JSON.stringify(answer.body)}`);
  return answer.body as unknown as TokenPair;
}

/** grant_type=refresh_token: the new pair, or the refusal's status and error. */
export async function refresh(client: StaticClient, refreshToken: string): Promise<TokenPair | { status: number; error: string }> {
  const answer = await tokenRequest(client.url, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: STATIC_ID,
    client_secret: client.secret,
  });
  if (answer.status === 200) return answer.body as unknown as TokenPair;
  return { status: answer.status, error: String(answer.body.error) };
}

/** RFC 7009 revocation by the static client; returns the status (200 whatever the token). */
export async function revoke(client: StaticClient, token: string): Promise<number> {
  const response = await fetch(`${client.url}/revoke`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, client_id: STATIC_ID, client_secret: client.secret }),
  });
  await response.body?.cancel();
  return response.status;
}

/** The discovery documents a client reads first (RFC 9728, RFC 8414); throws unless both answer 200 JSON. */
export async function discover(url: string): Promise<void> {
  for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"]) {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200 || typeof body !== "object") throw new Error(`${path} answered ${response.status}`);
  }
}

/** The status an authenticated tools/list gets with this token (200 while it works, 401 once refused). */
export const tokenStatus = mcpStatus;
