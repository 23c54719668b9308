// The consent form's anti-CSRF seal: the request round-trips intact, and any edit, foreign key or expiry makes it unreadable.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { ConsentSealer } from "../../src/oauth/csrf.ts";

const TTL = 10 * 60_000;
const T0 = 1_700_000_000_000;
const PARAMS = {
  client_id: "hmcp_client_abc",
  redirect_uri: "https://claude.ai/api/mcp/auth_callback",
  code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  state: "xyz",
};

/** Re-encodes a sealed request with an edited payload, as an attacker editing the hidden field would. */
const edit = (req: string, change: (payload: { p: Record<string, unknown>; exp: number }) => void): string => {
  const payload = JSON.parse(Buffer.from(req, "base64url").toString("utf8")) as { p: Record<string, unknown>; exp: number };
  change(payload);
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
};

describe("ConsentSealer", () => {
  test("opens what it sealed, with the same parameters, until the deadline inclusive", () => {
    const sealer = new ConsentSealer(TTL);
    const { req, csrf } = sealer.seal(PARAMS, T0);
    expect(sealer.open(req, csrf, T0)).toEqual(PARAMS);
    expect(sealer.open(req, csrf, T0 + TTL)).toEqual(PARAMS);
  });

  test("refuses after the deadline", () => {
    const sealer = new ConsentSealer(TTL);
    const { req, csrf } = sealer.seal(PARAMS, T0);
    expect(sealer.open(req, csrf, T0 + TTL + 1)).toBeNull();
  });

  test("refuses an edited request: another redirect URI, client, challenge, or a later deadline", () => {
    const sealer = new ConsentSealer(TTL);
    const { req, csrf } = sealer.seal(PARAMS, T0);
    const edits = {
      redirect: edit(req, (p) => (p.p.redirect_uri = "https://evil.example/cb")),
      client: edit(req, (p) => (p.p.client_id = "hmcp_client_evil")),
      challenge: edit(req, (p) => (p.p.code_challenge = "A".repeat(43))),
      deadline: edit(req, (p) => (p.exp = T0 + 365 * 24 * 3_600_000)),
      added: edit(req, (p) => (p.p.resource = "https://evil.example/mcp")),
    };
    for (const [what, tampered] of Object.entries(edits)) {
      expect({ what, opened: sealer.open(tampered, csrf, T0) }).toEqual({ what, opened: null });
    }
  });

  test("refuses an edited, truncated, empty or swapped token", () => {
    const sealer = new ConsentSealer(TTL);
    const { req, csrf } = sealer.seal(PARAMS, T0);
    const other = sealer.seal({ ...PARAMS, state: "other" }, T0);
    const flipped = `${csrf.slice(0, -1)}${csrf.endsWith("A") ? "B" : "A"}`;
    for (const token of [flipped, csrf.slice(0, -1), "", `${csrf}=`, other.csrf, req]) {
      expect(sealer.open(req, token, T0)).toBeNull();
    }
    expect(sealer.open(other.req, other.csrf, T0)).toEqual({ ...PARAMS, state: "other" });
  });

  test("a form sealed by another process (or before a restart) does not open", () => {
    const before = new ConsentSealer(TTL);
    const after = new ConsentSealer(TTL);
    const { req, csrf } = before.seal(PARAMS, T0);
    expect(after.open(req, csrf, T0)).toBeNull();
  });

  test("two seals of the same request differ only by deadline, and each opens", () => {
    const sealer = new ConsentSealer(TTL);
    const first = sealer.seal(PARAMS, T0);
    const second = sealer.seal(PARAMS, T0 + 1);
    expect(second.csrf).not.toBe(first.csrf);
    expect(sealer.open(first.req, first.csrf, T0)).toEqual(PARAMS);
    expect(sealer.open(second.req, second.csrf, T0)).toEqual(PARAMS);
  });

  test("garbage in the request field is refused, not thrown", () => {
    const sealer = new ConsentSealer(TTL);
    for (const req of [
      "",
      "not base64 !!",
      Buffer.from("{not json").toString("base64url"),
      Buffer.from('{"p":{}}').toString("base64url"),
    ]) {
      expect(() => sealer.open(req, "x", T0)).not.toThrow();
      expect(sealer.open(req, "x", T0)).toBeNull();
    }
  });

  test("the token is not the request's plain hash: it cannot be computed without the key", () => {
    const sealer = new ConsentSealer(TTL);
    const { req, csrf } = sealer.seal(PARAMS, T0);
    expect(csrf).not.toBe(createHash("sha256").update(req, "utf8").digest("base64url"));
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
