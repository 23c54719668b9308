// GET /authorize (auto-approve the static client, else the consent page) and POST /authorize (the consent form: password, Approve / Deny).
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/index.ts";
import { type AuthorizationRequest, type AuthorizeOutcome, validateAuthorization } from "./authorize-request.ts";
import type { MetadataClients } from "./cimd.ts";
import { addressKey } from "./client-address.ts";
import type { ClientDirectory } from "./clients.ts";
import { atMost, levelOfScopes, scopesOfLevel, type MessagingLevel } from "../messaging/level.ts";
import { chosenMessaging, renderConsent } from "./consent-page.ts";
import { MAX_FORM_BYTES, SCOPE } from "./constants.ts";
import type { ConsentSealer } from "./csrf.ts";
import { redirectCode, redirectError } from "./errors.ts";
import { readForm, singleParams } from "./form.ts";
import type { GrantService } from "./grants.ts";
import { errorPage } from "./html.ts";
import { addressBucket, addressBuckets, CONSENT_BUCKET, LIMITS, type Limiter } from "./limits.ts";
import { verifyConsentPassword } from "./password.ts";

export interface AuthorizeEndpointDeps {
  config: Config;
  store: Store;
  log: Logger;
  clients: ClientDirectory;
  metadata: MetadataClients;
  grants: GrantService;
  limiter: Limiter;
  sealer: ConsentSealer;
  now: () => number;
}

/** The form must come from our own page: a present Origin must be this host, and Sec-Fetch-Site same-origin (cross-site request forgery). */
function foreignSubmission(request: Request): boolean {
  const host = request.headers.get("host");
  const origin = request.headers.get("origin");
  if (origin !== null) {
    try {
      if (new URL(origin).host !== host) return true;
    } catch {
      return true;
    }
  }
  const site = request.headers.get("sec-fetch-site");
  return site !== null && site !== "same-origin";
}

function lockedPage(seconds: number): Response {
  const minutes = Math.ceil(seconds / 60);
  return errorPage(
    429,
    "Approvals are locked for now",
    `Too many wrong passwords. Approvals are locked for about ${minutes} minute(s); apps already connected keep working. If you are the owner, run hermes-mcp set-password on the machine where hermes-mcp runs: that lifts the lock at once.`,
    { "Retry-After": String(seconds) },
  );
}

export interface AuthorizeEndpoints {
  get: (request: Request) => Promise<Response>;
  /** `address`: the request's source (client-address.ts), for the per-address password-guessing limit. */
  post: (request: Request, address: string) => Promise<Response>;
}

