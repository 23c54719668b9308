// Which client `connect` reads from a name: its own, one people call it by (any case or separator), or a typo named.
import { describe, expect, test } from "bun:test";
import { resolveConnectClient } from "../../src/cli/connect-clients.ts";
import { CONNECT_CLIENTS } from "../../src/cli/connect-formats.ts";

const clientOf = (name: string): string | null => {
  const resolved = resolveConnectClient(name);
  return "client" in resolved ? resolved.client : null;
};
const errorOf = (name: string): string => {
  const resolved = resolveConnectClient(name);
  if ("client" in resolved) throw new Error(`${name} was read as ${resolved.client}`);
  return resolved.error;
};

describe("resolveConnectClient", () => {
  test("every client by its own name", () => {
    for (const client of CONNECT_CLIENTS) expect(clientOf(client)).toBe(client);
  });

  test("case, spaces, dots and underscores do not matter", () => {
    expect(clientOf("Cursor")).toBe("cursor");
    expect(clientOf("Claude Code")).toBe("claude-code");
    expect(clientOf("claude_code")).toBe("claude-code");
    expect(clientOf("claudecode")).toBe("claude-code");
    expect(clientOf("VS Code")).toBe("vscode");
    expect(clientOf("vs-code")).toBe("vscode");
    expect(clientOf("MCP-Remote")).toBe("mcp-remote");
  });

  test("Claude.ai, Claude Desktop and Claude mobile are the one claude connector", () => {
    for (const name of ["claude.ai", "Claude Desktop", "claude-desktop", "claude-ai", "claude.com", "claude mobile"])
      expect(clientOf(name)).toBe("claude");
  });

  test("other names people use", () => {
    expect(clientOf("codex-cli")).toBe("codex");
    expect(clientOf("OpenAI Codex")).toBe("codex");
    expect(clientOf("Visual Studio Code")).toBe("vscode");
    expect(clientOf("mcp-inspector")).toBe("inspector");
  });

  test("a typo is named with the client meant, and every client is listed", () => {
    const error = errorOf("curser");
    expect(error).toContain('unknown client "curser" — did you mean cursor?');
    for (const client of CONNECT_CLIENTS) expect(error).toContain(client);
  });

  test("a name as near to two clients names both", () => {
    expect(errorOf("code")).toContain("did you mean codex or vscode?");
  });

  test("a name near nothing only lists the clients", () => {
    const error = errorOf("zed");
    expect(error).toStartWith('unknown client "zed". The clients: claude,');
    expect(error).not.toContain("did you mean");
    expect(clientOf("")).toBeNull();
  });
});
