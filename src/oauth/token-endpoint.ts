// POST /token (RFC 6749 §3.2): client authentication under a failed-auth throttle, then the authorization_code or refresh_token grant.
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import { authenticateRequest, type ClientGateDeps } from "./client-gate.ts";
import { MAX_FORM_BYTES } from "./constants.ts";
import { NO_STORE, oauthError } from "./errors.ts";
import { readForm } from "./form.ts";
import type { GrantOutcome, GrantService } from "./grants.ts";

const CodeGrant = builtOnFirstUse(() =>
  z.object({
    code: z.string({ error: "code is required" }).min(1, "code is required").max(512),
    redirect_uri: z.string({ error: "redirect_uri is required (it was sent in the authorization request)" }).min(1).max(2048),
    code_verifier: z.string({ error: "code_verifier is required (PKCE)" }).min(1, "code_verifier is required (PKCE)").max(256),
    resource: z.string().max(2048).optional(),
  }),
);

const RefreshGrant = builtOnFirstUse(() =>
  z.object({
    refresh_token: z.string({ error: "refresh_token is required" }).min(1, "refresh_token is required").max(512),
    resource: z.string().max(2048).optional(),
    // RFC 6749 §6: a narrower scope may be asked for; there is only one scope, so the grant's scope is kept.
    scope: z.string().max(2048).optional(),
  }),
);

export interface TokenEndpointDeps extends ClientGateDeps {
  grants: GrantService;
}

export function createTokenEndpoint(deps: TokenEndpointDeps): (request: Request) => Promise<Response> {
  const { grants } = deps;
  return async (request) => {
    const form = await readForm(request, MAX_FORM_BYTES);
    if (!form.ok) return oauthError(form.status, "invalid_request", form.description);
    const params = form.params;
    // A request carrying a live code or refresh token of this client (256-bit secrets a guesser does not have) is exempt from the throttle.
    const gate = authenticateRequest(deps, request, params, "token", (client) =>
      grants.holdsCredential(client.id, params.grant_type, params),
    );
    if (!gate.ok) return gate.response;
    const authenticated = gate.client;
    let outcome: GrantOutcome;
    switch (params.grant_type) {
      case undefined:
        return oauthError(400, "invalid_request", "grant_type is required");
      case "authorization_code": {
        const parsed = CodeGrant.safeParse(params);
        if (!parsed.success) return oauthError(400, "invalid_request", parsed.error.issues[0]?.message ?? "invalid request");
        const p = parsed.data;
        outcome = grants.redeemCode(
          { code: p.code, clientId: authenticated.id, redirectUri: p.redirect_uri, verifier: p.code_verifier, resource: p.resource },
          authenticated,
        );
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
