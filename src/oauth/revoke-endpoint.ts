// POST /revoke (RFC 7009): the client authenticates as at /token; the token is revoked if it is the client's; the answer is 200 either way.
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import { authenticateClient, presentedCredentials } from "./client-auth.ts";
import type { ClientDirectory } from "./clients.ts";
import { MAX_FORM_BYTES } from "./constants.ts";
import { NO_STORE, oauthError, tooManyRequests } from "./errors.ts";
import { readForm } from "./form.ts";
import type { GrantService } from "./grants.ts";
import { LIMITS, type Limiter } from "./limits.ts";
import { clientAuthBucket } from "./token-endpoint.ts";

export interface RevokeEndpointDeps {
  config: Config;
  log: Logger;
  clients: ClientDirectory;
  grants: GrantService;
  limiter: Limiter;
}

export function createRevokeEndpoint(deps: RevokeEndpointDeps): (request: Request) => Promise<Response> {
  const { config, log, clients, grants, limiter } = deps;
  return async (request) => {
    const form = await readForm(request, MAX_FORM_BYTES);
    if (!form.ok) return oauthError(form.status, "invalid_request", form.description);
    const presented = presentedCredentials(request, form.params);
    if (!presented.ok) return oauthError(presented.status, presented.error, presented.description);
    const client = clients.forToken(presented.credentials.clientId);
    const bucket = clientAuthBucket(client?.id ?? null);
    const wait = limiter.retryAfter(bucket, LIMITS.clientAuth);
    if (wait !== null) return tooManyRequests(wait, `too many failed client authentications; retry in ${wait} s`);
    if (!authenticateClient(client, presented.credentials, config)) {
      limiter.hit(bucket, LIMITS.clientAuth);
      log.warn("oauth: client authentication failed", { client_id: client?.id ?? "unknown", endpoint: "revoke" });
      return oauthError(401, "invalid_client", client ? "client authentication failed" : "unknown client_id");
    }
    const token = form.params.token;
    if (!token || token.length > 512) return oauthError(400, "invalid_request", "token is required");
    // RFC 7009 §2.2: unknown, expired or foreign tokens get the same 200 (nothing to learn from the answer).
    grants.revoke(token, client as NonNullable<typeof client>, form.params.token_type_hint);
    return new Response(null, { status: 200, headers: NO_STORE });
  };
}
