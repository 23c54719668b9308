// Validates an authorization request step by step: what must end on an error page (never redirecting) and what may redirect with an error (approved clients only).
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import type { Config } from "../config/load.ts";
import type { ClientDirectory, ResolvedClient } from "./clients.ts";
import { SCOPE } from "./constants.ts";
import { redirectError } from "./errors.ts";
import type { Params } from "./form.ts";
import { isValidChallenge } from "./pkce.ts";
import { isOurResource } from "./resource.ts";

/** Unrecognised parameters are ignored (RFC 6749 §3.1); recognised ones are bounded. */
const AuthorizeParams = builtOnFirstUse(() =>
  z.object({
    response_type: z.string().max(64).optional(),
    client_id: z.string().min(1).max(2048).optional(),
    redirect_uri: z.string().max(2048).optional(),
    state: z.string().max(2048).optional(),
    scope: z.string().max(2048).optional(),
    code_challenge: z.string().max(256).optional(),
    code_challenge_method: z.string().max(64).optional(),
    resource: z.string().max(2048).optional(),
  }),
);

export interface AuthorizationRequest {
  client: ResolvedClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  /** RFC 8707: the audience the grant is bound to (always this server's MCP endpoint). */
  resource: string;
  /** What is granted: the one scope, whatever was asked (unknown scopes never fail a flow). */
  scope: string;
  /** The request's own parameters, for sealing into the consent form. */
  params: Params;
}

export type AuthorizeOutcome =
  | { kind: "page"; status: number; title: string; message: string }
  | { kind: "redirect"; response: Response }
  | { kind: "ok"; request: AuthorizationRequest };

const page = (title: string, message: string, status = 400): AuthorizeOutcome => ({ kind: "page", status, title, message });

export async function validateAuthorization(raw: Params, config: Config, clients: ClientDirectory, now: number): Promise<AuthorizeOutcome> {
  const parsed = AuthorizeParams.safeParse(raw);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? "a parameter");
    return page("Invalid authorization request", `The parameter "${field}" is empty or too long.`);
  }
  const p = parsed.data;
  // RFC 6749 §4.1.2.1: until client and redirect URI are verified, errors are shown here and never redirected (open redirector).
  if (!p.client_id) return page("Invalid authorization request", "The request has no client_id.");
  const resolved = await clients.forAuthorization(p.client_id, now);
  if (!resolved.ok) return page("Unknown client", `This app cannot sign in here: ${resolved.reason}.`);
  const client = resolved.client;
  if (!p.redirect_uri) return page("Invalid authorization request", "The request has no redirect_uri.");
  if (!clients.redirectAllowed(client, p.redirect_uri)) {
    return page(
      "Redirect address not allowed",
      client.kind === "static"
        ? "This app asked to be sent back to an address this server does not allow for its client. Allowed: Claude's callbacks, loopback addresses, the app schemes in OAUTH_ALLOWED_REDIRECT_SCHEMES and the URIs in OAUTH_ALLOWED_REDIRECT_URIS."
        : "This app asked to be sent back to an address it did not register.",
    );
  }
  const redirectUri = p.redirect_uri;
  // RFC 9700 §4.11.2: anyone can register https://evil.example/phish, so an app the owner never approved gets its
  // errors on a page here, never a redirect from the owner's host to its URI (open redirector).
  const trusted = clients.everApproved(client);
  const fail = (error: Parameters<typeof redirectError>[3], description: string): AuthorizeOutcome =>
    trusted
      ? { kind: "redirect", response: redirectError(redirectUri, config.issuerUrl, p.state, error, description) }
      : page("Invalid authorization request", `This app sent a request this server cannot accept: ${description} (${error}).`);
  // The client and its redirect URI are verified from here: errors go back to an approved one (RFC 6749 §4.1.2.1), with `iss` (RFC 9207).
  if (p.response_type !== "code") return fail("unsupported_response_type", "only response_type=code is supported");
  // OAuth 2.1 §4.1.1 / MCP authorization: PKCE is mandatory, and only S256 (plain would expose the verifier).
  if (!p.code_challenge) return fail("invalid_request", "code_challenge is required (PKCE with S256)");
  if (p.code_challenge_method !== "S256") return fail("invalid_request", "code_challenge_method must be S256 (plain is not supported)");
  if (!isValidChallenge(p.code_challenge)) return fail("invalid_request", "code_challenge must be 43 base64url characters (S256)");
  // RFC 8707 §2: a resource other than our MCP endpoint is a different audience.
  if (p.resource !== undefined && !isOurResource(p.resource, config.resourceUrl)) {
    return fail("invalid_target", `this server only issues tokens for ${config.resourceUrl}`);
  }
  const params: Params = {
    response_type: "code",
    client_id: client.id,
    redirect_uri: redirectUri,
    code_challenge: p.code_challenge,
    code_challenge_method: "S256",
  };
  if (p.state !== undefined) params.state = p.state;
  if (p.scope !== undefined) params.scope = p.scope;
  if (p.resource !== undefined) params.resource = p.resource;
  return {
    kind: "ok",
    request: { client, redirectUri, state: p.state, codeChallenge: p.code_challenge, resource: config.resourceUrl, scope: SCOPE, params },
  };
}
