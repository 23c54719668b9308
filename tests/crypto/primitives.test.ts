// The native primitives give exactly what node:crypto gives for the same input: SHA-256, HMAC-SHA-256, random bytes.
import { describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { hmacSha256, randomBytes, sha256 } from "../../src/crypto/primitives.ts";

const INPUTS = ["", "abc", "päßwörd ✓ 🙂", "x".repeat(10_000), new Uint8Array([0, 255, 1, 254])];

describe("crypto primitives", () => {
  test("sha256 equals node:crypto's in every encoding, for strings (UTF-8) and bytes", () => {
    for (const input of INPUTS) {
      for (const encoding of ["hex", "base64", "base64url"] as const) {
        expect(sha256(input, encoding)).toBe(createHash("sha256").update(input).digest(encoding));
      }
    }
  });

  test("hmacSha256 equals node:crypto's, for string and byte keys", () => {
    for (const key of ["k", new Uint8Array(32).fill(7), ""]) {
      for (const input of INPUTS) {
        expect(hmacSha256(key, input, "base64url")).toBe(createHmac("sha256", key).update(input).digest("base64url"));
      }
    }
  });

  test("randomBytes gives the size asked for, and different bytes each time", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) seen.add(randomBytes(16).toString("hex"));
    expect(seen.size).toBe(100);
    expect(randomBytes(32).length).toBe(32);
    expect(randomBytes(0).length).toBe(0);
  });
});
