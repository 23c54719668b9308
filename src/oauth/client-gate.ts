// The one client-authentication gate for /token and /revoke: credentials presented, client resolved, guessing throttled, failures logged and answered.
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import { authenticateClient, presentedCredentials } from "./client-auth.ts";
import type { ClientDirectory, ResolvedClient } from "./clients.ts";
import { oauthError, tooManyRequests } from "./errors.ts";
import type { Params } from "./form.ts";
import { LIMITS, type Limiter } from "./limits.ts";

export interface ClientGateDeps {
  config: Config;
  log: Logger;
  clients: ClientDirectory;
  limiter: Limiter;
}

export type GateResult = { ok: true; client: ResolvedClient } | { ok: false; response: Response };

/** The throttle bucket for failed client authentication: per known client, one shared bucket for unknown ids. */
const bucketOf = (client: ResolvedClient | null): string => `client-auth:${client?.id ?? "?"}`;

/**
 * Authenticates the client of a /token or /revoke request (RFC 6749 §2.3). Online guessing of client secrets is
 * throttled per client (429 + Retry-After) — except for a request that `exempt` recognises as carrying one of the
 * client's own live credentials, so that guessing can never lock the owner's connectors out.
 */
export function authenticateRequest(
  deps: ClientGateDeps,
  request: Request,
  params: Params,
  endpoint: "token" | "revoke",
  exempt: (client: ResolvedClient) => boolean = () => false,
): GateResult {
  const presented = presentedCredentials(request, params);
  if (!presented.ok) return { ok: false, response: oauthError(presented.status, presented.error, presented.description) };
  const { credentials } = presented;
  const client = deps.clients.forToken(credentials.clientId);
  const bucket = bucketOf(client);
  if (!(client && exempt(client))) {
    const wait = deps.limiter.retryAfter(bucket, LIMITS.clientAuth);
    if (wait !== null) return { ok: false, response: tooManyRequests(wait, `too many failed client authentications; retry in ${wait} s`) };
  }
  if (!client || !authenticateClient(client, credentials, deps.config)) {
    deps.limiter.hit(bucket, LIMITS.clientAuth);
    deps.log.warn("oauth: client authentication failed", { client_id: client?.id ?? "unknown", method: credentials.method, endpoint });
    // RFC 6749 §5.2: a failed Basic authentication answers 401 with a Basic challenge.
    const challenge = credentials.method === "client_secret_basic" ? { "WWW-Authenticate": 'Basic realm="hermes-mcp"' } : undefined;
    return {
      ok: false,
      response: oauthError(
        401,
        "invalid_client",
        client ? "client authentication failed (wrong or missing client secret)" : "unknown client_id",
        challenge,
      ),
    };
  }
  return { ok: true, client };
}
