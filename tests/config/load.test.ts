import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkIssuerUrl, loadConfig } from "../../src/config/load.ts";
import { configProblems } from "../support/config.ts";
import { tempHomes } from "../support/daemon.ts";

const home = tempHomes();

const problemsOf = (env: Record<string, string>): string[] =>
  configProblems(() => loadConfig({ env: { HOME: home(), ...env }, cwd: home() }));

describe("loadConfig", () => {
  test("with nothing set, serves on loopback with the original's defaults and says what to set for remote use", () => {
    const { config, notes, warnings } = loadConfig({ env: { HOME: home() }, cwd: home() });
    expect(config.bind).toEqual({ host: "127.0.0.1", port: 8765 });
    expect(config.issuerUrl).toBe("http://127.0.0.1:8765");
    expect(config.resourceUrl).toBe("http://127.0.0.1:8765/mcp");
    expect(config.gateway).toMatchObject({ url: "http://127.0.0.1:8642", model: "hermes-agent", apiKey: null, apiKeySource: "missing" });
    expect(config.timeouts.requestMs).toBe(300_000);
    expect(config.oauth.redirectSchemes).toEqual(["claude", "claudeai", "cursor"]);
    expect(config.log.level).toBe("INFO");
    expect(config.dbPath.endsWith(join(".local", "share", "hermes-mcp", "hermes-mcp.db"))).toBe(true);
    expect(notes.join("\n")).toContain("OAUTH_ISSUER_URL");
    expect(warnings.join("\n")).toContain("HERMES_API_KEY");
  });

  test("whole numbers are digits: hex, exponents, binary, signs and decimals are refused, not read as another number", () => {
    for (const raw of ["0x10", "1e3", "0b1111101000", "+8000", "8000.0", "8_000", "-1"])
      expect(problemsOf({ BIND_PORT: raw })).toEqual([`BIND_PORT must be a whole number from 0 to 65535 (got "${raw}")`]);
    expect(problemsOf({ HERMES_REQUEST_TIMEOUT_SECONDS: "0x10" })[0]).toContain("HERMES_REQUEST_TIMEOUT_SECONDS must be a whole number");
    expect(
      loadConfig({ env: { HOME: home(), BIND_PORT: " 9000 ", HERMES_REQUEST_TIMEOUT_SECONDS: "0120" }, cwd: home() }).config,
    ).toMatchObject({
      bind: { port: 9000 },
      timeouts: { requestMs: 120_000 },
    });
  });

  test("names every bad variable with its fix, in one go", () => {
    const problems = problemsOf({
      BIND_PORT: "http",
      OAUTH_CLIENT_SECRET: "short",
      LOG_LEVEL: "loud",
      OAUTH_ISSUER_URL: "http://example.com",
    });
    expect(problems.some((p) => p.includes("BIND_PORT") && p.includes("0 to 65535"))).toBe(true);
    expect(problems.some((p) => p.includes("OAUTH_CLIENT_SECRET") && p.includes("mint-client"))).toBe(true);
    expect(problems.some((p) => p.includes("LOG_LEVEL"))).toBe(true);
    expect(problems.some((p) => p.includes("OAUTH_ISSUER_URL") && p.includes("https"))).toBe(true);
  });

  test("LOG_LEVEL takes the names Python's logging and uvicorn gave the 0.4's levels, in any case", () => {
    const levelOf = (LOG_LEVEL: string) => loadConfig({ env: { HOME: home(), LOG_LEVEL }, cwd: home() }).config.log.level;
    expect([levelOf("debug"), levelOf("Warn"), levelOf("WARNING"), levelOf("critical"), levelOf("FATAL"), levelOf("trace")]).toEqual([
      "DEBUG",
      "WARNING",
      "WARNING",
      "ERROR",
      "ERROR",
      "DEBUG",
    ]);
    expect(problemsOf({ LOG_LEVEL: "verbose" })).toEqual(['LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR (got "verbose")']);
  });

  test("a client id needs its secret and the other way round", () => {
    expect(problemsOf({ OAUTH_CLIENT_ID: "abc" })[0]).toContain("OAUTH_CLIENT_SECRET is required");
    expect(problemsOf({ OAUTH_CLIENT_SECRET: "x".repeat(40) })[0]).toContain("OAUTH_CLIENT_ID is required");
  });

  test("trims the issuer's trailing slash and allows its host", () => {
    const { config } = loadConfig({
      env: { HOME: home(), OAUTH_ISSUER_URL: "https://Hermes.Example.com/", MCP_ALLOWED_HOSTS: "a.example.com:443, B.example.com" },
      cwd: home(),
    });
    expect(config.issuerUrl).toBe("https://Hermes.Example.com");
    expect(config.allowedHosts).toEqual(["a.example.com", "b.example.com", "hermes.example.com"]);
  });

  test("MCP_ALLOWED_HOSTS: the original's host:* form works; a URL is read as its host and a wildcard ignored, each with a warning", () => {
    const { config } = loadConfig({ env: { HOME: home(), MCP_ALLOWED_HOSTS: "hermes.example.com:*,localhost:*" }, cwd: home() });
    expect(config.allowedHosts).toEqual(["hermes.example.com", "localhost", "127.0.0.1"]);
    // An upgrade never stops on it: such entries matched nothing in the original either.
    const loaded = loadConfig({ env: { HOME: home(), MCP_ALLOWED_HOSTS: "https://a.example.com/, *, b.example.com" }, cwd: home() });
    expect(loaded.config.allowedHosts).toEqual(["a.example.com", "b.example.com", "127.0.0.1"]);
    expect(loaded.warnings).toEqual(
      expect.arrayContaining([
        'MCP_ALLOWED_HOSTS takes host names, not URLs: read "https://a.example.com/" as a.example.com (write a.example.com)',
        'MCP_ALLOWED_HOSTS takes host names, not wildcards ("*"): list each name clients use; that entry is ignored',
      ]),
    );
  });

  test("redirect schemes written as in a URI (cursor: or cursor://) mean the scheme; a non-scheme is refused", () => {
    const { config } = loadConfig({ env: { HOME: home(), OAUTH_ALLOWED_REDIRECT_SCHEMES: "Claude://, cursor:" }, cwd: home() });
    expect(config.oauth.redirectSchemes).toEqual(["claude", "cursor"]);
    expect(problemsOf({ OAUTH_ALLOWED_REDIRECT_SCHEMES: "claude, my app" })).toEqual([
      'OAUTH_ALLOWED_REDIRECT_SCHEMES lists scheme names such as claude or cursor; "my app" is not one',
    ]);
  });

  test("BIND_HOST: an address (IPv6 with or without brackets); a URL or host:port is refused with the settings to write", () => {
    const bind = (value: string) => loadConfig({ env: { HOME: home(), BIND_HOST: value }, cwd: home() }).config.bind.host;
    expect(["127.0.0.1", "::1", "[::1]", "0.0.0.0", "hermes.local"].map(bind)).toEqual([
      "127.0.0.1",
      "::1",
      "::1",
      "0.0.0.0",
      "hermes.local",
    ]);
    expect(problemsOf({ BIND_HOST: "127.0.0.1:8765" })).toEqual([
      "BIND_HOST takes an address without a port: set BIND_HOST=127.0.0.1 and BIND_PORT=8765",
    ]);
    expect(problemsOf({ BIND_HOST: "https://[::1]/" })).toEqual(["BIND_HOST takes an address, not a URL: write BIND_HOST=::1"]);
    expect(problemsOf({ BIND_HOST: "my laptop" })[0]).toContain("BIND_HOST takes an IP address or a host name of this machine");
  });

  test("with no issuer set, it is the loopback address the daemon listens on (::1 in brackets), else 127.0.0.1 as before", () => {
    const issuer = (bindHost: string) => loadConfig({ env: { HOME: home(), BIND_HOST: bindHost }, cwd: home() }).config.issuerUrl;
    expect(["::1", "127.0.0.2", "127.0.0.1", "localhost", "0.0.0.0", "::"].map(issuer)).toEqual([
      "http://[::1]:8765",
      "http://127.0.0.2:8765",
      "http://127.0.0.1:8765",
      "http://127.0.0.1:8765",
      "http://127.0.0.1:8765",
      "http://127.0.0.1:8765",
    ]);
  });

  test("an OAUTH_ALLOWED_REDIRECT_URIS entry no request could use is refused, saying why", () => {
    expect(problemsOf({ OAUTH_ALLOWED_REDIRECT_URIS: "https://app.example.com/cb, http://app.example.com/cb" })).toEqual([
      'OAUTH_ALLOWED_REDIRECT_URIS: "http://app.example.com/cb": http redirect URIs are allowed only on loopback (127.0.0.1, [::1], localhost); use https',
    ]);
    expect(problemsOf({ OAUTH_ALLOWED_REDIRECT_URIS: "https://app.example.com/cb#done" })[0]).toContain("must not contain a fragment");
    const { config } = loadConfig({ env: { HOME: home(), OAUTH_ALLOWED_REDIRECT_URIS: "https://app.example.com/cb" }, cwd: home() });
    expect(config.oauth.redirectUris).toEqual(["https://app.example.com/cb"]);
  });

  test("HERMES_MCP_DB_PATH: ~/ means the home folder; a relative path (a different file from each folder) is refused", () => {
    const h = home();
    expect(loadConfig({ env: { HOME: h, HERMES_MCP_DB_PATH: "~/hermes/db.sqlite" }, cwd: h }).config.dbPath).toBe(
      join(h, "hermes", "db.sqlite"),
    );
    expect(loadConfig({ env: { HOME: h, HERMES_MCP_DB_PATH: "/srv/hermes.db" }, cwd: h }).config.dbPath).toBe("/srv/hermes.db");
    expect(problemsOf({ HERMES_MCP_DB_PATH: "data/hermes.db" })).toEqual([
      'HERMES_MCP_DB_PATH must be an absolute path or start with ~/ (got "data/hermes.db"), so every command and the service use the same file',
    ]);
  });

  test("an issuer with a path is refused: the connector URL pasted as the issuer is named as such, with the origin to set", () => {
    expect(problemsOf({ OAUTH_ISSUER_URL: "https://hermes.example.com/mcp" })).toEqual([
      "OAUTH_ISSUER_URL is the connector URL (https://hermes.example.com/mcp); the issuer is its origin: set OAUTH_ISSUER_URL=https://hermes.example.com (clients still connect to https://hermes.example.com/mcp)",
    ]);
    expect(problemsOf({ OAUTH_ISSUER_URL: "https://hermes.example.com/hermes" })[0]).toContain(
      "OAUTH_ISSUER_URL must have no path: hermes-mcp serves at the root of its host — set OAUTH_ISSUER_URL=https://hermes.example.com",
    );
    expect(problemsOf({ OAUTH_ISSUER_URL: "https://hermes.example.com/" })).toEqual([]);
  });

  test("a HERMES_API_URL with credentials is refused without repeating them (they would reach every log line naming the gateway)", () => {
    const problems = problemsOf({ HERMES_API_URL: "http://user:s3cret@127.0.0.1:8642/v1" });
    expect(problems).toEqual([
      "HERMES_API_URL must not contain a user name or password (the gateway's key goes in HERMES_API_KEY): use http://127.0.0.1:8642/v1",
    ]);
    expect(problems.join("\n")).not.toContain("s3cret");
    // A wrong scheme as well: the refusal names the fix without repeating the password, nor does an unparsable URL's.
    const ftp = problemsOf({ HERMES_API_URL: "ftp://bob:hunter2@gw.example:8642" });
    expect(ftp).toEqual([
      "HERMES_API_URL must not contain a user name or password (the gateway's key goes in HERMES_API_KEY): use http://gw.example:8642",
    ]);
    const broken = problemsOf({ HERMES_API_URL: "http://bob:hunter2@gw example" });
    expect(broken).toEqual(['HERMES_API_URL must be an http(s) URL such as http://127.0.0.1:8642 (got "http://…@gw example")']);
    // A password holding "@" and a space: none of it is repeated.
    const atSign = problemsOf({ HERMES_API_URL: "http://bob:p@ss w@rd@gw example" });
    expect(atSign).toEqual(['HERMES_API_URL must be an http(s) URL such as http://127.0.0.1:8642 (got "http://…@gw example")']);
    // A password holding "/", and a URL with no "//" at all: neither is repeated either.
    for (const raw of ["http://bob:pa/ss@gw example", "bob:hunter2@gw.example:8642"]) {
      const refused = problemsOf({ HERMES_API_URL: raw }).join("\n");
      expect(refused).toContain("…@gw");
      for (const secret of ["pa/ss", "hunter2"]) expect(refused).not.toContain(secret);
    }
    // OAUTH_ISSUER_URL too, with a query (its refusal repeats the value) or unparsable.
    for (const raw of ["https://u:s3cret@hermes.example.com/?x=1", "u:s3cret@hermes example"]) {
      const refused = problemsOf({ OAUTH_ISSUER_URL: raw }).join("\n");
      expect(refused).toContain("OAUTH_ISSUER_URL");
      expect(refused).not.toContain("s3cret");
    }
    expect(problemsOf({ HERMES_API_URL: "gateway:8642" })).toEqual([
      'HERMES_API_URL must be an http(s) URL such as http://127.0.0.1:8642 (got "gateway:8642"): use http://gateway:8642',
    ]);
  });

  test("a gateway route pasted whole is cut off with the same warning; a query or fragment is refused; the URL is used as URL reads it", () => {
    const gatewayOf = (url: string) => loadConfig({ env: { HOME: home(), HERMES_API_URL: url }, cwd: home() });
    for (const route of ["/v1/chat/completions", "/V1/Models", "/v1/health", "/v1/responses"]) {
      const { config, warnings } = gatewayOf(`http://127.0.0.1:8642${route}`);
      expect(config.gateway.url).toBe("http://127.0.0.1:8642");
      expect(warnings).toContain(
        `HERMES_API_URL ends in ${route}, which hermes-mcp adds itself: using http://127.0.0.1:8642 (set HERMES_API_URL=http://127.0.0.1:8642)`,
      );
    }
    expect(gatewayOf("https://gw.example.com/hermes/v1/chat/completions").config.gateway.url).toBe("https://gw.example.com/hermes");
    // A proxy's prefix may end in a word the gateway also uses.
    expect(gatewayOf("https://gw.example.com/svc/health").config.gateway.url).toBe("https://gw.example.com/svc/health");
    expect(problemsOf({ HERMES_API_URL: "http://127.0.0.1:8642/?x=1" })).toEqual([
      "HERMES_API_URL must be the gateway's base URL, with no ?query or #fragment: use http://127.0.0.1:8642",
    ]);
    expect(problemsOf({ HERMES_API_URL: "http://127.0.0.1:8642#top" })[0]).toContain("no ?query or #fragment");
    // A trailing backslash was validated as a slash but sent as written (//v1/health); an upper-case host, a default port.
    expect(gatewayOf("http://127.0.0.1:8642\\").config.gateway.url).toBe("http://127.0.0.1:8642");
    expect(gatewayOf("HTTP://Gateway.LAN:80/Hermes/").config.gateway.url).toBe("http://gateway.lan/Hermes");
    expect(problemsOf({ HERMES_API_URL: "localhost:8642" })).toEqual([
      'HERMES_API_URL must be an http(s) URL such as http://127.0.0.1:8642 (got "localhost:8642"): use http://localhost:8642',
    ]);
  });

  test("an OpenAI-style HERMES_API_URL ending in /v1 is used without it, with a warning saying what to set", () => {
    const { config, warnings } = loadConfig({ env: { HOME: home(), HERMES_API_URL: "http://127.0.0.1:8642/v1/" }, cwd: home() });
    expect(config.gateway.url).toBe("http://127.0.0.1:8642");
    expect(warnings).toContain(
      "HERMES_API_URL ends in /v1, which hermes-mcp adds itself: using http://127.0.0.1:8642 (set HERMES_API_URL=http://127.0.0.1:8642)",
    );
    // A gateway behind a path prefix keeps it.
    expect(loadConfig({ env: { HOME: home(), HERMES_API_URL: "https://gw.example.com/hermes" }, cwd: home() }).config.gateway.url).toBe(
      "https://gw.example.com/hermes",
    );
  });

  test("refuses browser-dangerous redirect schemes", () => {
    expect(problemsOf({ OAUTH_ALLOWED_REDIRECT_SCHEMES: "cursor,javascript" })[0]).toContain("javascript");
    // The redirect parser's own list: a scheme every authorization request would refuse is refused here too.
    for (const scheme of ["ftp", "wss", "view-source", "filesystem"]) {
      expect(problemsOf({ OAUTH_ALLOWED_REDIRECT_SCHEMES: `cursor,${scheme}` })[0]).toContain(`remove ${scheme}`);
    }
  });

  test("reads API_SERVER_KEY from ~/.hermes/.env when HERMES_API_KEY is unset, and says so", () => {
    const h = home();
    mkdirSync(join(h, ".hermes"));
    writeFileSync(join(h, ".hermes", ".env"), "API_SERVER_KEY=from-hermes-env-0123456789\n");
    const { config, notes } = loadConfig({ env: { HOME: h }, cwd: h });
    expect(config.gateway.apiKey).toBe("from-hermes-env-0123456789");
    expect(config.gateway.apiKeySource).toBe("hermes-env");
    expect(notes.join("\n")).toContain("API_SERVER_KEY");
  });

  test("a gateway key no HTTP header can carry is refused at start, with where it came from and the fix", () => {
    const fromEnv = problemsOf({ HERMES_API_KEY: "abc\u0007def" });
    expect(fromEnv.some((p) => p.startsWith("HERMES_API_KEY holds a character") && p.includes("API_SERVER_KEY"))).toBe(true);
    expect(problemsOf({ HERMES_API_KEY: "key-\u20ac-0123456789" }).some((p) => p.includes("HERMES_API_KEY"))).toBe(true);
    const h = home();
    mkdirSync(join(h, ".hermes"));
    writeFileSync(join(h, ".hermes", ".env"), "API_SERVER_KEY=key\u0001with-control\n");
    const fromFile = configProblems(() => loadConfig({ env: { HOME: h }, cwd: h }));
    expect(fromFile.some((p) => p.startsWith(`API_SERVER_KEY in ${join(h, ".hermes", ".env")} holds a character`))).toBe(true);
    // The key's own file is not told to copy from itself: the fix is a new key, and the gateway restarted to use it.
    expect(fromFile.some((p) => p.includes("restart the Hermes gateway") && !p.includes("copy API_SERVER_KEY"))).toBe(true);
    // An ordinary key, with the symbols keys carry, is fine.
    expect(problemsOf({ HERMES_API_KEY: "sk-Abc_123.~+/=" })).toEqual([]);
  });

  test("real environment beats ./.env, which beats ~/.config/hermes-mcp/env", () => {
    const h = home();
    const cwd = home();
    mkdirSync(join(h, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(join(h, ".config", "hermes-mcp", "env"), "HERMES_MODEL=from-user-file\nBIND_PORT=9001\nLOG_LEVEL=debug\n");
    writeFileSync(join(cwd, ".env"), "HERMES_MODEL=from-cwd\nBIND_PORT=9002\n");
    const { config } = loadConfig({ env: { HOME: h, BIND_PORT: "9003" }, cwd });
    expect(config.gateway.model).toBe("from-cwd");
    expect(config.bind.port).toBe(9003);
    expect(config.log.level).toBe("DEBUG");
  });

  test("an empty variable in the environment over a file's value is said as what it does: it counts as unset", () => {
    const h = home();
    const userFile = join(h, ".config", "hermes-mcp", "env");
    mkdirSync(join(h, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(userFile, "HERMES_API_URL=http://10.0.0.5:8642\n");
    const { config, warnings } = loadConfig({ env: { HOME: h, HERMES_API_URL: "" }, cwd: home() });
    expect(config.gateway.url).toBe("http://127.0.0.1:8642");
    expect(warnings).toContain(
      `HERMES_API_URL is set but empty in the environment, which comes before ${userFile}: it counts as unset, so the value in ${userFile} is not used — unset HERMES_API_URL to use it`,
    );
    expect(warnings.join("\n")).not.toContain("the environment's value is used");
  });

  test("a setting overridden with a different value, or set twice in one file, is named (never its values)", () => {
    const h = home();
    const cwd = home();
    const userFile = join(h, ".config", "hermes-mcp", "env");
    mkdirSync(join(h, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(userFile, "HERMES_API_KEY=new-key-in-file\nHERMES_MODEL=same\nBIND_PORT=9001 # mine\nLOG_LEVEL=info\nLOG_LEVEL=debug\n");
    writeFileSync(join(cwd, ".env"), "LOG_LEVEL=warning\n");
    const { config, warnings } = loadConfig({ env: { HOME: h, HERMES_API_KEY: "old-exported-key", HERMES_MODEL: "same" }, cwd });
    expect(config.gateway.apiKey).toBe("old-exported-key");
    expect(config.log.level).toBe("WARNING");
    const text = warnings.join("\n");
    expect(text).toContain(`HERMES_API_KEY is set in the environment and, differently, in ${userFile}: the environment's value is used`);
    expect(text).toContain(`LOG_LEVEL is set in ${join(cwd, ".env")} and, differently, in ${userFile}: that file's value is used`);
    expect(text).toContain(`${userFile} sets LOG_LEVEL on lines 4, 5 with different values: line 5's is used`);
    expect(text).not.toContain("HERMES_MODEL");
    expect(text).not.toContain("BIND_PORT");
    for (const secret of ["new-key-in-file", "old-exported-key"]) expect(text).not.toContain(secret);
    // systemd's EnvironmentFile= (an old unit's) keeps an inline comment: the refusal says where that value came from.
    const problems = configProblems(() => loadConfig({ env: { HOME: h, BIND_PORT: "9001 # mine" }, cwd }));
    expect(problems[0]).toContain('BIND_PORT must be a whole number from 0 to 65535 (got "9001 # mine")');
    expect(problems[1]).toBe(
      `BIND_PORT is set in the environment and, differently, in ${userFile}: the environment's value is used — a systemd unit's EnvironmentFile= read the file's "# …" comment as part of the value: run \`hermes-mcp service install\` again (its unit lets hermes-mcp read the file itself)`,
    );
  });

  test("warns when binding beyond loopback", () => {
    const { warnings } = loadConfig({ env: { HOME: home(), BIND_HOST: "0.0.0.0", HERMES_API_KEY: "k" }, cwd: home() });
    expect(warnings.join("\n")).toContain("BIND_HOST=0.0.0.0");
  });
});

describe("checkIssuerUrl", () => {
  test.each([
    ["https://hermes.example.com", null],
    ["http://127.0.0.1:8765", null],
    ["http://localhost:8765", null],
    ["http://hermes.example.com", "https"],
    ["https://hermes.example.com/?x=1", "query"],
    ["not a url", "must be a URL"],
  ])("%s", (url, expected) => {
    const problem = checkIssuerUrl(url);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});
