// Bearer authentication for /mcp (RFC 6750 §2.1: header only) with RFC 9728 WWW-Authenticate challenges.
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Context, MiddlewareHandler } from "hono";
import type { TokenVerifier } from "../oauth/verify.ts";

export type BearerEnv = { Variables: { auth: AuthInfo } };

/** RFC 9728 §5.1: the challenge names our protected-resource metadata so clients can discover the authorization server. */
export function challenge(resourceMetadataUrl: string, error?: { code: string; description: string }): string {
  const parts = [`Bearer resource_metadata="${resourceMetadataUrl}"`];
  if (error) parts.push(`error="${error.code}"`, `error_description="${error.description.replace(/"/g, "'")}"`);
  return parts.join(", ");
}

function unauthorized(c: Context, resourceMetadataUrl: string, description: string, withError: boolean): Response {
  const header = challenge(resourceMetadataUrl, withError ? { code: "invalid_token", description } : undefined);
  return c.json({ error: withError ? "invalid_token" : "unauthorized", error_description: description }, 401, { "WWW-Authenticate": header });
}

export function bearerAuth(verifier: TokenVerifier, resourceMetadataUrl: string): MiddlewareHandler<BearerEnv> {
  return async (c, next) => {
    // Tokens in URLs end up in logs and Referer headers (RFC 6750 §5.3): refuse them outright.
    const url = new URL(c.req.url);
    if (url.searchParams.has("access_token")) {
      return c.json({ error: "invalid_request", error_description: "send the token in the Authorization header, not the URL" }, 400);
    }
    const header = c.req.header("authorization");
    if (!header) return unauthorized(c, resourceMetadataUrl, "authorization required: send Authorization: Bearer <token>", false);
    const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
    if (!match) return unauthorized(c, resourceMetadataUrl, "malformed Authorization header: expected `Bearer <token>`", true);
    const info = verifier.verify(match[1] as string);
    if (!info) return unauthorized(c, resourceMetadataUrl, "the access token is invalid, expired, revoked, or for another resource", true);
    c.set("auth", info);
    await next();
  };
}
