// The one place secrets are made, hashed for storage and compared: 256-bit random tokens, SHA-256 hashes, constant-time equality.
import { randomBytes, sha256 } from "./primitives.ts";

/** A 256-bit random token, base64url, with a readable prefix so leaked tokens are recognisable (and scannable). */
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * Storage form of a high-entropy secret. A plain SHA-256 is enough for 256-bit random tokens
 * (no dictionary to attack); passwords use Bun.password (argon2id) instead.
 */
export function hashToken(token: string): string {
  return sha256(token, "hex");
}

/** Constant-time string equality (no early exit on the first differing byte: timing side channel). */
export function constantTimeEqual(a: string, b: string): boolean {
  // Equal-length digests (64 hex characters) whatever the inputs' lengths, compared byte for byte in constant time.
  return crypto.timingSafeEqual(Buffer.from(sha256(a, "hex")), Buffer.from(sha256(b, "hex")));
}
