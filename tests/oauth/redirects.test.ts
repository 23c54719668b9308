// Redirect-URI rules beyond the matcher's main cases: scheme spellings, length and character limits, spelling tricks, and what the consent page shows and allows.
import { describe, expect, test } from "bun:test";
import {
  CLAUDE_CALLBACKS,
  describeRedirect,
  formActionSource,
  matchRegisteredRedirect,
  staticClientAllows,
} from "../../src/oauth/redirects.ts";
import { parseRedirectUri } from "../../src/web/redirect-uri.ts";

const POLICY = { schemes: ["cursor"], uris: ["https://app.example/oauth/done"] };
const refused = (uri: string): { uri: string; ok: boolean } => ({ uri: uri.slice(0, 80), ok: parseRedirectUri(uri).ok });

describe("parseRedirectUri", () => {
  test("every executable or local scheme is refused however it is cased, and the reason names the scheme", () => {
    for (const uri of [
      "javascript:alert(1)",
      "JAVASCRIPT:alert(1)",
      "jAvAsCrIpT://claude.ai/%0aalert(1)",
      "Data:text/html;base64,PHNjcmlwdD4=",
      "FILE:///etc/passwd",
      "VBScript:msgbox(1)",
      "BLOB:https://claude.ai/0b7e",
      "about:blank",
      "filesystem:https://claude.ai/temporary/x",
      "view-source:https://claude.ai/",
      "ws://127.0.0.1:1/cb",
      "wss://app.example/cb",
      "ftp://app.example/cb",
    ]) {
      const parsed = parseRedirectUri(uri);
      expect({ uri, ok: parsed.ok }).toEqual({ uri, ok: false });
      if (!parsed.ok) expect(parsed.reason).toContain(`${uri.slice(0, uri.indexOf(":")).toLowerCase()}:`);
    }
  });

  test("whitespace and control characters anywhere are refused, including ones URL parsing would silently strip", () => {
    for (const uri of [
      " https://app.example/cb",
      "https://app.example/cb ",
      "https://app.example/c b",
      "java\tscript:alert(1)",
      "https://app.example/\ncb",
      "https://app.example/\rcb",
      "https://app.example/\u0000cb",
      "https://app.example/\u001bcb",
      "https://app.example/\u007fcb",
      "\u00a0https://app.example/cb",
      "\ufeffjavascript:alert(1)",
      "https://app.example/\u2028cb",
    ]) {
      expect(refused(uri)).toEqual({ uri: uri.slice(0, 80), ok: false });
    }
  });

  test("length is capped at 2048 characters exactly", () => {
    const prefix = "https://a.example/";
    expect(parseRedirectUri(prefix + "x".repeat(2048 - prefix.length)).ok).toBe(true);
    expect(parseRedirectUri(prefix + "x".repeat(2049 - prefix.length)).ok).toBe(false);
  });

  test("an empty fragment is still a fragment, and a '#' inside a query is refused too", () => {
    expect(parseRedirectUri("https://app.example/cb#").ok).toBe(false);
    expect(parseRedirectUri("https://app.example/cb?x=#y").ok).toBe(false);
    expect(parseRedirectUri("cursor://cb#x").ok).toBe(false);
    // An encoded '#' is just a character of the query.
    expect(parseRedirectUri("https://app.example/cb?x=%23").ok).toBe(true);
  });

  test("user information is refused in every scheme that can carry it, even an empty password", () => {
    for (const uri of [
      "https://claude.ai:@evil.example/cb",
      "https://user:pass@app.example/cb",
      "http://user@127.0.0.1:8080/cb",
      "http://a@localhost/cb",
      "cursor://user@host/cb",
    ]) {
      expect(refused(uri)).toEqual({ uri, ok: false });
    }
  });

  test("plain http only reaches the three loopback spellings; lookalikes and other local addresses are refused", () => {
    for (const uri of [
      "http://127.0.0.1.nip.io/cb",
      "http://localhost.localdomain/cb",
      "http://localhost./cb",
      "http://127.0.0.1@evil.example/cb",
      "http://evil.example#@127.0.0.1/cb",
      "http://[::ffff:127.0.0.1]/cb",
      "http://[::]/cb",
      "http://10.0.0.1/cb",
      "http://192.168.1.1/cb",
      "http://169.254.169.254/latest/meta-data",
      "http://[fe80::1]/cb",
    ]) {
      expect(refused(uri)).toEqual({ uri, ok: false });
    }
    for (const uri of ["http://LOCALHOST:8080/cb", "http://127.0.0.1/", "http://[::1]/cb"]) {
      expect({ uri, parsed: parseRedirectUri(uri) }).toMatchObject({ uri, parsed: { ok: true, kind: "loopback" } });
    }
  });

  test("https needs a host; private-use schemes need a well-formed scheme name", () => {
    expect(parseRedirectUri("https://").ok).toBe(false);
    expect(parseRedirectUri("1app://cb").ok).toBe(false);
    expect(parseRedirectUri("-app://cb").ok).toBe(false);
    expect(parseRedirectUri("app_x://cb").ok).toBe(false);
    expect(parseRedirectUri("com.example.app+x-y://cb")).toMatchObject({ ok: true, kind: "custom" });
    expect(parseRedirectUri("Cursor://cb")).toMatchObject({ ok: true, kind: "custom" });
  });
});

