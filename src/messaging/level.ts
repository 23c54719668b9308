// What a caller may do with messaging, as OAuth scopes and as a level: off < read < send (send includes read).
import { MESSAGING_LEVELS, type MessagingLevel } from "../config/schema.ts";

export type { MessagingLevel };

/** Granted alongside `hermes`, only when the owner ticked the consent page's messaging box. */
export const MESSAGES_READ_SCOPE = "hermes:messages.read";
export const MESSAGES_SEND_SCOPE = "hermes:messages.send";

const rank = (level: MessagingLevel): number => MESSAGING_LEVELS.indexOf(level);

/** The lower of two levels: a caller never gets more than the daemon allows, nor more than it was granted. */
export const atMost = (a: MessagingLevel, b: MessagingLevel): MessagingLevel => (rank(a) <= rank(b) ? a : b);

/** Whether `level` includes `needed`. */
export const allows = (level: MessagingLevel, needed: MessagingLevel): boolean => rank(level) >= rank(needed);

/** A token's scopes → its messaging level (send needs both scopes: sending without reading is never granted). */
export function levelOfScopes(scopes: readonly string[]): MessagingLevel {
  if (!scopes.includes(MESSAGES_READ_SCOPE)) return "off";
  return scopes.includes(MESSAGES_SEND_SCOPE) ? "send" : "read";
}

/** A level → the scopes that grant it, besides `hermes`. */
export function scopesOfLevel(level: MessagingLevel): string[] {
  if (level === "off") return [];
  return level === "send" ? [MESSAGES_READ_SCOPE, MESSAGES_SEND_SCOPE] : [MESSAGES_READ_SCOPE];
}
