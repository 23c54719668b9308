// Test harness for the authorization server: a daemon with a static client, PKCE pairs, raw /authorize, /token, /register and consent-form helpers.
import { createHash, randomBytes } from "node:crypto";
import { makeHome, removeHome, runCli, startTestDaemon, type TestDaemon } from "./daemon.ts";
import { FAKE_GATEWAY_KEY, startFakeGateway, type FakeGateway } from "./fake-gateway.ts";

export const CLAUDE_CALLBACK = "https://claude.ai/api/mcp/auth_callback";
export const STATIC_ID = "hermes-static-test";
export const PASSWORD = "correct horse battery staple";

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface OAuthWorld {
  gateway: FakeGateway;
  daemon: TestDaemon;
  home: string;
  env: Record<string, string>;
  url: string;
  staticSecret: string;
  /** kill -9, then start again on the same HOME and port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function setPassword(home: string, env: Record<string, string>, password = PASSWORD): Promise<void> {
  const result = await runCli(["set-password"], { home, env, stdin: `${password}\n` });
  if (result.code !== 0) throw new Error(`set-password failed: ${result.stderr}`);
}

export async function startOAuthWorld(options: { env?: Record<string, string>; password?: boolean } = {}): Promise<OAuthWorld> {
  const gateway = await startFakeGateway();
  const home = makeHome();
  const staticSecret = randomBytes(32).toString("base64url");
  const env = {
    HERMES_API_KEY: FAKE_GATEWAY_KEY,
    HERMES_API_URL: gateway.url,
    OAUTH_CLIENT_ID: STATIC_ID,
    OAUTH_CLIENT_SECRET: staticSecret,
    ...options.env,
  };
  if (options.password) await setPassword(home, env);
  const world: OAuthWorld = {
    gateway,
    daemon: await startTestDaemon({ home, env }),
    home,
    env,
    staticSecret,
    get url() {
      return world.daemon.url;
    },
    async restart() {
      const port = world.daemon.port;
      await world.daemon.kill9();
      world.daemon = await startTestDaemon({ home, env, port });
    },
    async close() {
      await world.daemon.stop();
      await gateway.stop();
      removeHome(home);
    },
  };
  return world;
}

export function authorizeUrl(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${base}/authorize`);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

/** GET /authorize without following redirects. */
export function authorize(
  base: string,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(authorizeUrl(base, params), { redirect: "manual", headers });
}

/** The query of a redirect's Location (throws when there is none). */
export function redirectParams(response: Response): { url: URL; params: URLSearchParams } {
  const location = response.headers.get("location");
  if (!location) throw new Error(`no Location header (status ${response.status})`);
  const url = new URL(location);
  return { url, params: url.searchParams };
}

export interface TokenAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export async function tokenRequest(
  base: string,
  params: Record<string, string>,
  basic?: [string, string],
  path = "/token",
): Promise<TokenAnswer> {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (basic)
    headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic[0])}:${encodeURIComponent(basic[1])}`).toString("base64")}`;
  const response = await fetch(`${base}${path}`, { method: "POST", headers, body: new URLSearchParams(params) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Claude's static flow up to the code: /authorize auto-approves and redirects to Claude's callback. */
export async function staticCode(world: OAuthWorld, redirectUri = CLAUDE_CALLBACK): Promise<{ code: string; pair: Pkce }> {
  const pair = pkce();
  const response = await authorize(world.url, {
    response_type: "code",
    client_id: STATIC_ID,
    redirect_uri: redirectUri,
    code_challenge: pair.challenge,
    code_challenge_method: "S256",
    state: "st",
    resource: `${world.url}/mcp`,
  });
  const { params } = redirectParams(response);
  return { code: params.get("code") as string, pair };
}

/** The static client's code exchange as Claude sends it (client_secret_post), as /token form fields. */
export function staticExchange(world: OAuthWorld, code: string, verifier: string): Record<string, string> {
  return {
    grant_type: "authorization_code",
    code,
    redirect_uri: CLAUDE_CALLBACK,
    code_verifier: verifier,
    client_id: STATIC_ID,
    client_secret: world.staticSecret,
  };
}

/** Claude's whole static flow (client_secret_post): tokens. */
export async function staticTokens(world: OAuthWorld): Promise<{ access_token: string; refresh_token: string }> {
  const { code, pair } = await staticCode(world);
  const answer = await tokenRequest(world.url, staticExchange(world, code, pair.verifier));
  if (answer.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(answer.body)}`);
  return answer.body as { access_token: string; refresh_token: string };
}

export function refreshWith(world: OAuthWorld, refreshToken: string): Promise<TokenAnswer> {
  return tokenRequest(world.url, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: STATIC_ID,
    client_secret: world.staticSecret,
  });
}

/** What /register answers for a client (RFC 7591 §3.2.1); client_secret only for confidential clients. */
export interface RegisteredClient {
  client_id: string;
  client_secret: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  [field: string]: unknown;
}

/** Registers a client and returns its answer (throws unless 201). */
export async function registerOk(base: string, metadata: unknown): Promise<RegisteredClient> {
  const response = await registerClient(base, metadata);
  if (response.status !== 201) throw new Error(`registration failed (${response.status}): ${await response.text()}`);
  return (await response.json()) as RegisteredClient;
}

export function registerClient(base: string, metadata: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(metadata),
  });
}

/** Status of an authenticated tools/list on /mcp. */
export async function mcpStatus(base: string, accessToken: string): Promise<number> {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  await response.body?.cancel();
  return response.status;
}

export interface ConsentForm {
  status: number;
  html: string;
  req: string;
  csrf: string;
}

/** GET /authorize for a dynamic client: the consent page and its hidden fields. */
export async function consentPage(base: string, params: Record<string, string | undefined>): Promise<ConsentForm> {
  const response = await authorize(base, params);
  const html = await response.text();
  const field = (name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
  return { status: response.status, html, req: field("req"), csrf: field("csrf") };
}

/** POSTs the consent form as the page would (same-origin), without following the redirect. */
export function submitConsent(
  base: string,
  form: { req: string; csrf: string },
  password: string,
  action: "approve" | "deny",
  headers: Record<string, string> = {},
  /** Other form fields, such as the messaging checkboxes (`messaging_read: "yes"`). */
  fields: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base, "Sec-Fetch-Site": "same-origin", ...headers },
    body: new URLSearchParams({ req: form.req, csrf: form.csrf, password, action, ...fields }),
  });
}

/** A registered public app approved by the owner on the consent page (with any extra form fields ticked), through to its tokens. */
export async function approvedAppTokens(
  base: string,
  options: { name: string; redirectUri: string; fields?: Record<string, string> },
): Promise<{ access_token: string; refresh_token: string; scope: string; clientId: string }> {
  const app = await registerOk(base, {
    client_name: options.name,
    redirect_uris: [options.redirectUri],
    token_endpoint_auth_method: "none",
  });
  const pair = pkce();
  const form = await consentPage(base, {
    response_type: "code",
    client_id: app.client_id,
    redirect_uri: options.redirectUri,
    code_challenge: pair.challenge,
    code_challenge_method: "S256",
    state: "approved-app",
    resource: `${base}/mcp`,
  });
  const { params } = redirectParams(await submitConsent(base, form, PASSWORD, "approve", {}, options.fields ?? {}));
  const answer = await tokenRequest(base, {
    grant_type: "authorization_code",
    code: params.get("code") as string,
    redirect_uri: options.redirectUri,
    code_verifier: pair.verifier,
    client_id: app.client_id,
  });
  if (answer.status !== 200) throw new Error(`app token exchange failed: ${JSON.stringify(answer.body)}`);
  return {
    access_token: answer.body.access_token as string,
    refresh_token: answer.body.refresh_token as string,
    scope: answer.body.scope as string,
    clientId: app.client_id,
  };
}
