// Grants and their tokens: issuing codes, redeeming them once (replay revokes), rotating refresh tokens (one grace use, reuse revokes), revoking.
import { randomBytes } from "../crypto/primitives.ts";
import type { Config } from "../config/load.ts";
import { generateToken, hashToken } from "../crypto/tokens.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/index.ts";
import type { ResolvedClient } from "./clients.ts";
import { ACCESS_TOKEN_PREFIX, CODE_PREFIX, CODE_TTL_MS, MAX_OUTSTANDING_CODES, REFRESH_TOKEN_PREFIX } from "./constants.ts";
import type { OAuthErrorCode } from "./errors.ts";
import { verifyPkce } from "./pkce.ts";
import { isOurResource } from "./resource.ts";

export interface TokenSet {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  /** RFC 6749 §5.1: the granted scope, so a client that asked for more knows what it got. */
  scope: string;
}

type Issued = { ok: true; tokens: TokenSet; grantId: string };
export type GrantOutcome = Issued | { ok: false; error: OAuthErrorCode; description: string };

export interface CodeRequest {
  client: ResolvedClient;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
}

export interface Redemption {
  code: string;
  clientId: string;
  redirectUri: string;
  verifier: string;
  resource?: string;
}

const fail = (error: OAuthErrorCode, description: string): GrantOutcome => ({ ok: false, error, description });

