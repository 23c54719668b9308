// Personal access tokens for clients that take a static Authorization header: create (shown once), list, revoke.
import { randomBytes } from "../crypto/primitives.ts";
import { generateToken, hashToken } from "../crypto/tokens.ts";
import type { Store } from "../store/index.ts";
import type { PersonalTokenInfo, TokenMessaging } from "../store/personal-tokens.ts";
import { nameHint } from "../name-hint.ts";

export const PERSONAL_TOKEN_PREFIX = "hmcp_pat_";
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class PersonalTokenError extends Error {
  override name = "PersonalTokenError";
}

/**
 * Creates a token named `name` and returns it; only its hash is stored, so this is the one time it can be shown.
 * `messaging` is what it may do with Hermes's messaging tools (off unless asked for: reading chats is a power of its own).
 */
export function createPersonalToken(store: Store, name: string, now = Date.now(), messaging: TokenMessaging = "off"): string {
  if (!NAME.test(name)) {
    throw new PersonalTokenError(
      `token name "${name}" is not allowed: use 1–64 letters, digits, dots, dashes or underscores, starting with a letter or digit`,
    );
  }
  const token = generateToken(PERSONAL_TOKEN_PREFIX);
  // Threat: a re-created token inheriting a conversation. A principal is an identity, not a name: revoking "dave" and
  // creating "dave" again yields someone new, with none of the old one's sessions or jobs.
  const principal = `pat:${name}#${randomBytes(4).toString("hex")}`;
  if (!store.personalTokens.create(name, hashToken(token), principal, now, messaging)) {
    throw new PersonalTokenError(
      `a token named "${name}" already exists — pick another name, or revoke it first with \`hermes-mcp token revoke ${name}\``,
    );
  }
  return token;
}

export function listPersonalTokens(store: Store): PersonalTokenInfo[] {
  return store.personalTokens.list();
}

/** Revokes by name; the running daemon stops accepting it on its next request. Its conversations are forgotten. */
export function revokePersonalToken(store: Store, name: string): void {
  const principal = store.db.transaction(() => {
    const revoked = store.personalTokens.revoke(name);
    if (revoked) store.sessions.deleteFor(revoked);
    return revoked;
  })();
  if (!principal) {
    const known = store.personalTokens.list().map((t) => t.name);
    throw new PersonalTokenError(`no token named "${name}"${nameHint(name, known)} — see \`hermes-mcp token list\``);
  }
}
