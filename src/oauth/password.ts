// The owner's consent password: argon2id via Bun.password, stored as a hash in SQLite; dynamic clients are on only while one is set.
import type { Config } from "../config/load.ts";
import type { Store } from "../store/index.ts";
import { CONSENT_BUCKET } from "./limits.ts";

const KEY = "consent_password";
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

export class PasswordError extends Error {
  override name = "PasswordError";
}

export async function setConsentPassword(store: Store, password: string): Promise<void> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new PasswordError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new PasswordError(`the password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  // A human-chosen secret: a slow, memory-hard hash (argon2id), never the fast token hash.
  store.oauth.settings.set(KEY, await Bun.password.hash(password, { algorithm: "argon2id" }));
  // Whoever can run this already owns the machine: a new password also lifts every lockout (global and per address)
  // left by guessing at the old one.
  store.oauth.limits.deleteFamily(CONSENT_BUCKET);
}

export function hasConsentPassword(store: Store): boolean {
  return store.oauth.settings.get(KEY) !== null;
}

export async function verifyConsentPassword(store: Store, password: string): Promise<boolean> {
  const hash = store.oauth.settings.get(KEY);
  if (hash === null || password.length === 0 || password.length > MAX_PASSWORD_LENGTH) return false;
  try {
    return await Bun.password.verify(password, hash);
  } catch {
    return false;
  }
}

/** Registration and client metadata documents: only once the owner has a password to approve them with, and not turned off. */
export function dynamicClientsEnabled(config: Config, store: Store): boolean {
  return config.oauth.dynamicClients && hasConsentPassword(store);
}