describe("matchRegisteredRedirect", () => {
  test("loopback matches on any port only for the same loopback spelling", () => {
    expect(matchRegisteredRedirect("http://localhost:5000/cb", ["http://localhost/cb"])).toBe(true);
    expect(matchRegisteredRedirect("http://[::1]:5000/cb", ["http://[::1]:1/cb"])).toBe(true);
    expect(matchRegisteredRedirect("http://127.0.0.1:5000/cb", ["http://localhost:5000/cb"])).toBe(false);
    expect(matchRegisteredRedirect("http://localhost:5000/cb", ["http://127.0.0.1:5000/cb"])).toBe(false);
    expect(matchRegisteredRedirect("http://[::1]:5000/cb", ["http://127.0.0.1:5000/cb"])).toBe(false);
  });

  test("loopback matching still compares path and query exactly", () => {
    const registered = ["http://127.0.0.1/callback?app=1"];
    expect(matchRegisteredRedirect("http://127.0.0.1:9/callback?app=1", registered)).toBe(true);
    for (const uri of [
      "http://127.0.0.1:9/callback",
      "http://127.0.0.1:9/callback/?app=1",
      "http://127.0.0.1:9/Callback?app=1",
      "http://127.0.0.1:9/callback?app=2",
      "http://127.0.0.1:9/callback?app=1&x=1",
      "http://127.0.0.1:9/c%61llback?app=1",
    ]) {
      expect({ uri, match: matchRegisteredRedirect(uri, registered) }).toEqual({ uri, match: false });
    }
  });

  test("the any-port rule is for http loopback only, never https or private-use schemes", () => {
    expect(matchRegisteredRedirect("https://127.0.0.1:9/cb", ["https://127.0.0.1:8/cb"])).toBe(false);
    expect(matchRegisteredRedirect("https://app.example:8443/cb", ["https://app.example/cb"])).toBe(false);
    expect(matchRegisteredRedirect("cursor://host:9/cb", ["cursor://host:8/cb"])).toBe(false);
  });

  test("byte-for-byte: spellings a URL parser would consider equal still differ", () => {
    const registered = ["https://app.example/cb"];
    for (const uri of [
      "https://APP.example/cb",
      "https://app.example:443/cb",
      "https://app.example/./cb",
      "https://app.example/x/../cb",
      "https://app.example/%63b",
      "https:app.example/cb",
      "https://app.example/cb?",
    ]) {
      expect({ uri, match: matchRegisteredRedirect(uri, registered) }).toEqual({ uri, match: false });
    }
  });

  test("a dangerous URI never matches, even when it is (somehow) registered", () => {
    expect(matchRegisteredRedirect("javascript:alert(1)", ["javascript:alert(1)"])).toBe(false);
    expect(matchRegisteredRedirect("http://evil.example/cb", ["http://evil.example/cb"])).toBe(false);
    expect(matchRegisteredRedirect("https://app.example/cb#x", ["https://app.example/cb#x"])).toBe(false);
  });

  test("nothing matches an empty registration list", () => {
    expect(matchRegisteredRedirect("http://127.0.0.1:1/cb", [])).toBe(false);
    expect(matchRegisteredRedirect("https://app.example/cb", [])).toBe(false);
  });
});

