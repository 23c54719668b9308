// Which client `hermes-mcp connect` was asked for: its own name, a name people call it by, or a typo to correct.
import { editDistance } from "../config/names.ts";
import { CONNECT_CLIENTS, type ConnectClient } from "./connect-formats.ts";

/** Names people type for a client (compared as keyOf reads them: case, spaces, dots, dashes and underscores ignored). */
const ALIASES: Readonly<Record<string, ConnectClient>> = {
  // Claude.ai, Claude Desktop and Claude mobile share one connector dialog (Settings → Connectors).
  claudeai: "claude",
  claudecom: "claude",
  claudedesktop: "claude",
  claudemobile: "claude",
  codexcli: "codex",
  openaicodex: "codex",
  visualstudiocode: "vscode",
  mcpinspector: "inspector",
  modelcontextprotocolinspector: "inspector",
};

/** "Claude Code", "claude_code" and "claude-code" read alike; so do "VS Code" and "vscode", "claude.ai" and "claude-ai". */
const keyOf = (name: string): string => name.toLowerCase().replace(/[\s._-]+/g, "");

const BY_KEY: ReadonlyMap<string, ConnectClient> = new Map([
  ...CONNECT_CLIENTS.map((client) => [keyOf(client), client] as const),
  ...Object.entries(ALIASES),
]);

/** The client `name` means, or the one line to print: what there is, and the nearest name if it looks like a typo. */
export function resolveConnectClient(name: string): { client: ConnectClient } | { error: string } {
  const key = keyOf(name);
  const client = BY_KEY.get(key);
  if (client) return { client };
  // Every near name: "code" is as near to vscode as to codex.
  const near = CONNECT_CLIENTS.filter((known) => editDistance(keyOf(known), key) <= 2);
  return {
    error: `unknown client "${name}"${near.length > 0 ? ` — did you mean ${near.join(" or ")}?` : "."} The clients: ${CONNECT_CLIENTS.join(", ")} (claude is Claude.ai, Claude Desktop and Claude mobile)`,
  };
}
