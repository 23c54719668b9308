// Client ID Metadata Document rules that need no network: which client_ids are URLs, which URLs are acceptable, cache lifetimes, and display-name cleaning.
import { describe, expect, test } from "bun:test";
import { cacheLifetimeMs, checkClientIdUrl, cleanName, isMetadataClientId } from "../../src/oauth/cimd.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe("isMetadataClientId", () => {
  test("https URLs name metadata documents; http only behind the test-only switch; registered ids never", () => {
    expect(isMetadataClientId("https://app.example/client.json", false)).toBe(true);
    expect(isMetadataClientId("http://127.0.0.1:3000/client.json", false)).toBe(false);
    expect(isMetadataClientId("http://127.0.0.1:3000/client.json", true)).toBe(true);
    expect(isMetadataClientId("hmcp_client_abc", true)).toBe(false);
    expect(isMetadataClientId("https:app.example/client.json", false)).toBe(false);
  });
});

describe("checkClientIdUrl", () => {
  test("an https URL with a path, in normal form, is accepted (a query is allowed)", () => {
    for (const id of ["https://app.example/client.json", "https://app.example:8443/oauth/client", "https://app.example/c?v=2"]) {
      const checked = checkClientIdUrl(id, false);
      expect({ id, ok: checked.ok }).toEqual({ id, ok: true });
      if (checked.ok) expect(checked.url.href).toBe(id);
    }
  });

  test("refuses non-https, fragments (even empty), user information and a missing path", () => {
    for (const [id, reason] of [
      ["http://app.example/client.json", "https"],
      ["ftp://app.example/client.json", "https"],
      ["javascript:alert(1)", "https"],
      ["https://app.example/client.json#x", "fragment"],
      ["https://app.example/client.json#", "fragment"],
      ["https://user@app.example/client.json", "user information"],
      ["https://user:pw@app.example/client.json", "user information"],
      ["https://:pw@app.example/client.json", "user information"],
      ["https://app.example/", "path"],
      ["https://app.example", "path"],
      ["https://app.example?x=1", "path"],
      ["not a url", "not a valid URL"],
      ["", "not a valid URL"],
    ] as const) {
      const checked = checkClientIdUrl(id, false);
      expect({ id, reason: checked.ok ? "accepted" : checked.reason }).toEqual({ id, reason: expect.stringContaining(reason) });
    }
  });

  test("refuses any spelling that is not already normalised (the document's client_id is compared byte for byte)", () => {
    for (const id of [
      "https://APP.example/client.json",
      "HTTPS://app.example/client.json",
      "https://app.example:443/client.json",
      "https://app.example/a/../client.json",
      "https://app.example/./client.json",
      "https://app.example/%2e%2e/client.json",
      "https://app.example/a b",
      "https://app.example\\client.json",
      "https://exämple.com/client.json",
    ]) {
      const checked = checkClientIdUrl(id, false);
      expect({ id, reason: checked.ok ? "accepted" : checked.reason }).toEqual({ id, reason: expect.stringContaining("normalised") });
    }
  });

  test("the test-only switch admits http on loopback only, never on other hosts", () => {
    expect(checkClientIdUrl("http://127.0.0.1:3000/client.json", true).ok).toBe(true);
    expect(checkClientIdUrl("http://localhost:3000/client.json", true).ok).toBe(true);
    expect(checkClientIdUrl("http://[::1]:3000/client.json", true).ok).toBe(true);
    for (const id of ["http://10.0.0.1/client.json", "http://app.example/client.json", "http://127.0.0.1.evil.example/client.json"]) {
      expect({ id, ok: checkClientIdUrl(id, true).ok }).toEqual({ id, ok: false });
    }
    expect(checkClientIdUrl("http://127.0.0.1:3000/client.json", false).ok).toBe(false);
  });
});

describe("cacheLifetimeMs", () => {
  test("one hour when the server says nothing usable", () => {
    for (const header of [null, "", "public", "max-age=abc", "s-maxage=900", "max-age="]) {
      expect({ header, ms: cacheLifetimeMs(header) }).toEqual({ header, ms: HOUR });
    }
  });

  test("max-age is honoured within five minutes and a day", () => {
    expect(cacheLifetimeMs("max-age=600")).toBe(10 * MINUTE);
    expect(cacheLifetimeMs("public, max-age=7200")).toBe(2 * HOUR);
    expect(cacheLifetimeMs('max-age="900"')).toBe(15 * MINUTE);
    expect(cacheLifetimeMs("MAX-AGE = 900")).toBe(15 * MINUTE);
    expect(cacheLifetimeMs("max-age=0")).toBe(5 * MINUTE);
    expect(cacheLifetimeMs("max-age=1")).toBe(5 * MINUTE);
    expect(cacheLifetimeMs("max-age=86401")).toBe(24 * HOUR);
    expect(cacheLifetimeMs("max-age=99999999999999999999999")).toBe(24 * HOUR);
  });

  test("no-store and no-cache get the minimum, whatever max-age says", () => {
    for (const header of ["no-store", "No-Cache", "private, no-cache, max-age=86400", "max-age=86400, no-store"]) {
      expect({ header, ms: cacheLifetimeMs(header) }).toEqual({ header, ms: 5 * MINUTE });
    }
  });
});

describe("cleanName", () => {
  test("absent, empty and blank names become undefined", () => {
    for (const name of [undefined, "", "   ", "\u00a0\t", "\u0000\u001f", "\u200b\u202e"]) {
      expect({ name, cleaned: cleanName(name) }).toEqual({ name, cleaned: undefined });
    }
  });

  test("control characters, zero-width characters and bidi overrides are removed; outer spaces trimmed", () => {
    expect(cleanName("  Claude  ")).toBe("Claude");
    expect(cleanName("Cur\u0000sor\u001b[31m")).toBe("Cursor[31m");
    expect(cleanName("a\u007fb\u0085c\u009fd")).toBe("abcd");
    expect(cleanName("Good\u200bApp")).toBe("GoodApp");
    expect(cleanName("Invoice\u202egpj.exe")).toBe("Invoicegpj.exe");
    expect(cleanName("\u2066Claude\u2069")).toBe("Claude");
    expect(cleanName("line\nbreak")).toBe("linebreak");
  });

  test("ordinary text, including non-Latin letters and emoji, is kept", () => {
    expect(cleanName("Zed — Éditeur 日本語 🚀")).toBe("Zed — Éditeur 日本語 🚀");
  });

  test("is cut to 100 characters", () => {
    expect(cleanName("a".repeat(150))).toBe("a".repeat(100));
    expect(cleanName(`  ${"b".repeat(100)}  `)).toBe("b".repeat(100));
  });
});
