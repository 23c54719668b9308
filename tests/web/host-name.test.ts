// Host names as the Host guard compares them: from a Host header, and from each MCP_ALLOWED_HOSTS entry people write.
import { describe, expect, test } from "bun:test";
import { allowedHostOf, hostnameOf } from "../../src/web/host-name.ts";

describe("hostnameOf", () => {
  test.each([
    ["example.com", "example.com"],
    ["Example.COM:8443", "example.com"],
    ["127.0.0.1:8765", "127.0.0.1"],
    ["[::1]:8765", "[::1]"],
    ["", null],
    ["evil.com/path", null],
    ["a b", null],
  ])("%s → %s", (header, expected) => {
    expect(hostnameOf(header)).toBe(expected);
  });
});

describe("allowedHostOf: each entry as the Host header that names it will read", () => {
  test.each([
    ["hermes.example.com", "hermes.example.com"],
    [" Hermes.Example.com:443 ", "hermes.example.com"],
    // The Python SDK's any-port form, which users of the original may carry over.
    ["hermes.example.com:*", "hermes.example.com"],
    ["localhost:*", "localhost"],
    ["2001:db8::1", "[2001:db8::1]"],
    ["[2001:db8::1]:8443", "[2001:db8::1]"],
    // Browsers and tunnels send a non-ASCII name as punycode.
    ["bücher.example", "xn--bcher-kva.example"],
  ])("%s → %s", (entry, host) => {
    expect(allowedHostOf(entry)).toEqual({ host });
  });

  test("a URL is read as its host (as written it would never match a Host header), with a note saying what to write", () => {
    expect(allowedHostOf("https://Hermes.Example.com:443/mcp")).toEqual({
      host: "hermes.example.com",
      note: 'takes host names, not URLs: read "https://Hermes.Example.com:443/mcp" as hermes.example.com (write hermes.example.com)',
    });
    expect(allowedHostOf("hermes.example.com/mcp")).toEqual({
      host: "hermes.example.com",
      note: 'takes host names, not URLs: read "hermes.example.com/mcp" as hermes.example.com (write hermes.example.com)',
    });
    expect(allowedHostOf("file:///etc/hosts")).toEqual({ problem: 'takes host names, not URLs: "file:///etc/hosts" names none' });
  });

  test("wildcards and things that are not host names are refused, each saying why", () => {
    for (const entry of ["*", "*.example.com"]) expect(allowedHostOf(entry)).toEqual({ problem: expect.stringContaining("not wildcards") });
    for (const entry of ["bad host", ":8080", "a_b.example.com"]) {
      expect(allowedHostOf(entry)).toEqual({ problem: expect.stringContaining(`"${entry}" is not a host name`) });
    }
  });
});
