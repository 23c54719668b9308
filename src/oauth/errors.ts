// OAuth answers in their standard shapes: JSON errors (RFC 6749 §5.2), 429s with Retry-After, and redirects carrying code or error plus `iss` (RFC 9207).

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "unsupported_token_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "server_error"
  | "temporarily_unavailable"
  | "invalid_redirect_uri"
  | "invalid_client_metadata";

/** RFC 6749 §5.1: responses carrying credentials (and their errors) must never be cached. */
export const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" } as const;

export function oauthError(status: number, error: OAuthErrorCode, description: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error, error_description: description }, { status, headers: { ...NO_STORE, ...headers } });
}

/** Abuse limits answer 429 with Retry-After (RFC 6585 §4) and an OAuth-shaped body. */
export function tooManyRequests(retryAfterSeconds: number, description: string): Response {
  return oauthError(429, "temporarily_unavailable", description, { "Retry-After": String(retryAfterSeconds) });
}

/** Adds query parameters to a redirect URI, keeping any query it already has (RFC 6749 §3.1.2). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(key, value);
  return url.toString();
}

/** RFC 6749 §4.1.2.1 error redirect, with `state` echoed and RFC 9207 `iss` so clients can detect mix-up attacks. */
export function redirectError(
  redirectUri: string,
  issuer: string,
  state: string | undefined,
  error: OAuthErrorCode,
  description: string,
  status = 302,
): Response {
  const location = withParams(redirectUri, { error, error_description: description, state, iss: issuer });
  return new Response(null, { status, headers: { Location: location, ...NO_STORE } });
}

/** RFC 6749 §4.1.2 success redirect: the code, `state` echoed, and RFC 9207 `iss`. */
export function redirectCode(redirectUri: string, issuer: string, state: string | undefined, code: string, status = 302): Response {
  const location = withParams(redirectUri, { code, state, iss: issuer });
  return new Response(null, { status, headers: { Location: location, ...NO_STORE, "Referrer-Policy": "no-referrer" } });
}
