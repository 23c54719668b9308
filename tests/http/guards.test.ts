import { describe, expect, test } from "bun:test";
import { isAllowedHost } from "../../src/http/guards.ts";

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
