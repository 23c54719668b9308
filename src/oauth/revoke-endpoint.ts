// POST /revoke (RFC 7009): the client authenticates as at /token; the token is revoked if it is the client's; the answer is 200 either way.
import { authenticateRequest, type ClientGateDeps } from "./client-gate.ts";
import { MAX_FORM_BYTES } from "./constants.ts";
import { NO_STORE, oauthError } from "./errors.ts";
import { readForm } from "./form.ts";
import type { GrantService } from "./grants.ts";

export interface RevokeEndpointDeps extends ClientGateDeps {
  grants: GrantService;
}

export function createRevokeEndpoint(deps: RevokeEndpointDeps): (request: Request) => Promise<Response> {
  return async (request) => {
    const form = await readForm(request, MAX_FORM_BYTES);
    if (!form.ok) return oauthError(form.status, "invalid_request", form.description);
    const gate = authenticateRequest(deps, request, form.params, "revoke");
    if (!gate.ok) return gate.response;
    const token = form.params.token;
    if (!token || token.length > 512) return oauthError(400, "invalid_request", "token is required");
    // RFC 7009 §2.2: unknown, expired or foreign tokens get the same 200 (nothing to learn from the answer).
    deps.grants.revoke(token, gate.client, form.params.token_type_hint);
    return new Response(null, { status: 200, headers: NO_STORE });
  };
}
