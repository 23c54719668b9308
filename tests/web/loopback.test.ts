// The one loopback list: the names, the 127.0.0.0/8 test, and that each caller keeps its own rule on top of them.
import { describe, expect, test } from "bun:test";
import { isLoopbackHost as configLoopback } from "../../src/config/schema.ts";
import { isAllowedHost } from "../../src/http/guards.ts";
import { isLoopbackRedirect } from "../../src/web/redirect-uri.ts";
import { isLoopbackHost, isLoopbackIpv4, isLoopbackName } from "../../src/web/loopback.ts";

describe("web/loopback", () => {
  test("names: localhost, 127.0.0.1, ::1 with or without brackets, any case; nothing else", () => {
    for (const host of ["localhost", "LocalHost", "127.0.0.1", "[::1]", "::1"]) expect(isLoopbackName(host)).toBe(true);
    for (const host of ["127.0.0.2", "localhost.evil.com", "0.0.0.0", "[::2]", ""]) expect(isLoopbackName(host)).toBe(false);
  });

  test("127.x.x.x: dotted quads in 127/8 only", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "127.255.255.255"]) expect(isLoopbackIpv4(host)).toBe(true);
    for (const host of ["128.0.0.1", "127.0.0", "127.0.0.1.evil.com", "x127.0.0.1"]) expect(isLoopbackIpv4(host)).toBe(false);
    expect(isLoopbackHost("127.9.9.9")).toBe(true);
    expect(isLoopbackHost("localhost")).toBe(true);
  });

  test("the three callers use it with their own semantics", () => {
    // Config (BIND_HOST, issuer) and the Host guard: names and all of 127/8.
    expect(configLoopback("::1")).toBe(true);
    expect(configLoopback("127.0.0.9")).toBe(true);
    expect(isAllowedHost("127.0.0.9", [])).toBe(true);
    expect(isAllowedHost("[::1]", [])).toBe(true);
    // Redirect URIs: the names only (a native app listens on 127.0.0.1, [::1] or localhost).
    expect(isLoopbackRedirect(new URL("http://[::1]:5000/cb"))).toBe(true);
    expect(isLoopbackRedirect(new URL("http://LOCALHOST:5000/cb"))).toBe(true);
    expect(isLoopbackRedirect(new URL("http://127.0.0.9:5000/cb"))).toBe(false);
    expect(isLoopbackRedirect(new URL("https://127.0.0.1/cb"))).toBe(false);
  });
});
