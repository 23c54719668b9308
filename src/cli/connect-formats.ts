// Paste-ready client configuration in each client's own format (JSON, TOML, a shell command), from the bridge's actual settings.
import { shellCommand } from "../shell-word.ts";

export const CONNECT_CLIENTS = ["claude", "claude-code", "codex", "cursor", "vscode", "inspector", "mcp-remote"] as const;
export type ConnectClient = (typeof CONNECT_CLIENTS)[number];

export interface ConnectSettings {
  /** OAUTH_ISSUER_URL + /mcp. */
  url: string;
  /** The server's name in the client's configuration. */
  name: string;
  staticClient: { id: string; secret: string } | null;
  /** A fresh personal access token, for clients that send a fixed Authorization header. */
  token: string | null;
}

export interface Snippet {
  /** What to paste, alone on stdout so it can be redirected into a file. */
  text: string;
  /** Where it goes and what to do next (stderr). */
  notes: string[];
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const bearer = (token: string): string => `Bearer ${token}`;

/** Claude.ai / Desktop / mobile: the fields of Settings → Connectors → Add custom connector (Claude takes no headers). */
function claude(s: ConnectSettings): Snippet {
  const lines = [`Remote MCP server URL: ${s.url}`];
  if (s.staticClient) lines.push(`OAuth Client ID: ${s.staticClient.id}`, `OAuth Client Secret: ${s.staticClient.secret}`);
  return {
    text: `${lines.join("\n")}\n`,
    notes: [
      s.staticClient
        ? "In Claude: Settings → Connectors → Add custom connector; the URL above, and under Advanced settings the client id and secret. Claude signs in by itself."
        : "In Claude: Settings → Connectors → Add custom connector with the URL above, Advanced settings left empty; approve Claude on the page that opens.",
    ],
  };
}

/** Claude Code: `claude mcp add --transport http NAME URL [--header "Authorization: Bearer …"]`. */
function claudeCode(s: ConnectSettings): Snippet {
  const argv = ["claude", "mcp", "add", "--transport", "http", s.name, s.url];
  if (s.token) argv.push("--header", `Authorization: ${bearer(s.token)}`);
  return {
    text: `${shellCommand(argv)}\n`,
    notes: [
      s.token ? "Run it in a shell." : "Run it in a shell, then in Claude Code `/mcp` → Authenticate; approve it on the page that opens.",
    ],
  };
}

const tomlString = (value: string): string => JSON.stringify(value);

/** Codex: a [mcp_servers.NAME] table for ~/.codex/config.toml (streamable HTTP: url, http_headers). */
function codex(s: ConnectSettings): Snippet {
  const lines = [`[mcp_servers.${s.name}]`, `url = ${tomlString(s.url)}`];
  if (s.token) lines.push(`http_headers = { Authorization = ${tomlString(bearer(s.token))} }`);
  return {
    text: `${lines.join("\n")}\n`,
    notes: [
      s.token
        ? "Add it to ~/.codex/config.toml (keep that file private: it now holds the token)."
        : `Add it to ~/.codex/config.toml (or run \`codex mcp add ${s.name} --url ${s.url}\`), then \`codex mcp login ${s.name}\` and approve it on the page.`,
    ],
  };
}

/** Cursor: ~/.cursor/mcp.json, `mcpServers` → `url` (+ `headers`). */
function cursor(s: ConnectSettings): Snippet {
  const server: Record<string, unknown> = { url: s.url };
  if (s.token) server.headers = { Authorization: bearer(s.token) };
  return {
    text: json({ mcpServers: { [s.name]: server } }),
    notes: [
      `Merge it into ~/.cursor/mcp.json (or a project's .cursor/mcp.json).${s.token ? "" : " Cursor asks you to log in; approve it on the page."}`,
    ],
  };
}

/** VS Code: .vscode/mcp.json, `servers` → `type: "http"`; a token is asked for once (an `inputs` prompt) rather than committed with the workspace. */
function vscode(s: ConnectSettings): Snippet {
  const server: Record<string, unknown> = { type: "http", url: s.url };
  const config: Record<string, unknown> = { servers: { [s.name]: server } };
  const notes = ["Merge it into .vscode/mcp.json (or your user mcp.json via MCP: Open User Configuration)."];
  if (s.token) {
    const id = `${s.name}-token`;
    server.headers = { Authorization: `Bearer \${input:${id}}` };
    config.inputs = [{ type: "promptString", id, description: `hermes-mcp personal access token (${s.name})`, password: true }];
    notes.push(`VS Code asks for the token once and keeps it in its secret storage; paste: ${s.token}`);
  } else notes.push("VS Code asks you to sign in; approve it on the page.");
  return { text: json(config), notes };
}

/** The MCP Inspector: a config file for `npx @modelcontextprotocol/inspector --config FILE --server NAME`. */
function inspector(s: ConnectSettings): Snippet {
  const notes = [
    `Save it as hermes.json and run \`npx @modelcontextprotocol/inspector --config hermes.json --server ${s.name}\` (Node.js ≥ 22).`,
  ];
  if (s.token) notes.push(`Under Authentication, header Authorization, value: ${bearer(s.token)}`);
  else if (s.staticClient)
    notes.push(
      `Open Auth Settings → Quick OAuth Flow, approve on the page (or paste the static client id ${s.staticClient.id} and its secret).`,
    );
  else notes.push("Open Auth Settings → Quick OAuth Flow and approve it on the page.");
  return { text: json({ mcpServers: { [s.name]: { type: "streamable-http", url: s.url } } }), notes };
}

/** mcp-remote, for clients that only start local (stdio) servers, e.g. claude_desktop_config.json; the header goes through env (no spaces in args). */
function mcpRemote(s: ConnectSettings): Snippet {
  const args = ["-y", "mcp-remote", s.url];
  const server: Record<string, unknown> = { command: "npx", args };
  if (s.token) {
    args.push("--header", "Authorization:${HERMES_MCP_AUTH_HEADER}");
    server.env = { HERMES_MCP_AUTH_HEADER: bearer(s.token) };
  }
  return {
    text: json({ mcpServers: { [s.name]: server } }),
    notes: [
      `Merge it into the client's mcpServers file (Claude Desktop: claude_desktop_config.json). mcp-remote needs Node.js 18 or later.${s.token ? "" : " It opens a browser to sign in; approve it on the page."}`,
    ],
  };
}

const FORMATS: Record<ConnectClient, (s: ConnectSettings) => Snippet> = {
  claude,
  "claude-code": claudeCode,
  codex,
  cursor,
  vscode,
  inspector,
  "mcp-remote": mcpRemote,
};

export function connectSnippet(client: ConnectClient, settings: ConnectSettings): Snippet {
  return FORMATS[client](settings);
}
