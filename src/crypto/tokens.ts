// The one place secrets are made, hashed for storage and compared: 256-bit random tokens, SHA-256 hashes, constant-time equality.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A 256-bit random token, base64url, with a readable prefix so leaked tokens are recognisable (and scannable). */
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * Storage form of a high-entropy secret. A plain SHA-256 is enough for 256-bit random tokens
 * (no dictionary to attack); passwords use Bun.password (argon2id) instead.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Constant-time string equality (no early exit on the first differing byte: timing side channel). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash("sha256").update(a, "utf8").digest();
  const right = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(left, right);
}
