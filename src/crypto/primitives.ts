// The daemon's few cryptographic primitives — random bytes, SHA-256, HMAC-SHA-256 — from Bun's native hashers and Web Crypto.

/*
 * Why not node:crypto: Bun implements it largely in JavaScript, and an import anywhere in the bundle runs at start-up
 * (1.4 MiB of idle RSS in a bare compiled server; the daemon idles 1.4 MiB lower without it, node:net and node:http,
 * measured), for three functions Bun offers natively. Same algorithms, same outputs (tests/crypto/primitives.test.ts).
 */

type Encoding = "hex" | "base64" | "base64url";

/** `size` bytes from the operating system's CSPRNG (Web Crypto getRandomValues). */
export function randomBytes(size: number): Buffer {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(size)));
}

/** SHA-256 of a string (UTF-8) or bytes. */
export function sha256(data: string | Uint8Array, encoding: Encoding): string {
  return new Bun.CryptoHasher("sha256").update(data).digest(encoding);
}

/** HMAC-SHA-256 of a string (UTF-8) or bytes under `key`. */
export function hmacSha256(key: string | Uint8Array, data: string | Uint8Array, encoding: Encoding): string {
  return new Bun.CryptoHasher("sha256", key).update(data).digest(encoding);
}
