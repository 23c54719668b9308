// The TokenKind for OAuth access tokens on /mcp: looked up by hash, refused when expired, revoked, or for another audience (RFC 8707).
import type { Config } from "../config/load.ts";
import { scopesOfLevel } from "../messaging/level.ts";
import type { Store } from "../store/index.ts";
import { ACCESS_TOKEN_PREFIX, SCOPE } from "./constants.ts";
import type { TokenKind } from "./verify.ts";

export function oauthAccessTokenKind(store: Store, config: Config): TokenKind {
  return {
    prefix: ACCESS_TOKEN_PREFIX,
    lookup(tokenHash, token) {
      const record = store.oauth.grants.findAccessToken(tokenHash);
      if (!record) return null;
      // RFC 8707 / MCP authorization "token audience binding": a token minted for another resource is not ours to honour.
      if (record.resource !== config.resourceUrl) return null;
      // A revoked client's tokens die with it; the static client's die when OAUTH_CLIENT_ID changes.
      if (record.clientKind === "static" ? record.clientId !== config.staticClient?.id : !record.clientKnown) return null;
      return {
        token,
        clientId: record.clientId,
        // The static client's messaging is OAUTH_STATIC_CLIENT_MESSAGING as it is now (changing it takes effect at once);
        // any other client's is what the owner ticked on the consent page, kept in its grant.
        scopes: record.clientKind === "static" ? [SCOPE, ...scopesOfLevel(config.messaging.staticClient)] : record.scope.split(" "),
        expiresAt: Math.floor(record.expiresAt / 1000),
        resource: new URL(record.resource),
        // The caller's identity on /mcp (jobs and sessions are per principal): the app's principal, which a revoked
        // and re-approved metadata client or a re-registered app does not share with its former self.
        extra: {
          grantId: record.grantId,
          principal: record.clientKind === "static" ? record.clientId : (record.clientPrincipal ?? record.clientId),
        },
      };
    },
    touch(_tokenHash, info, at) {
      const grantId = info.extra?.grantId;
      if (typeof grantId === "string") store.oauth.grants.touch(grantId, at);
    },
  };
}
