// POST /register (RFC 7591): JSON only, size-capped, rate-limited per address, bounded while unapproved, redirect URIs validated; secrets returned once, stored as hashes.
import { randomBytes } from "../crypto/primitives.ts";
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import type { Config } from "../config/load.ts";
import { generateToken, hashToken } from "../crypto/tokens.ts";
import type { Logger } from "../log.ts";
import type { ClientAuthMethod } from "../store/oauth-clients.ts";
import type { Store } from "../store/index.ts";
import { cleanName } from "./cimd.ts";
import { addressKey } from "./client-address.ts";
import {
  CLIENT_ID_PREFIX,
  CLIENT_SECRET_PREFIX,
  MAX_PENDING_REGISTRATIONS,
  MAX_REDIRECT_URIS,
  MAX_REGISTRATION_BYTES,
  PENDING_REGISTRATION_PROTECTED_MS,
  SCOPE,
} from "./constants.ts";
import { NO_STORE, oauthError, tooManyRequests } from "./errors.ts";
import { readBody } from "./form.ts";
import { addressBuckets, LIMITS, REGISTRATION_BUCKET, type Limiter } from "./limits.ts";
import { dynamicClientsEnabled } from "./password.ts";
import { parseRedirectUri } from "../web/redirect-uri.ts";

/** RFC 7591 §2 client metadata we act on; anything else is accepted and ignored. */
const RegistrationSchema = builtOnFirstUse(() =>
  z.looseObject({
    redirect_uris: z
      .array(z.string().max(2048), { error: "redirect_uris must be an array of URIs" })
      .min(1, "redirect_uris must list at least one URI")
      .max(MAX_REDIRECT_URIS, `at most ${MAX_REDIRECT_URIS} redirect_uris`),
    token_endpoint_auth_method: z.string().max(64).optional(),
    grant_types: z.array(z.string().max(64)).max(10).optional(),
    response_types: z.array(z.string().max(64)).max(10).optional(),
    client_name: z.string().max(200).optional(),
  }),
);

const AUTH_METHODS: readonly string[] = ["none", "client_secret_post", "client_secret_basic"];

export interface RegisterEndpointDeps {
  config: Config;
  store: Store;
  log: Logger;
  limiter: Limiter;
  now: () => number;
}

const metadataError = (description: string, status = 400): Response => oauthError(status, "invalid_client_metadata", description);

/** `address`: the request's source (client-address.ts), for the per-address registration limit. */
export function createRegisterEndpoint(deps: RegisterEndpointDeps): (request: Request, address: string) => Promise<Response> {
  const { config, store, log, limiter, now } = deps;
  return async (request, address) => {
    // Dynamic clients exist only once the owner has a consent password (and OAUTH_DYNAMIC_CLIENTS is not false).
    if (!dynamicClientsEnabled(config, store)) {
      return oauthError(
        403,
        "access_denied",
        config.oauth.dynamicClients
          ? "dynamic client registration is off until the server's owner runs `hermes-mcp set-password`"
          : "dynamic client registration is turned off (OAUTH_DYNAMIC_CLIENTS=false)",
      );
    }
    const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") return metadataError("send the registration as application/json (RFC 7591 §3.1)");
    // A malicious registrant flooding the table: limits on registrations made per address, under a global ceiling one
    // address cannot reach (refused ones create nothing), and a bound on registrations waiting for approval below.
    const buckets = addressBuckets(REGISTRATION_BUCKET, addressKey(address), LIMITS.registrationPerAddress, LIMITS.registrationGlobal);
    const wait = limiter.retryAfterAny(buckets);
    if (wait !== null) return tooManyRequests(wait, `too many registrations; retry in ${wait} s`);
    const received = await readBody(request, MAX_REGISTRATION_BYTES);
    if (!received.ok)
      return received.status === 413
        ? metadataError(`the registration is larger than ${MAX_REGISTRATION_BYTES} bytes`, 413)
        : metadataError(received.description);
    let json: unknown;
    try {
      json = JSON.parse(received.text);
    } catch {
      return metadataError("the registration is not valid JSON");
    }
    const parsed = RegistrationSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = String(issue?.path[0] ?? "");
      const description = `${field ? `${field}: ` : ""}${issue?.message ?? "invalid metadata"}`;
      return field === "redirect_uris" ? oauthError(400, "invalid_redirect_uri", description) : metadataError(description);
    }
    const meta = parsed.data;
    // Every URI must be one a client could legitimately use; one bad URI refuses the registration, naming it.
    for (const uri of meta.redirect_uris) {
      const checked = parseRedirectUri(uri);
      if (!checked.ok) return oauthError(400, "invalid_redirect_uri", `${uri.slice(0, 200)}: ${checked.reason}`);
    }
    // RFC 7591 §2: the default method is client_secret_basic.
    const method = (meta.token_endpoint_auth_method ?? "client_secret_basic") as ClientAuthMethod;
    if (!AUTH_METHODS.includes(method))
      return metadataError(`token_endpoint_auth_method "${method}" is not supported; use none, client_secret_post or client_secret_basic`);
    const grantTypes = meta.grant_types ?? ["authorization_code"];
    if (!grantTypes.includes("authorization_code"))
      return metadataError("grant_types must include authorization_code (the only interactive grant here)");
    if (meta.response_types && !meta.response_types.includes("code")) return metadataError('response_types must include "code"');

    const at = now();
    const clientId = `${CLIENT_ID_PREFIX}${randomBytes(16).toString("hex")}`;
    const secret = method === "none" ? null : generateToken(CLIENT_SECRET_PREFIX);
    const name = cleanName(meta.client_name) ?? "Unnamed app";
    limiter.hitAll(buckets);
    const room = store.oauth.transaction(() => {
      const clients = store.oauth.clients;
      // Bounded: the oldest never-approved registrations make room, but never one young enough that the owner may be
      // approving it right now; when all are that young, the new one is refused instead.
      clients.evictPendingRegistrations(MAX_PENDING_REGISTRATIONS - 1, at - PENDING_REGISTRATION_PROTECTED_MS, at);
      if (clients.countPendingRegistrations() >= MAX_PENDING_REGISTRATIONS) return false;
      clients.upsert({
        clientId,
        kind: "registered",
        name,
        secretHash: secret === null ? null : hashToken(secret),
        authMethod: method,
        redirectUris: meta.redirect_uris,
        createdAt: at,
        cachedUntil: null,
        // A registered app's identity is its own random client_id: registering again makes a new one.
        principal: clientId,
      });
      return true;
    });
    if (!room) {
      log.warn("oauth: registration refused: too many registrations are waiting for approval", { pending: MAX_PENDING_REGISTRATIONS });
      return tooManyRequests(60, "too many registrations are waiting for the owner's approval; retry in a few minutes");
    }
    log.info("oauth: client registered", { client_id: clientId, auth_method: method, redirect_uris: meta.redirect_uris.length });
    const body: Record<string, unknown> = {
      client_id: clientId,
      client_id_issued_at: Math.floor(at / 1000),
      client_name: name,
      redirect_uris: meta.redirect_uris,
      token_endpoint_auth_method: method,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: SCOPE,
    };
    if (secret !== null) {
      body.client_secret = secret;
      body.client_secret_expires_at = 0;
    }
    return Response.json(body, { status: 201, headers: NO_STORE });
  };
}
