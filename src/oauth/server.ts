// The authorization server as a Hono app (mounted by http/app.ts behind the Host guard): discovery, /authorize, /token, /register, /revoke.
import { Hono, type Context } from "hono";
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/index.ts";
import { createAuthorizeEndpoints } from "./authorize-endpoint.ts";
import { MetadataClients } from "./cimd.ts";
import { clientAddress } from "./client-address.ts";
import { ClientDirectory } from "./clients.ts";
import { CONSENT_TTL_MS } from "./constants.ts";
import { ConsentSealer } from "./csrf.ts";
import { oauthError } from "./errors.ts";
import { GrantService } from "./grants.ts";
import { Housekeeper } from "./housekeeping.ts";
import { Limiter } from "./limits.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata.ts";
import { dynamicClientsEnabled } from "./password.ts";
import { createRegisterEndpoint } from "./register-endpoint.ts";
import { createRevokeEndpoint } from "./revoke-endpoint.ts";
import { createTokenEndpoint } from "./token-endpoint.ts";

export interface OAuthServerDeps {
  config: Config;
  store: Store;
  log: Logger;
  /** Called after an in-process revocation (code replay, /revoke): the token verifier must drop its cache. */
  onRevoke: () => void;
  now?: () => number;
}

/**
 * Browser-based clients (MCP Inspector) call discovery, /token, /register and /revoke cross-origin. No cookies or
 * ambient credentials exist on these endpoints, so allowing any origin exposes nothing a plain HTTP client could not get.
 */
const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
  "Access-Control-Max-Age": "86400",
};

/** The TCP peer: the daemon hands Hono Bun's server as `c.env` (Bun.serve({ fetch: app.fetch })); absent in-process. */
function peerOf(c: Context): string | null {
  const server = c.env as { requestIP?: (request: Request) => { address: string } | null } | undefined;
  try {
    return server?.requestIP?.(c.req.raw)?.address ?? null;
  } catch {
    return null;
  }
}

const sourceOf = (c: Context): string => clientAddress(peerOf(c), c.req.raw.headers);

function withCors(response: Response): Response {
  for (const [key, value] of Object.entries(CORS)) response.headers.set(key, value);
  return response;
}

export function createOAuthServer(deps: OAuthServerDeps): Hono {
  const { config, store, log, onRevoke } = deps;
  const now = deps.now ?? Date.now;
  const metadata = new MetadataClients(store, config.oauth.allowLoopbackCimd, log);
  const clients = new ClientDirectory(config, store, metadata);
  const grants = new GrantService(store, config, log, onRevoke, now);
  const limiter = new Limiter(store.oauth.limits, now);
  const housekeeper = new Housekeeper(store, log, now);
  const authorize = createAuthorizeEndpoints({
    config,
    store,
    log,
    clients,
    metadata,
    grants,
    limiter,
    sealer: new ConsentSealer(CONSENT_TTL_MS),
    now,
  });
  const token = createTokenEndpoint({ config, log, clients, grants, limiter });
  const register = createRegisterEndpoint({ config, store, log, limiter, now });
  const revoke = createRevokeEndpoint({ config, log, clients, grants, limiter });
  housekeeper.sweep();

  const app = new Hono();
  const preflight = (): Response => withCors(new Response(null, { status: 204 }));
  const wrongMethod = (allow: string) => (c: Context) =>
    withCors(oauthError(405, "invalid_request", `use ${allow} on ${c.req.path}`, { Allow: allow }));

  const asMetadata = (): Response => withCors(Response.json(authorizationServerMetadata(config, dynamicClientsEnabled(config, store))));
  const prMetadata = (): Response => withCors(Response.json(protectedResourceMetadata(config)));
  app.get("/.well-known/oauth-authorization-server", asMetadata);
  // RFC 9728 §3.1: the path-specific location for <issuer>/mcp, and the root one some clients try first.
  app.get("/.well-known/oauth-protected-resource/mcp", prMetadata);
  app.get("/.well-known/oauth-protected-resource", prMetadata);
  for (const path of [
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource",
  ]) {
    app.options(path, preflight);
  }

  app.get("/authorize", (c) => {
    housekeeper.maybeSweep();
    return authorize.get(c.req.raw);
  });
  app.post("/authorize", (c) => authorize.post(c.req.raw, sourceOf(c)));

  const endpoints: [string, (request: Request, address: string) => Promise<Response>][] = [
    ["/token", token],
    ["/register", register],
    ["/revoke", revoke],
  ];
  for (const [path, handler] of endpoints) {
    app.post(path, async (c) => {
      housekeeper.maybeSweep();
      return withCors(await handler(c.req.raw, sourceOf(c)));
    });
    app.options(path, preflight);
    app.on(["GET", "PUT", "DELETE", "PATCH"], path, wrongMethod("POST"));
  }
  return app;
}
