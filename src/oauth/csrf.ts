// The consent form's anti-CSRF token: an HMAC over the exact authorization request and an expiry, under a key that never leaves memory.
import { hmacSha256, randomBytes } from "../crypto/primitives.ts";
import { constantTimeEqual } from "../crypto/tokens.ts";

export interface SealedRequest {
  /** The authorization request, serialised (hidden form field). */
  req: string;
  /** HMAC binding `req` to this process's key: a forged or edited request fails. */
  csrf: string;
}

/**
 * Binds consent forms to the request they were rendered for (so a form cannot be replayed with another client,
 * redirect URI or PKCE challenge) and to a deadline. The key lives in memory only: nothing secret is stored, and a
 * restart merely expires open consent pages.
 */
export class ConsentSealer {
  private readonly key = randomBytes(32);

  constructor(private readonly ttlMs: number) {}

  seal(params: Record<string, string>, now: number): SealedRequest {
    const req = Buffer.from(JSON.stringify({ p: params, exp: now + this.ttlMs }), "utf8").toString("base64url");
    return { req, csrf: this.mac(req) };
  }

  /** The request's parameters, or null when the token does not match, the payload is malformed, or it expired. */
  open(req: string, csrf: string, now: number): Record<string, string> | null {
    if (!constantTimeEqual(this.mac(req), csrf)) return null;
    try {
      const payload = JSON.parse(Buffer.from(req, "base64url").toString("utf8")) as { p?: unknown; exp?: unknown };
      if (typeof payload.exp !== "number" || payload.exp < now) return null;
      if (!payload.p || typeof payload.p !== "object") return null;
      const params: Record<string, string> = {};
      for (const [key, value] of Object.entries(payload.p)) if (typeof value === "string") params[key] = value;
      return params;
    } catch {
      return null;
    }
  }

  private mac(req: string): string {
    return hmacSha256(this.key, req, "base64url");
  }
}
