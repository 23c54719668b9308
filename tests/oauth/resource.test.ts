// RFC 8707 resource indicators: spellings of our MCP endpoint that name the same audience, and near misses that do not.
import { describe, expect, test } from "bun:test";
import { isOurResource } from "../../src/oauth/resource.ts";

const OURS = "https://hermes.example.com/mcp";

describe("isOurResource", () => {
  test("the same endpoint spelled with a default port, scheme case, repeated trailing slashes or resolved dot segments is ours", () => {
    for (const spelling of [
      "https://hermes.example.com:443/mcp",
      "HTTPS://hermes.example.com/mcp",
      "https://hermes.example.com/mcp//",
      "https://hermes.example.com/x/../mcp",
    ]) {
      expect({ spelling, ours: isOurResource(spelling, OURS) }).toEqual({ spelling, ours: true });
    }
  });

  test("a configured resource with a trailing slash accepts the spelling without one", () => {
    expect(isOurResource(OURS, `${OURS}/`)).toBe(true);
  });

  test("another port, path case, encoded slash, sub-path, trailing-dot host or relative reference is not ours", () => {
    for (const other of [
      "https://hermes.example.com:8443/mcp",
      "https://hermes.example.com/MCP",
      "https://hermes.example.com/mcp%2F",
      "https://hermes.example.com/mcp/sub",
      "https://hermes.example.com./mcp",
      "https://evil.example/https://hermes.example.com/mcp",
      "/mcp",
      "",
    ]) {
      expect({ other, ours: isOurResource(other, OURS) }).toEqual({ other, ours: false });
    }
  });

  test("an http resource is ours only when the server itself is served over http", () => {
    expect(isOurResource("http://127.0.0.1:8765/mcp", "http://127.0.0.1:8765/mcp")).toBe(true);
    expect(isOurResource("http://127.0.0.1:8765/mcp", "https://127.0.0.1:8765/mcp")).toBe(false);
    expect(isOurResource("http://localhost:8765/mcp", "http://127.0.0.1:8765/mcp")).toBe(false);
  });
});
