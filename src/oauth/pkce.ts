// PKCE (RFC 7636) with S256 only: the verifier's shape, the challenge's shape, and the constant-time check.
import { sha256 } from "../crypto/primitives.ts";
import { constantTimeEqual } from "../crypto/tokens.ts";

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 7636 §4.2: S256 challenge = BASE64URL(SHA256(verifier)), always 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isValidChallenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

export function isValidVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

/** The S256 transformation (a protocol function, not storage hashing: tokens are hashed by crypto/tokens.ts). */
export function s256(verifier: string): string {
  return sha256(verifier, "base64url");
}

/** RFC 7636 §4.6: the verifier must hash to the challenge stored with the code; compared in constant time. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  return isValidVerifier(verifier) && constantTimeEqual(s256(verifier), challenge);
}