export function createAuthorizeEndpoints(deps: AuthorizeEndpointDeps): AuthorizeEndpoints {
  const { config, store, log, clients, metadata, grants, limiter, sealer, now } = deps;

  const settle = (outcome: AuthorizeOutcome): Response | AuthorizationRequest => {
    if (outcome.kind === "page") return errorPage(outcome.status, outcome.title, outcome.message);
    if (outcome.kind === "redirect") return outcome.response;
    return outcome.request;
  };

  /** The scope granted: always `hermes`, plus the messaging scopes for the level approved (never beyond HERMES_MCP_MESSAGING). */
  const grantedScope = (messaging: MessagingLevel): string => [SCOPE, ...scopesOfLevel(atMost(config.messaging.mode, messaging))].join(" ");

  const approve = (request: AuthorizationRequest, status: number, messaging: MessagingLevel): Response => {
    if (request.client.record) metadata.remember(request.client.record);
    // From the first approval on, the client's errors may be redirected to it (RFC 9700 §4.11.2).
    if (request.client.kind !== "static") store.oauth.clients.markApproved(request.client.id, now());
    const code = grants.issueCode({
      client: request.client,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scope: grantedScope(messaging),
    });
    log.info("oauth: authorization approved", { client_id: request.client.id, kind: request.client.kind, messaging });
    return redirectCode(request.redirectUri, config.issuerUrl, request.state, code, status);
  };

  const consent = (request: AuthorizationRequest, error?: string, status?: number, messagingChosen?: MessagingLevel): Response => {
    // What the app asked for in its scope (RFC 6749 §3.3), within what the daemon offers: ticked on first showing.
    const requested = atMost(config.messaging.mode, levelOfScopes((request.params.scope ?? "").split(" ")));
    return renderConsent({
      client: request.client,
      redirectUri: request.redirectUri,
      sealed: sealer.seal(request.params, now()),
      error,
      status,
      messaging: config.messaging.mode,
      messagingChosen: messagingChosen ?? requested,
      messagingRequested: requested !== "off",
    });
  };

  return {
    async get(raw) {
      const query = singleParams(new URL(raw.url).searchParams);
      if (!query.ok) return errorPage(400, "Invalid authorization request", `${query.description} (RFC 6749 §3.1).`);
      const settled = settle(await validateAuthorization(query.params, config, clients, now()));
      if (settled instanceof Response) return settled;
      // The static client is confidential: only the holder of its secret can redeem the code, so no consent page is needed;
      // its messaging is what OAUTH_STATIC_CLIENT_MESSAGING says (the owner's setting stands in for the checkbox).
      if (settled.client.kind === "static") return approve(settled, 302, config.messaging.staticClient);
      return consent(settled);
    },

    async post(raw, address) {
      if (foreignSubmission(raw)) return errorPage(403, "Request refused", "This approval was not submitted from this server's own page.");
      const form = await readForm(raw, MAX_FORM_BYTES);
      if (!form.ok) return errorPage(form.status, "Invalid approval", form.description);
      const { req, csrf, action, password } = form.params;
      const messaging = chosenMessaging(form.params, config.messaging.mode);
      // Anti-CSRF: the form's token must be the HMAC of exactly this authorization request, and not expired.
      const sealed = req && csrf ? sealer.open(req, csrf, now()) : null;
      if (!sealed)
        return errorPage(
          400,
          "This approval page has expired",
          "Start again from your app (approval pages are valid for 10 minutes and not across restarts).",
        );
      const settled = settle(await validateAuthorization(sealed, config, clients, now()));
      if (settled instanceof Response) return settled;
      if (settled.client.kind === "static") return errorPage(400, "Invalid approval", "This client does not use the approval page.");
      if (action === "deny") {
        log.info("oauth: authorization denied by the owner", { client_id: settled.client.id });
        // RFC 9700 §4.11.2: Deny on a never-approved app's page must not become a redirect to wherever it registered.
        if (!clients.everApproved(settled.client)) return errorPage(200, "Request denied", "You denied this app. Nothing was sent to it.");
        return redirectError(settled.redirectUri, config.issuerUrl, settled.state, "access_denied", "the owner denied the request", 303);
      }
      if (action !== "approve") return errorPage(400, "Invalid approval", "Choose Approve or Deny.");
      // Online guessing of the consent password: repeated failures lock approvals from that address (persisted), under
      // a global ceiling one address cannot reach — never issued tokens, and never the owner from elsewhere.
      const source = addressKey(address);
      const buckets = addressBuckets(CONSENT_BUCKET, source, LIMITS.consentPerAddress, LIMITS.consentGlobal);
      const locked = limiter.retryAfterAny(buckets);
      if (locked !== null) return lockedPage(locked);
      if (!(await verifyConsentPassword(store, password ?? ""))) {
        const wait = limiter.hitAll(buckets);
        log.warn("oauth: wrong consent password", { client_id: settled.client.id, address });
        if (wait !== null) return lockedPage(wait);
        return consent(settled, "Wrong password. Try again.", 403, messaging);
      }
      // The owner's own address starts afresh; the global count is left to its window.
      limiter.clear(addressBucket(CONSENT_BUCKET, source));
      return approve(settled, 303, messaging);
    },
  };
}
