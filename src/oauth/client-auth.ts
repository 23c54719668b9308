// Client authentication at /token and /revoke (RFC 6749 §2.3): client_secret_basic, client_secret_post or none, secrets compared in constant time.
import type { Config } from "../config/load.ts";
import { constantTimeEqual, hashToken } from "../crypto/tokens.ts";
import type { ResolvedClient } from "./clients.ts";
import type { Params } from "./form.ts";

export interface PresentedCredentials {
  clientId: string;
  secret: string | null;
  method: "client_secret_basic" | "client_secret_post" | "none";
}

export type CredentialsResult =
  | { ok: true; credentials: PresentedCredentials }
  | { ok: false; status: number; error: "invalid_request" | "invalid_client"; description: string };

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64 (so ':' and '%' survive). */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

export function presentedCredentials(request: Request, params: Params): CredentialsResult {
  const header = request.headers.get("authorization");
  if (header && /^basic\s/i.test(header)) {
    let decoded: string;
    try {
      decoded = Buffer.from(header.replace(/^basic\s+/i, "").trim(), "base64").toString("utf8");
    } catch {
      return { ok: false, status: 401, error: "invalid_client", description: "malformed Basic credentials" };
    }
    const colon = decoded.indexOf(":");
    const id = colon > 0 ? formDecode(decoded.slice(0, colon)) : null;
    const secret = colon > 0 ? formDecode(decoded.slice(colon + 1)) : null;
    if (!id || secret === null)
      return {
        ok: false,
        status: 401,
        error: "invalid_client",
        description: "malformed Basic credentials (expected client_id:client_secret)",
      };
    // RFC 6749 §2.3: a client MUST NOT use more than one authentication method in a request.
    if (params.client_secret !== undefined)
      return {
        ok: false,
        status: 400,
        error: "invalid_request",
        description: "use one client authentication method: Basic header or client_secret in the body, not both",
      };
    if (params.client_id !== undefined && params.client_id !== id)
      return { ok: false, status: 400, error: "invalid_request", description: "client_id in the body differs from the Basic credentials" };
    return { ok: true, credentials: { clientId: id, secret, method: "client_secret_basic" } };
  }
  if (!params.client_id)
    return {
      ok: false,
      status: 401,
      error: "invalid_client",
      description: "client authentication required: send client_id (and client_secret for confidential clients)",
    };
  if (params.client_secret !== undefined)
    return { ok: true, credentials: { clientId: params.client_id, secret: params.client_secret, method: "client_secret_post" } };
  return { ok: true, credentials: { clientId: params.client_id, secret: null, method: "none" } };
}

/** True when the presented credentials prove the client's identity. Public clients prove nothing here: PKCE and the grant do. */
export function authenticateClient(client: ResolvedClient | null, credentials: PresentedCredentials, config: Config): boolean {
  if (!client) return false;
  if (!client.confidential) return true;
  if (credentials.secret === null || credentials.secret.length > 512) return false;
  // Constant-time comparisons: no timing side channel on how much of a guessed secret was right.
  if (client.kind === "static") return config.staticClient !== null && constantTimeEqual(credentials.secret, config.staticClient.secret);
  const stored = client.record?.secretHash;
  return typeof stored === "string" && constantTimeEqual(hashToken(credentials.secret), stored);
}
