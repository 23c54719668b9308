import { describe, expect, test } from "bun:test";
import { hostnameOf, isAllowedHost } from "../../src/http/guards.ts";

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

describe("isAllowedHost", () => {
  test("loopback names always, others only when listed", () => {
    expect(isAllowedHost("localhost", [])).toBe(true);
    expect(isAllowedHost("127.0.0.5", [])).toBe(true);
    expect(isAllowedHost("[::1]", [])).toBe(true);
    expect(isAllowedHost("hermes.example.com", ["hermes.example.com"])).toBe(true);
    expect(isAllowedHost("evil.example.com", ["hermes.example.com"])).toBe(false);
    expect(isAllowedHost("localhost.evil.com", [])).toBe(false);
  });
});
