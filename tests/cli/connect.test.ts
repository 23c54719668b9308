// `hermes-mcp connect`: each client's output parses in its own format, matches that client's documented schema, and its token works on /mcp.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startTestDaemon, type TestDaemon, tempHomes } from "../support/daemon.ts";

const newHome = tempHomes();
const ISSUER = "https://hermes.example.com";
const URL_ = `${ISSUER}/mcp`;
const TOKEN = /^Bearer hmcp_pat_[A-Za-z0-9_-]{43}$/;

function withEnvFile(home: string, lines: string[]): void {
  mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, ".config", "hermes-mcp", "env"), `${lines.join("\n")}\n`, { mode: 0o600 });
}

/** Splits a command line the way sh does for what shellWord prints: bare words and '…' quoting. */
function shellSplit(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g))
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : (match[2] as string));
  return words;
}

const connect = (home: string, args: string[]) => runCli(["connect", ...args], { home });

describe("hermes-mcp connect, with a public issuer", () => {
  const home = newHome();
  withEnvFile(home, [
    `OAUTH_ISSUER_URL=${ISSUER}`,
    "MCP_ALLOWED_HOSTS=hermes.example.com",
    "OAUTH_CLIENT_ID=hermes-abc",
    `OAUTH_CLIENT_SECRET=${"s".repeat(43)}`,
  ]);

  test("claude: the connector URL and the static client's id and secret, as Claude's fields name them", async () => {
    const result = await connect(home, ["claude"]);
    expect(result.code, result.stderr).toBe(0);
    const fields = Object.fromEntries(
      result.stdout
        .trim()
        .split("\n")
        .map((line) => line.split(/: (.*)/s).slice(0, 2)),
    );
    expect(fields).toEqual({ "Remote MCP server URL": URL_, "OAuth Client ID": "hermes-abc", "OAuth Client Secret": "s".repeat(43) });
    expect(result.stderr).toContain("Advanced settings");
  });

  test("claude refuses --token: its connectors take no header", async () => {
    const result = await connect(home, ["claude", "--token", "x"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--token does not apply");
  });

  test("claude-code: a `claude mcp add --transport http` command with the token header", async () => {
    const result = await connect(home, ["claude-code", "--token", "cc"]);
    expect(result.code, result.stderr).toBe(0);
    const argv = shellSplit(result.stdout.trim());
    expect(argv.slice(0, 7)).toEqual(["claude", "mcp", "add", "--transport", "http", "hermes", URL_]);
    expect(argv[7]).toBe("--header");
    expect(argv[8]?.replace(/^Authorization: /, "")).toMatch(TOKEN);
  });

  test("codex: a [mcp_servers.hermes] table for config.toml, with url and http_headers", async () => {
    const result = await connect(home, ["codex", "--token", "codex"]);
    expect(result.code, result.stderr).toBe(0);
    const toml = Bun.TOML.parse(result.stdout) as { mcp_servers: Record<string, { url: string; http_headers: Record<string, string> }> };
    expect(Object.keys(toml.mcp_servers)).toEqual(["hermes"]);
    expect(toml.mcp_servers.hermes?.url).toBe(URL_);
    expect(toml.mcp_servers.hermes?.http_headers.Authorization).toMatch(TOKEN);
  });

  test("codex without a token: url only, and `codex mcp login` named", async () => {
    const result = await connect(home, ["codex"]);
    const toml = Bun.TOML.parse(result.stdout) as { mcp_servers: Record<string, Record<string, unknown>> };
    expect(toml.mcp_servers.hermes).toEqual({ url: URL_ });
    expect(result.stderr).toContain("codex mcp login hermes");
  });

  test("cursor: mcpServers.hermes with url and headers", async () => {
    const result = await connect(home, ["cursor", "--token", "cursor", "--name", "my-hermes"]);
    const config = JSON.parse(result.stdout) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    expect(Object.keys(config)).toEqual(["mcpServers"]);
    expect(config.mcpServers["my-hermes"]?.url).toBe(URL_);
    expect(config.mcpServers["my-hermes"]?.headers.Authorization).toMatch(TOKEN);
  });

  test("vscode: servers.hermes of type http, the token asked for through a password input rather than written in the file", async () => {
    const result = await connect(home, ["vscode", "--token", "vscode"]);
    const config = JSON.parse(result.stdout) as {
      servers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
      inputs: { type: string; id: string; password: boolean; description: string }[];
    };
    const server = config.servers.hermes;
    expect(server?.type).toBe("http");
    expect(server?.url).toBe(URL_);
    const id = server?.headers.Authorization?.match(/^Bearer \$\{input:([\w-]+)\}$/)?.[1];
    expect(config.inputs).toEqual([{ type: "promptString", id: id as string, description: expect.any(String), password: true }]);
    expect(result.stdout).not.toContain("hmcp_pat_");
    expect(result.stderr).toMatch(/paste: hmcp_pat_/);
  });

  test("inspector: a --config file with a streamable-http server", async () => {
    const result = await connect(home, ["inspector"]);
    const config = JSON.parse(result.stdout);
    expect(config).toEqual({ mcpServers: { hermes: { type: "streamable-http", url: URL_ } } });
    expect(result.stderr).toContain("--config hermes.json --server hermes");
  });

  test("mcp-remote: an npx stdio entry whose header comes from env (no spaces in args)", async () => {
    const result = await connect(home, ["mcp-remote", "--token", "remote"]);
    const config = JSON.parse(result.stdout) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    const server = config.mcpServers.hermes;
    expect(server?.command).toBe("npx");
    expect(server?.args.slice(0, 3)).toEqual(["-y", "mcp-remote", URL_]);
    const header = server?.args.slice(3) ?? [];
    expect(header[0]).toBe("--header");
    const variable = header[1]?.match(/^Authorization:\$\{(\w+)\}$/)?.[1] as string;
    expect(server?.env[variable]).toMatch(TOKEN);
    for (const arg of server?.args ?? []) expect(arg).not.toContain(" ");
  });

  test("a token name already taken is refused with the fix", async () => {
    const result = await connect(home, ["cursor", "--token", "cursor"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("already exists");
  });

  test("an unknown client lists the ones there are", async () => {
    const result = await connect(home, ["zed"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("claude-code");
  });

  test("a client is found by the name people call it, and a typo is named", async () => {
    const desktop = await connect(home, ["Claude Desktop"]);
    expect(desktop.code, desktop.stderr).toBe(0);
    expect(desktop.stdout).toStartWith(`Remote MCP server URL: ${URL_}\n`);
    const typo = await connect(home, ["curser"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("did you mean cursor?");
  });
});

describe("hermes-mcp connect, locally", () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon({ home: newHome() });
  });
  afterAll(() => daemon.stop());

  test("claude needs a public URL and says how to set it", async () => {
    const result = await runCli(["connect", "claude"], { home: daemon.home, env: daemon.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("OAUTH_ISSUER_URL");
  });

  test("without a password or token, a self-registering client is warned that set-password is needed", async () => {
    const result = await runCli(["connect", "cursor"], { home: daemon.home, env: daemon.env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("hermes-mcp set-password");
  });

  test("the token in cursor's configuration opens /mcp on the running daemon", async () => {
    const result = await runCli(["connect", "cursor", "--token", "live"], { home: daemon.home, env: daemon.env });
    expect(result.code, result.stderr).toBe(0);
    const server = (JSON.parse(result.stdout) as { mcpServers: { hermes: { url: string; headers: Record<string, string> } } }).mcpServers
      .hermes;
    expect(server.url).toBe(`${daemon.url}/mcp`);
    const response = await fetch(server.url, {
      method: "POST",
      headers: { ...server.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "connect-test", version: "1" } },
      }),
    });
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });
});

describe("hermes-mcp connect, with messaging on", () => {
  test("says what messaging grants, its risk, and how this client would get it; silent about it when messaging is off", async () => {
    const home = newHome();
    const base = [
      `OAUTH_ISSUER_URL=${ISSUER}`,
      "MCP_ALLOWED_HOSTS=hermes.example.com",
      "OAUTH_CLIENT_ID=hermes-abc",
      `OAUTH_CLIENT_SECRET=${"s".repeat(43)}`,
    ];
    withEnvFile(home, base);
    expect((await connect(home, ["claude"])).stderr).not.toContain("Messaging is on");
    withEnvFile(home, [...base, "HERMES_MCP_MESSAGING=send", "OAUTH_STATIC_CLIENT_MESSAGING=read"]);
    const claude = await connect(home, ["claude"]);
    expect(claude.code, claude.stderr).toBe(0);
    expect(claude.stderr).toContain("Messaging is on (HERMES_MCP_MESSAGING=send)");
    expect(claude.stderr).toContain("send messages as your Hermes bot");
    expect(claude.stderr).toContain("prompt injection");
    expect(claude.stderr).toContain("OAUTH_STATIC_CLIENT_MESSAGING (now read)");
    const cursor = await connect(home, ["cursor"]);
    expect(cursor.stderr).toContain("tick the messaging box");
    const codex = await connect(home, ["codex", "--token", "codex-laptop"]);
    expect(codex.code, codex.stderr).toBe(0);
    expect(codex.stderr).toContain("--messaging read");
  });
});