export class GrantService {
  constructor(
    private readonly store: Store,
    private readonly config: Config,
    private readonly log: Logger,
    /** Called after anything is revoked in this process, so the token verifier drops its cache at once. */
    private readonly onRevoke: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh single-use code bound to client, redirect URI, PKCE challenge, resource and scope (RFC 6749 §4.1.2, RFC 7636 §4.4). */
  issueCode(request: CodeRequest): string {
    const code = generateToken(CODE_PREFIX);
    const at = this.now();
    this.store.oauth.transaction(() => {
      this.store.oauth.codes.insert({
        codeHash: hashToken(code),
        clientId: request.client.id,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        resource: request.resource,
        scope: request.scope,
        createdAt: at,
        expiresAt: at + CODE_TTL_MS,
      });
      // Bounded: a flood of authorizations evicts the oldest unredeemed codes instead of refusing the owner's.
      this.store.oauth.codes.evictUnused(MAX_OUTSTANDING_CODES);
      if (request.client.kind !== "static") this.store.oauth.clients.touch(request.client.id, at);
    });
    return code;
  }

  /** Is this an unexpired credential of `clientId`? (A request carrying one is exempt from the failed-auth throttle.) */
  holdsCredential(clientId: string, grantType: string | undefined, params: Record<string, string>): boolean {
    const at = this.now();
    if (grantType === "authorization_code" && params.code) {
      const code = this.store.oauth.codes.get(hashToken(params.code));
      return code !== null && code.clientId === clientId && code.usedAt === null && code.expiresAt > at;
    }
    if (grantType === "refresh_token" && params.refresh_token) {
      // Only a token that can still be exchanged (live, or grace once): a spent one is exactly what a thief would hold.
      const token = this.store.oauth.refreshTokens.find(hashToken(params.refresh_token));
      if (!token || token.state === "spent") return false;
      const grant = this.store.oauth.grants.get(token.grantId);
      return grant !== null && grant.clientId === clientId && grant.refreshExpiresAt > at;
    }
    return false;
  }

  redeemCode(request: Redemption, client: ResolvedClient): GrantOutcome {
    const codeHash = hashToken(request.code);
    const at = this.now();
    let revokedGrant: string | null = null;
    const outcome = this.store.oauth.transaction((): GrantOutcome => {
      const codes = this.store.oauth.codes;
      const row = codes.get(codeHash);
      if (!row) return fail("invalid_grant", "the authorization code is unknown or expired");
      // RFC 6749 §4.1.3: the code must have been issued to the authenticated client.
      if (row.clientId !== client.id) return fail("invalid_grant", "the authorization code was issued to another client");
      if (row.usedAt !== null) {
        // RFC 6749 §10.5 / OAuth 2.1 §4.1.3: a replayed code means it leaked — revoke everything issued from it.
        if (row.grantId && this.store.oauth.grants.delete(row.grantId)) revokedGrant = row.grantId;
        return fail("invalid_grant", "the authorization code was already used; the tokens issued from it have been revoked");
      }
      // From here on the code is spent whatever happens: single use (RFC 6749 §4.1.2).
      if (row.expiresAt <= at) {
        codes.markUsed(codeHash, at, null);
        return fail("invalid_grant", "the authorization code has expired; start the authorization again");
      }
      if (row.redirectUri !== request.redirectUri) {
        codes.markUsed(codeHash, at, null);
        return fail("invalid_grant", "redirect_uri does not match the one in the authorization request (RFC 6749 §4.1.3)");
      }
      // RFC 7636 §4.6: proof that this caller started the flow (a stolen code alone is useless).
      if (!verifyPkce(request.verifier, row.codeChallenge)) {
        codes.markUsed(codeHash, at, null);
        return fail("invalid_grant", "code_verifier does not match the code_challenge (PKCE, RFC 7636 §4.6)");
      }
      // RFC 8707 §2.2: a resource named at the token endpoint must be the one the code was issued for.
      if (request.resource !== undefined && !isOurResource(request.resource, row.resource)) {
        codes.markUsed(codeHash, at, null);
        return fail("invalid_target", `this code was issued for ${row.resource}`);
      }
      const issued = this.createGrant(client, row.scope, row.resource, at);
      codes.markUsed(codeHash, at, issued.grantId);
      return issued;
    });
    if (revokedGrant) {
      this.log.warn("oauth: authorization code replayed; its grant was revoked", { client_id: client.id, grant: revokedGrant });
      this.onRevoke();
    }
    if (outcome.ok)
      this.log.info("oauth: tokens issued", { client_id: client.id, grant: outcome.grantId, grant_type: "authorization_code" });
    return outcome;
  }

  /**
   * Refresh with rotation (RFC 9700 §4.14.2). Presenting the live token makes it the grace token and spends every other;
   * the grace token may be exchanged once more, and only while its successor is unused (Claude's backend and proxy
   * race on one grant; strict single use would sign the connector out). Any other presentation of a superseded
   * token means it was stolen: the whole grant and its access tokens are revoked. Each use slides the refresh lifetime.
   */
  refresh(refreshToken: string, client: ResolvedClient, resource: string | undefined): GrantOutcome {
    const presented = hashToken(refreshToken);
    const at = this.now();
    let reused: string | null = null;
    const outcome = this.store.oauth.transaction((): GrantOutcome => {
      const { grants, refreshTokens } = this.store.oauth;
      const token = refreshTokens.find(presented);
      const grant = token ? grants.get(token.grantId) : null;
      if (!token || !grant) return fail("invalid_grant", "the refresh token is unknown or revoked; sign in again");
      // RFC 6749 §10.4: refresh tokens are bound to the client they were issued to.
      if (grant.clientId !== client.id) return fail("invalid_grant", "the refresh token was issued to another client");
      if (token.state === "spent") {
        // RFC 9700 §4.14.2: a superseded token used again — by the thief or by the real client, we cannot tell which.
        grants.delete(grant.id);
        reused = grant.id;
        return fail("invalid_grant", "the refresh token was already used; this connection has been revoked for safety — sign in again");
      }
      if (grant.refreshExpiresAt <= at) return fail("invalid_grant", "the refresh token has expired; sign in again");
      // RFC 8707 §2.2: the audience cannot be changed on refresh.
      if (resource !== undefined && !isOurResource(resource, grant.resource))
        return fail("invalid_target", `this grant is for ${grant.resource}`);
      if (grant.resource !== this.config.resourceUrl)
        return fail("invalid_grant", "this grant was issued for another server URL (OAUTH_ISSUER_URL changed); sign in again");
      const next = generateToken(REFRESH_TOKEN_PREFIX);
      const rotated =
        token.state === "live"
          ? refreshTokens.rotateLive(grant.id, presented, hashToken(next), at)
          : refreshTokens.spendGrace(grant.id, presented, hashToken(next), at);
      if (!rotated) return fail("invalid_grant", "the refresh token was used or revoked meanwhile; sign in again");
      grants.slide(grant.id, at + this.config.oauth.refreshTokenTtlDays * 86_400_000, at);
      return { ok: true, grantId: grant.id, tokens: { ...this.issueAccess(grant.id, grant.scope, at), refresh_token: next } };
    });
    if (reused) {
      this.log.warn("oauth: a superseded refresh token was used again; its grant and every token issued from it were revoked", {
        client_id: client.id,
        grant: reused,
      });
      this.onRevoke();
    }
    if (outcome.ok) this.log.info("oauth: tokens issued", { client_id: client.id, grant: outcome.grantId, grant_type: "refresh_token" });
    return outcome;
  }

  /** RFC 7009: a refresh token revokes its whole grant; an access token only itself. Tokens of other clients are left alone. */
  revoke(token: string, client: ResolvedClient, hint: string | undefined): boolean {
    const tokenHash = hashToken(token);
    const grants = this.store.oauth.grants;
    const tryRefresh = (): boolean => {
      const token = this.store.oauth.refreshTokens.find(tokenHash);
      const grant = token ? grants.get(token.grantId) : null;
      return grant !== null && grant.clientId === client.id && grants.delete(grant.id);
    };
    const tryAccess = (): boolean => {
      const record = grants.findAccessToken(tokenHash);
      return record !== null && record.clientId === client.id && grants.deleteAccessToken(tokenHash);
    };
    const revoked =
      hint === "access_token" || token.startsWith(ACCESS_TOKEN_PREFIX) ? tryAccess() || tryRefresh() : tryRefresh() || tryAccess();
    if (revoked) {
      this.log.info("oauth: token revoked", { client_id: client.id });
      this.onRevoke();
    }
    return revoked;
  }

  private createGrant(client: ResolvedClient, scope: string, resource: string, at: number): Issued {
    const grantId = `g_${randomBytes(12).toString("base64url")}`;
    const refresh = generateToken(REFRESH_TOKEN_PREFIX);
    this.store.oauth.grants.insert({
      id: grantId,
      clientId: client.id,
      clientKind: client.kind,
      scope,
      resource,
      refreshExpiresAt: at + this.config.oauth.refreshTokenTtlDays * 86_400_000,
      createdAt: at,
    });
    this.store.oauth.refreshTokens.insert(hashToken(refresh), grantId, "live", at);
    return { ok: true, grantId, tokens: { ...this.issueAccess(grantId, scope, at), refresh_token: refresh } };
  }

  private issueAccess(grantId: string, scope: string, at: number): Omit<TokenSet, "refresh_token"> {
    const access = generateToken(ACCESS_TOKEN_PREFIX);
    const ttl = this.config.oauth.accessTokenTtlSeconds;
    this.store.oauth.grants.insertAccessToken(hashToken(access), grantId, at + ttl * 1000);
    return { access_token: access, token_type: "Bearer", expires_in: ttl, scope };
  }
}
