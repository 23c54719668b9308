// The messaging layer's pure rules: redaction, the child's environment, which tools are offered to whom, result bounds, levels and scopes, finding `hermes`.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { boundResult } from "../../src/messaging/bounds.ts";
import { resolveHermesCommand } from "../../src/messaging/command.ts";
import { childEnvironment } from "../../src/messaging/environment.ts";
import { atMost, levelOfScopes, scopesOfLevel } from "../../src/messaging/level.ts";
import { redactCredentials } from "../../src/messaging/redact.ts";
import { exposedTools, toolsFor } from "../../src/messaging/tools.ts";

describe("redactCredentials", () => {
  test("masks the credential shapes Hermes masks, and our own tokens", () => {
    const text = [
      "ghp_abcdefghijklmnopqrstuvwxyz0123",
      "sk-proj-abcdefghijklmnop",
      "Authorization: Bearer eyJhbGciOi.payload.sig",
      "token=abc123",
      "API_KEY=xyz789",
      "password: 'hunter 2'",
      'secret="s3 cr3t"',
      "bot_token=123:AAF",
      "hmcp_pat_0123456789abcdef",
    ].join(" | ");
    const out = redactCredentials(text);
    for (const secret of ["ghp_abc", "sk-proj", "eyJhbGciOi", "abc123", "xyz789", "hunter 2", "s3 cr3t", "123:AAF", "hmcp_pat_0123"]) {
      expect({ secret, leaked: out.includes(secret) }).toEqual({ secret, leaked: false });
    }
    expect(out).toContain("Bearer [REDACTED]");
    expect(out).toContain("API_KEY=[REDACTED]");
  });

  test("leaves ordinary text and Hermes's session keys alone", () => {
    const text = "no conversation session_key=telegram:100 (platform=discord, keyboard layout fine)";
    expect(redactCredentials(text)).toBe(text);
  });
});

describe("childEnvironment", () => {
  test("passes only the baseline and XDG_*, plus the extras; nothing else of the parent", () => {
    const parent = {
      PATH: "/bin",
      HOME: "/home/o",
      USER: "o",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      TERM: "xterm",
      SHELL: "/bin/sh",
      TMPDIR: "/tmp",
      XDG_DATA_HOME: "/d",
      HERMES_API_KEY: "k",
      OAUTH_CLIENT_SECRET: "s",
      AWS_SECRET_ACCESS_KEY: "a",
      LOGNAME: "o",
    };
    expect(childEnvironment(parent, { HERMES_HOME: "/h" })).toEqual({
      PATH: "/bin",
      HOME: "/home/o",
      USER: "o",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      TERM: "xterm",
      SHELL: "/bin/sh",
      TMPDIR: "/tmp",
      XDG_DATA_HOME: "/d",
      HERMES_HOME: "/h",
    });
  });
});

const tool = (name: string) => ({ name, inputSchema: { type: "object" as const } });
const ALL = [
  "conversations_list",
  "conversation_get",
  "messages_read",
  "attachments_fetch",
  "events_poll",
  "events_wait",
  "messages_send",
  "channels_list",
  "permissions_list_open",
  "permissions_respond",
  "some_future_tool",
].map(tool);

describe("exposedTools and toolsFor", () => {
  test("prefixed hermes_; never permissions_* nor a tool hermes-mcp does not know", () => {
    const names = exposedTools(ALL, { include: [], exclude: [] }).map((t) => t.name);
    expect(names).toHaveLength(8);
    expect(names.every((n) => n.startsWith("hermes_"))).toBe(true);
    expect(names.some((n) => n.includes("permissions") || n.includes("future"))).toBe(false);
  });

  test("exclude drops; include is the allow-list and wins over exclude", () => {
    expect(exposedTools(ALL, { include: [], exclude: ["messages_send", "events_wait"] }).map((t) => t.upstream)).not.toContain(
      "events_wait",
    );
    expect(exposedTools(ALL, { include: ["messages_read", "events_wait"], exclude: ["events_wait"] }).map((t) => t.upstream)).toEqual([
      "messages_read",
      "events_wait",
    ]);
    expect(exposedTools(ALL, { include: ["permissions_respond"], exclude: [] })).toEqual([]);
  });

  test("read sees the seven read tools; send adds messages_send; off sees none", () => {
    const exposed = exposedTools(ALL, { include: [], exclude: [] });
    expect(toolsFor(exposed, "off")).toEqual([]);
    expect(toolsFor(exposed, "read").map((t) => t.upstream)).not.toContain("messages_send");
    expect(toolsFor(exposed, "read")).toHaveLength(7);
    expect(toolsFor(exposed, "send").map((t) => t.upstream)).toContain("messages_send");
  });
});

