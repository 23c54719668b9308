// The OAuth tables as one facade on the store: clients, grants and access tokens, refresh tokens, codes, settings, abuse-limit counters.
import type { Database } from "bun:sqlite";
import { OAuthClientStore } from "./oauth-clients.ts";
import { OAuthCodeStore } from "./oauth-codes.ts";
import { OAuthGrantStore } from "./oauth-grants.ts";
import { OAuthLimitStore } from "./oauth-limits.ts";
import { OAuthRefreshTokenStore } from "./oauth-refresh-tokens.ts";
import { OAuthSettingsStore } from "./oauth-settings.ts";

export class OAuthStore {
  readonly clients: OAuthClientStore;
  readonly grants: OAuthGrantStore;
  readonly refreshTokens: OAuthRefreshTokenStore;
  readonly codes: OAuthCodeStore;
  readonly settings: OAuthSettingsStore;
  readonly limits: OAuthLimitStore;

  constructor(private readonly db: Database) {
    this.clients = new OAuthClientStore(db);
    this.grants = new OAuthGrantStore(db);
    this.refreshTokens = new OAuthRefreshTokenStore(db);
    this.codes = new OAuthCodeStore(db);
    this.settings = new OAuthSettingsStore(db);
    this.limits = new OAuthLimitStore(db);
  }

  /** Runs `body` in one transaction (immediate, so concurrent redemptions serialise). */
  transaction<T>(body: () => T): T {
    return this.db.transaction(body).immediate();
  }
}