describe("staticClientAllows", () => {
  test("Claude's callbacks are matched as exact strings, not as parsed URLs", () => {
    for (const uri of [
      "https://claude.ai/api/mcp/auth_callback/../x",
      "https://claude.ai/api/mcp/auth_callback/./",
      "https://claude.ai/api/mcp/x/../auth_callback",
      "https://CLAUDE.AI/api/mcp/auth_callback",
      "https://claude.ai:443/api/mcp/auth_callback",
      "https:claude.ai/api/mcp/auth_callback",
      "https://claude.ai/api/mcp/auth_callback?",
      "https://claude.ai/api/mcp/auth_callback?code=x",
      "https://claude.ai/API/mcp/auth_callback",
      "https://claude.ai/",
      "https://evil.claude.ai/api/mcp/auth_callback",
      "https://claude.ai.evil.example/api/mcp/auth_callback",
      "http://claude.ai/api/mcp/auth_callback",
      "https://claude.com/api/mcp/auth_callback/",
    ]) {
      expect({ uri, allowed: staticClientAllows(uri, POLICY) }).toEqual({ uri, allowed: false });
    }
    expect(CLAUDE_CALLBACKS).toEqual(["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"]);
  });

  test("loopback is allowed on every spelling, port and path, but not lookalikes", () => {
    for (const uri of ["http://127.0.0.1:65535/any/path?x=1", "http://[::1]:3000/", "http://localhost/cb"]) {
      expect({ uri, allowed: staticClientAllows(uri, POLICY) }).toEqual({ uri, allowed: true });
    }
    for (const uri of ["http://localhost.evil.example/cb", "http://127.0.0.1.evil.example/cb", "http://0.0.0.0:3000/cb"]) {
      expect({ uri, allowed: staticClientAllows(uri, POLICY) }).toEqual({ uri, allowed: false });
    }
  });

  test("configured schemes match whatever the case, and only those schemes", () => {
    expect(staticClientAllows("CURSOR://anysphere.cursor-mcp/oauth/callback", POLICY)).toBe(true);
    expect(staticClientAllows("cursor:callback", POLICY)).toBe(true);
    expect(staticClientAllows("cursorx://callback", POLICY)).toBe(false);
    expect(staticClientAllows("claude://callback", POLICY)).toBe(false);
    expect(staticClientAllows("cursor://callback", { schemes: [], uris: [] })).toBe(false);
  });

  test("the configuration cannot re-open what no client may use", () => {
    const reckless = {
      schemes: ["javascript", "data", "file", "http", "https"],
      uris: ["http://evil.example/cb", "https://app.example/cb#frag", "https://u@app.example/cb"],
    };
    for (const uri of [
      "javascript:alert(1)",
      "data:text/html,x",
      "file:///etc/passwd",
      "http://evil.example/cb",
      "https://app.example/cb#frag",
      "https://u@app.example/cb",
      "https://other.example/cb",
    ]) {
      expect({ uri, allowed: staticClientAllows(uri, reckless) }).toEqual({ uri, allowed: false });
    }
  });

  test("configured exact URIs match byte for byte", () => {
    expect(staticClientAllows("https://app.example/oauth/done", POLICY)).toBe(true);
    for (const uri of [
      "https://app.example/oauth/done?x=1",
      "https://app.example/oauth/Done",
      "https://APP.example/oauth/done",
      "https://app.example/oauth/done/../done",
    ]) {
      expect({ uri, allowed: staticClientAllows(uri, POLICY) }).toEqual({ uri, allowed: false });
    }
  });
});

describe("describeRedirect", () => {
  test("names the host for https, the app for loopback and private-use schemes", () => {
    expect(describeRedirect("https://claude.ai/api/mcp/auth_callback")).toBe("claude.ai");
    expect(describeRedirect("https://app.example:8443/cb")).toBe("app.example:8443");
    expect(describeRedirect("http://127.0.0.1:33418/cb")).toBe("an app on this computer (127.0.0.1:33418)");
    expect(describeRedirect("http://[::1]/cb")).toBe("an app on this computer ([::1])");
    expect(describeRedirect("cursor://anysphere.cursor-mcp/oauth/callback")).toBe("the app that opens cursor:// links");
  });

  test("shows the real host, not the decoy, and punycode rather than lookalike letters", () => {
    expect(describeRedirect("https://claude.ai.evil.example/cb")).toBe("claude.ai.evil.example");
    // "cl\u0430ude.ai" has a Cyrillic "а" where the real name has a Latin "a".
    expect(describeRedirect("https://cl\u0430ude.ai/cb")).toBe("xn--clude-5ve.ai");
  });

  test("a URI that would be refused is shown as given", () => {
    expect(describeRedirect("javascript:alert(1)")).toBe("javascript:alert(1)");
  });
});

describe("formActionSource", () => {
  test("is the origin for https and loopback, the scheme for private-use apps", () => {
    expect(formActionSource("https://claude.ai/api/mcp/auth_callback")).toBe("https://claude.ai");
    expect(formActionSource("https://app.example:8443/a/b?c=d")).toBe("https://app.example:8443");
    expect(formActionSource("http://localhost:33418/cb")).toBe("http://localhost:33418");
    expect(formActionSource("http://[::1]:9/cb")).toBe("http://[::1]:9");
    expect(formActionSource("Cursor://anysphere.cursor-mcp/oauth/callback")).toBe("cursor:");
  });

  test("never yields a source for a refused URI (so the page's CSP is not widened to it)", () => {
    for (const uri of [
      "javascript:alert(1)",
      "data:text/html,x",
      "http://evil.example/cb",
      "https://u@app.example/cb",
      "https://app.example/cb#x",
      "",
      "not a uri",
    ]) {
      expect({ uri, source: formActionSource(uri) }).toEqual({ uri, source: null });
    }
  });

  test("a source never contains CSP separators from the path or query", () => {
    const source = formActionSource("https://app.example/a;b c?x=y;script-src%20*");
    expect(source).toBeNull();
    expect(formActionSource("https://app.example/a;b?x=y;z")).toBe("https://app.example");
  });
});
