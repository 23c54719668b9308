// Bearer authentication for /mcp (RFC 6750 §2.1: header only) with RFC 9728 WWW-Authenticate challenges.
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { TokenVerifier } from "../oauth/verify.ts";

/** RFC 9728 §5.1: the challenge names our protected-resource metadata so clients can discover the authorization server. */
export function challenge(resourceMetadataUrl: string, error?: { code: string; description: string }): string {
  const parts = [`Bearer resource_metadata="${resourceMetadataUrl}"`];
  if (error) parts.push(`error="${error.code}"`, `error_description="${error.description.replace(/"/g, "'")}"`);
  return parts.join(", ");
}

function unauthorized(resourceMetadataUrl: string, description: string, withError: boolean): Response {
  const header = challenge(resourceMetadataUrl, withError ? { code: "invalid_token", description } : undefined);
  return Response.json(
    { error: withError ? "invalid_token" : "unauthorized", error_description: description },
    { status: 401, headers: { "WWW-Authenticate": header } },
  );
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i;

/** The caller's identity, or the response that refuses it. */
export function authenticate(request: Request, verifier: TokenVerifier, resourceMetadataUrl: string): AuthInfo | Response {
  // Tokens in URLs end up in logs and Referer headers (RFC 6750 §5.3): refuse them outright, under any percent-encoding
  // of the name (?access%5Ftoken=, ?%61ccess_token=) — whatever a query parser decodes to access_token.
  const query = request.url.indexOf("?");
  if (query !== -1 && new URLSearchParams(request.url.slice(query + 1)).has("access_token")) {
    return Response.json(
      { error: "invalid_request", error_description: "send the token in the Authorization header, not the URL" },
      { status: 400 },
    );
  }
  const header = request.headers.get("authorization");
  if (!header) return unauthorized(resourceMetadataUrl, "authorization required: send Authorization: Bearer <token>", false);
  const match = BEARER.exec(header);
  if (!match) return unauthorized(resourceMetadataUrl, "malformed Authorization header: expected `Bearer <token>`", true);
  const info = verifier.verify(match[1] as string);
  return info ?? unauthorized(resourceMetadataUrl, "the access token is invalid, expired, revoked, or for another resource", true);
}
