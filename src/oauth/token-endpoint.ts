// POST /token (RFC 6749 §3.2): client authentication under a failed-auth throttle, then the authorization_code or refresh_token grant.
import { z } from "zod";
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import { authenticateClient, presentedCredentials } from "./client-auth.ts";
import type { ClientDirectory } from "./clients.ts";
import { MAX_FORM_BYTES } from "./constants.ts";
import { NO_STORE, oauthError, tooManyRequests } from "./errors.ts";
import { readForm } from "./form.ts";
import type { GrantOutcome, GrantService } from "./grants.ts";
import { LIMITS, type Limiter } from "./limits.ts";

const CodeGrant = z.object({
  code: z.string({ error: "code is required" }).min(1, "code is required").max(512),
  redirect_uri: z.string({ error: "redirect_uri is required (it was sent in the authorization request)" }).min(1).max(2048),
  code_verifier: z.string({ error: "code_verifier is required (PKCE)" }).min(1, "code_verifier is required (PKCE)").max(256),
  resource: z.string().max(2048).optional(),
});

const RefreshGrant = z.object({
  refresh_token: z.string({ error: "refresh_token is required" }).min(1, "refresh_token is required").max(512),
  resource: z.string().max(2048).optional(),
  // RFC 6749 §6: a narrower scope may be asked for; there is only one scope, so the grant's scope is kept.
  scope: z.string().max(2048).optional(),
});

export interface TokenEndpointDeps {
  config: Config;
  log: Logger;
  clients: ClientDirectory;
  grants: GrantService;
  limiter: Limiter;
}

/** The throttle bucket for failed client authentication: per known client, one shared bucket for unknown ids. */
export const clientAuthBucket = (clientId: string | null): string => `client-auth:${clientId ?? "?"}`;

export function createTokenEndpoint(deps: TokenEndpointDeps): (request: Request) => Promise<Response> {
  const { config, log, clients, grants, limiter } = deps;
  return async (request) => {
    const form = await readForm(request, MAX_FORM_BYTES);
    if (!form.ok) return oauthError(form.status, "invalid_request", form.description);
    const params = form.params;
    const presented = presentedCredentials(request, params);
    if (!presented.ok) return oauthError(presented.status, presented.error, presented.description);
    const credentials = presented.credentials;
    const client = clients.forToken(credentials.clientId);
    const bucket = clientAuthBucket(client?.id ?? null);
    // Brute force of client secrets is throttled — but a request that carries a live code or refresh token of this
    // client (256-bit secrets an attacker does not have) is exempt, so guessing can never lock the owner's connectors out.
    if (!(client && grants.holdsCredential(client.id, params.grant_type, params))) {
      const wait = limiter.retryAfter(bucket, LIMITS.clientAuth);
      if (wait !== null) return tooManyRequests(wait, `too many failed client authentications; retry in ${wait} s`);
    }
    if (!authenticateClient(client, credentials, config)) {
      limiter.hit(bucket, LIMITS.clientAuth);
      log.warn("oauth: client authentication failed", { client_id: client?.id ?? "unknown", method: credentials.method });
      const challenge = credentials.method === "client_secret_basic" ? { "WWW-Authenticate": 'Basic realm="hermes-mcp"' } : undefined;
      return oauthError(401, "invalid_client", client ? "client authentication failed (wrong or missing client secret)" : "unknown client_id", challenge);
    }
    const authenticated = client as NonNullable<typeof client>;
    let outcome: GrantOutcome;
    switch (params.grant_type) {
      case undefined:
        return oauthError(400, "invalid_request", "grant_type is required");
      case "authorization_code": {
        const parsed = CodeGrant.safeParse(params);
        if (!parsed.success) return oauthError(400, "invalid_request", parsed.error.issues[0]?.message ?? "invalid request");
        const p = parsed.data;
        outcome = grants.redeemCode({ code: p.code, clientId: authenticated.id, redirectUri: p.redirect_uri, verifier: p.code_verifier, resource: p.resource }, authenticated);
        break;
      }
      case "refresh_token": {
        const parsed = RefreshGrant.safeParse(params);
        if (!parsed.success) return oauthError(400, "invalid_request", parsed.error.issues[0]?.message ?? "invalid request");
        outcome = grants.refresh(parsed.data.refresh_token, authenticated, parsed.data.resource);
        break;
      }
      default:
        return oauthError(400, "unsupported_grant_type", "supported grant types: authorization_code, refresh_token");
    }
    if (!outcome.ok) return oauthError(400, outcome.error, outcome.description);
    return Response.json(outcome.tokens, { headers: NO_STORE });
  };
}
