import { describe, expect, test } from "bun:test";
import { constantTimeEqual, generateToken, hashToken } from "../../src/crypto/tokens.ts";

describe("tokens", () => {
  test("are 256-bit, prefixed, and unique", () => {
    const a = generateToken("hmcp_pat_");
    const b = generateToken("hmcp_pat_");
    expect(a.startsWith("hmcp_pat_")).toBe(true);
    expect(Buffer.from(a.slice(9), "base64url").length).toBe(32);
    expect(a).not.toBe(b);
  });

  test("hash to 64 hex characters that do not contain the token", () => {
    const token = generateToken("x_");
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toContain(token.slice(2, 12));
  });

  test("compare in constant time and correctly", () => {
    expect(constantTimeEqual("secret-value", "secret-value")).toBe(true);
    expect(constantTimeEqual("secret-value", "secret-valuf")).toBe(false);
    expect(constantTimeEqual("short", "much longer value")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
});