describe("levels and scopes", () => {
  test("scopes ↔ levels, send only with read, and the daemon's level caps every grant", () => {
    expect(levelOfScopes(["hermes"])).toBe("off");
    expect(levelOfScopes(["hermes", "hermes:messages.read"])).toBe("read");
    expect(levelOfScopes(["hermes", "hermes:messages.send"])).toBe("off");
    expect(levelOfScopes(["hermes", "hermes:messages.read", "hermes:messages.send"])).toBe("send");
    expect(scopesOfLevel("send")).toEqual(["hermes:messages.read", "hermes:messages.send"]);
    expect(atMost("read", "send")).toBe("read");
    expect(atMost("send", "off")).toBe("off");
  });
});

describe("boundResult", () => {
  test("keeps what fits, replaces what does not with a note naming it, drops oversized structured content", () => {
    const big = "A".repeat(2000);
    const result = boundResult(
      {
        content: [
          { type: "text", text: "small" },
          { type: "image", mimeType: "image/jpeg", data: big },
        ],
        structuredContent: { blob: big },
      },
      1000,
    );
    expect(result.content[0]).toEqual({ type: "text", text: "small" });
    expect(result.content[1]).toEqual({
      type: "text",
      text: expect.stringContaining("image, image/jpeg of 3 KiB omitted: larger than hermes-mcp's 1 KiB limit"),
    });
    expect(result.structuredContent).toBeUndefined();
  });
});

describe("resolveHermesCommand", () => {
  test("PATH first, then ~/.hermes/hermes-agent/venv/bin/hermes, else a problem naming the fix", () => {
    const root = mkdtempSync(join(tmpdir(), "hermes-cmd-"));
    try {
      const bin = join(root, "bin");
      const venv = join(root, ".hermes", "hermes-agent", "venv", "bin");
      mkdirSync(bin, { recursive: true });
      mkdirSync(venv, { recursive: true });
      const missing = resolveHermesCommand(null, { PATH: bin, HOME: root });
      expect(missing.ok).toBe(false);
      expect(missing.ok ? null : missing).toEqual({
        ok: false,
        problem: `the \`hermes\` command is neither on PATH nor at ${join(venv, "hermes")}`,
        fix: 'install Hermes Agent, or set HERMES_MCP_HERMES_COMMAND to its full path followed by "mcp serve"',
      });
      writeFileSync(join(venv, "hermes"), "#!/bin/sh\n");
      chmodSync(join(venv, "hermes"), 0o755);
      expect(resolveHermesCommand(null, { PATH: bin, HOME: root })).toEqual({
        ok: true,
        command: join(venv, "hermes"),
        args: ["mcp", "serve"],
      });
      writeFileSync(join(bin, "hermes"), "#!/bin/sh\n");
      chmodSync(join(bin, "hermes"), 0o755);
      expect(resolveHermesCommand(null, { PATH: bin, HOME: root })).toEqual({
        ok: true,
        command: join(bin, "hermes"),
        args: ["mcp", "serve"],
      });
      expect(resolveHermesCommand(["hermes", "mcp", "serve", "--verbose"], { PATH: bin })).toEqual({
        ok: true,
        command: join(bin, "hermes"),
        args: ["mcp", "serve", "--verbose"],
      });
      expect(resolveHermesCommand([join(root, "nope")], { PATH: bin }).ok).toBe(false);
      // Written as the README's fallback path is: ~/ is the home folder (an env file does not expand it).
      expect(resolveHermesCommand(["~/.hermes/hermes-agent/venv/bin/hermes", "mcp", "serve"], { PATH: "", HOME: root })).toEqual({
        ok: true,
        command: join(venv, "hermes"),
        args: ["mcp", "serve"],
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
