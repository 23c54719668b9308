// The one redirect-URI matcher: what no client may use, exact matching with loopback on any port, and the static client's allow-list.
import { describe, expect, test } from "bun:test";
import { CLAUDE_CALLBACKS, matchRegisteredRedirect, staticClientAllows } from "../../src/oauth/redirects.ts";
import { parseRedirectUri } from "../../src/web/redirect-uri.ts";
import { isOurResource } from "../../src/oauth/resource.ts";

const POLICY = { schemes: ["claude", "claudeai", "cursor"], uris: ["https://app.example/oauth/done"] };

describe("parseRedirectUri", () => {
  test("dangerous schemes, fragments, user-info, control characters and non-loopback http are refused for everyone", () => {
    for (const uri of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "file:///etc/passwd",
      "vbscript:msgbox",
      "blob:https://claude.ai/x",
      "https://claude.ai/api/mcp/auth_callback#frag",
      "https://claude.ai@evil.example/cb",
      "https://evil.example/cb\n",
      "http://evil.example/cb",
      "http://127.0.0.1.evil.example/cb",
      "http://localhost.evil.example/cb",
      "http://0.0.0.0:8080/cb",
      "/relative/path",
      "",
      `https://a.example/${"x".repeat(2100)}`,
    ]) {
      expect({ uri: uri.slice(0, 60), ok: parseRedirectUri(uri).ok }).toEqual({ uri: uri.slice(0, 60), ok: false });
    }
  });

  test("https, loopback http and private-use schemes are accepted, and say which they are", () => {
    expect(parseRedirectUri("https://claude.ai/api/mcp/auth_callback")).toMatchObject({ ok: true, kind: "https" });
    expect(parseRedirectUri("http://127.0.0.1:33418/")).toMatchObject({ ok: true, kind: "loopback" });
    expect(parseRedirectUri("http://[::1]:9000/cb")).toMatchObject({ ok: true, kind: "loopback" });
    expect(parseRedirectUri("http://localhost:8787/callback")).toMatchObject({ ok: true, kind: "loopback" });
    expect(parseRedirectUri("cursor://anysphere.cursor-mcp/oauth/callback")).toMatchObject({ ok: true, kind: "custom" });
  });
});

describe("matchRegisteredRedirect", () => {
  const registered = ["https://app.example/cb", "http://127.0.0.1:1234/callback", "cursor://anysphere.cursor-mcp/oauth/callback"];

  test("a registered URI matches byte for byte, and loopback on any port with the same host, path and query", () => {
    expect(matchRegisteredRedirect("https://app.example/cb", registered)).toBe(true);
    expect(matchRegisteredRedirect("cursor://anysphere.cursor-mcp/oauth/callback", registered)).toBe(true);
    expect(matchRegisteredRedirect("http://127.0.0.1:54321/callback", registered)).toBe(true);
    expect(matchRegisteredRedirect("http://127.0.0.1/callback", registered)).toBe(true);
  });

  test("anything else does not: other paths, trailing slashes, case, query, host spelling, scheme", () => {
    for (const uri of [
      "https://app.example/cb/",
      "https://app.example/CB",
      "https://app.example/cb?x=1",
      "https://APP.example.evil/cb",
      "http://app.example/cb",
      "http://127.0.0.1:54321/other",
      "http://127.0.0.1:54321/callback?x=1",
      "http://localhost:1234/callback",
      "https://127.0.0.1:1234/callback",
      "cursor://anysphere.cursor-mcp/oauth/callback/../x",
    ]) {
      expect({ uri, match: matchRegisteredRedirect(uri, registered) }).toEqual({ uri, match: false });
    }
  });
});

describe("staticClientAllows", () => {
  test("Claude's two callbacks exactly, loopback on any port and path, configured schemes and URIs", () => {
    for (const uri of [
      ...CLAUDE_CALLBACKS,
      "http://localhost:40000/callback",
      "http://127.0.0.1:1/x",
      "claude://callback",
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://app.example/oauth/done",
    ]) {
      expect({ uri, allowed: staticClientAllows(uri, POLICY) }).toEqual({ uri, allowed: true });
    }
  });

  test("no other https URL, not even on Claude's hosts: the original's open redirector stays closed", () => {
    for (const uri of [
      "https://claude.ai/api/mcp/auth_callback/",
      "https://claude.ai/api/mcp/auth_callback?next=https://evil.example",
      "https://claude.ai/api/mcp/other",
      "https://evil.claude.ai/api/mcp/auth_callback",
      "https://claude.ai.evil.example/api/mcp/auth_callback",
      "https://evil.example/cb",
      "vscode://callback",
      "https://app.example/oauth/done/",
      "javascript://claude.ai/api/mcp/auth_callback",
    ]) {
      expect({ uri, allowed: staticClientAllows(uri, POLICY) }).toEqual({ uri, allowed: false });
    }
  });
});

describe("isOurResource (RFC 8707)", () => {
  const ours = "https://hermes.example.com/mcp";
  test("our MCP endpoint, with a trailing slash or another host case, is ours; nothing else is", () => {
    expect(isOurResource(ours, ours)).toBe(true);
    expect(isOurResource("https://hermes.example.com/mcp/", ours)).toBe(true);
    expect(isOurResource("https://HERMES.example.com/mcp", ours)).toBe(true);
    for (const other of [
      "https://hermes.example.com/",
      "https://hermes.example.com/mcp2",
      "https://other.example/mcp",
      "http://hermes.example.com/mcp",
      "https://hermes.example.com/mcp?x=1",
      "https://u:p@hermes.example.com/mcp",
      "not a url",
    ]) {
      expect({ other, ours: isOurResource(other, ours) }).toEqual({ other, ours: false });
    }
  });
});
