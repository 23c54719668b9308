// Checks bearer tokens on /mcp: personal access tokens (and OAuth access tokens) by hash, cached until another process writes the database.
import type { AuthInfo } from "@modelcontextprotocol/server";
import { elapsedSince } from "../clock.ts";
import { hashToken } from "../crypto/tokens.ts";
import { scopesOfLevel } from "../messaging/level.ts";
import type { Store } from "../store/index.ts";
import { PERSONAL_TOKEN_PREFIX } from "./personal-tokens.ts";

/** Resolves a presented token to who it belongs to, or null when it is unknown, revoked, expired or for another audience. */
export interface TokenVerifier {
  verify(token: string): AuthInfo | null;
}

/** One kind of token: answers for the tokens it recognises (by prefix), null for the rest. */
export interface TokenKind {
  prefix: string;
  /** Looks a token up by hash; may return `expiresAt` (epoch seconds) to bound caching. */
  lookup(tokenHash: string, token: string): AuthInfo | null;
  /** Records use (called at most once a minute per token). */
  touch?(tokenHash: string, info: AuthInfo, at: number): void;
}

const TOUCH_EVERY_MS = 60_000;
const CACHE_LIMIT = 10_000;

/**
 * The hot path: a token seen before is answered from memory. The cache is dropped whenever SQLite's data_version
 * moves (another connection — a `token revoke` or `clients revoke` CLI — committed; asked at most once a millisecond,
 * store/commit-probe.ts), so a revocation holds for every request checked 1 ms after its commit.
 */
export function createTokenVerifier(
  store: Store,
  kinds: TokenKind[],
  now: () => number = Date.now,
  onTouchFailed: (error: unknown) => void = () => {},
): TokenVerifier & { invalidate(): void } {
  const cache = new Map<string, { info: AuthInfo; touchedAt: number; tokenHash: string }>();
  let seenVersion = store.dataVersion();
  const invalidate = (): void => cache.clear();
  // "Last used" is bookkeeping: a database refusing the write (a full disk) must not refuse the caller as well.
  const touch = (kind: TokenKind, tokenHash: string, info: AuthInfo, at: number): void => {
    try {
      kind.touch?.(tokenHash, info, at);
    } catch (error) {
      onTouchFailed(error);
    }
  };
  return {
    invalidate,
    verify(token: string): AuthInfo | null {
      const version = store.dataVersion();
      if (version !== seenVersion) {
        seenVersion = version;
        cache.clear();
      }
      const kind = kinds.find((k) => token.startsWith(k.prefix));
      if (!kind || token.length > 512) return null;
      const at = now();
      // Keyed by the token itself (it lives in this process's memory only), so a hit costs no hashing.
      const cached = cache.get(token);
      if (cached) {
        if (cached.info.expiresAt !== undefined && cached.info.expiresAt * 1000 <= at) {
          cache.delete(token);
          return null;
        }
        if (elapsedSince(cached.touchedAt, at) >= TOUCH_EVERY_MS) {
          cached.touchedAt = at;
          touch(kind, cached.tokenHash, cached.info, at);
        }
        return cached.info;
      }
      const tokenHash = hashToken(token);
      const info = kind.lookup(tokenHash, token);
      if (!info) return null;
      if (info.expiresAt !== undefined && info.expiresAt * 1000 <= at) return null;
      touch(kind, tokenHash, info, at);
      if (cache.size >= CACHE_LIMIT) cache.clear();
      // (Our own writes, like touch, do not move data_version: only other connections' commits do.)
      cache.set(token, { info, touchedAt: at, tokenHash });
      return info;
    },
  };
}

/**
 * Personal access tokens: no expiry; shown as client `pat:<name>`, acting as the token's own principal
 * (`extra.principal`, e.g. `pat:dave#1a2b3c4d`): jobs and conversations belong to the token, not to its name; its
 * scopes say what it may do with messaging.
 */
export function personalTokenKind(store: Store): TokenKind {
  return {
    prefix: PERSONAL_TOKEN_PREFIX,
    lookup(tokenHash, token) {
      const row = store.personalTokens.findByHash(tokenHash);
      if (!row) return null;
      // Messaging only when the token was created with --messaging read|send (a token as such reads no one's chats).
      return {
        token,
        clientId: `pat:${row.name}`,
        scopes: ["hermes", ...scopesOfLevel(row.messaging)],
        extra: { principal: row.principal },
      };
    },
    touch(_hash, info, at) {
      const principal = info.extra?.principal;
      if (typeof principal === "string") store.personalTokens.touch(principal, at);
    },
  };
}
