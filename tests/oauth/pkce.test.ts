// PKCE with S256 only (RFC 7636): verifier and challenge shapes, the transformation, and verification.
import { describe, expect, test } from "bun:test";
import { isValidChallenge, isValidVerifier, s256, verifyPkce } from "../../src/oauth/pkce.ts";

/** RFC 7636 Appendix B. */
const RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

describe("s256", () => {
  test("matches the RFC 7636 example: unpadded base64url of SHA-256", () => {
    expect(s256(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
  });
});

describe("isValidVerifier", () => {
  test("43 to 128 unreserved characters", () => {
    expect(isValidVerifier("a".repeat(43))).toBe(true);
    expect(isValidVerifier("a".repeat(128))).toBe(true);
    expect(isValidVerifier(`${"A".repeat(39)}-._~`)).toBe(true);
    expect(isValidVerifier("a".repeat(42))).toBe(false);
    expect(isValidVerifier("a".repeat(129))).toBe(false);
    expect(isValidVerifier("")).toBe(false);
  });

  test("characters outside [A-Za-z0-9-._~] are refused", () => {
    for (const bad of ["+", "/", "=", " ", "%", "é", "\n"]) {
      const verifier = `${"a".repeat(42)}${bad}`;
      expect({ bad, valid: isValidVerifier(verifier) }).toEqual({ bad, valid: false });
    }
  });
});

describe("isValidChallenge", () => {
  test("exactly 43 base64url characters", () => {
    expect(isValidChallenge(RFC_CHALLENGE)).toBe(true);
    expect(isValidChallenge(`${RFC_CHALLENGE}=`)).toBe(false);
    expect(isValidChallenge(RFC_CHALLENGE.slice(1))).toBe(false);
    expect(isValidChallenge(`${RFC_CHALLENGE}A`)).toBe(false);
    expect(isValidChallenge(RFC_CHALLENGE.replace("-", "+"))).toBe(false);
    expect(isValidChallenge(RFC_CHALLENGE.replace("-", "."))).toBe(false);
  });
});

describe("verifyPkce", () => {
  test("accepts the verifier whose S256 is the challenge", () => {
    expect(verifyPkce(RFC_VERIFIER, RFC_CHALLENGE)).toBe(true);
  });

  test("refuses another verifier, a changed challenge, and the plain method", () => {
    expect(verifyPkce(RFC_VERIFIER.replace("d", "e"), RFC_CHALLENGE)).toBe(false);
    expect(verifyPkce(RFC_VERIFIER, RFC_CHALLENGE.toLowerCase())).toBe(false);
    expect(verifyPkce(RFC_VERIFIER, `${RFC_CHALLENGE}=`)).toBe(false);
    // plain: the challenge is the verifier itself.
    expect(verifyPkce(RFC_VERIFIER, RFC_VERIFIER)).toBe(false);
  });

  test("a malformed verifier is refused even when its hash matches", () => {
    for (const verifier of ["short", "a".repeat(129), `${"a".repeat(42)}+`]) {
      expect({ verifier: verifier.slice(0, 20), ok: verifyPkce(verifier, s256(verifier)) }).toEqual({
        verifier: verifier.slice(0, 20),
        ok: false,
      });
    }
  });
});
