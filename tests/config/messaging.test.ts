// The messaging settings: defaults (off), each variable validated with a message naming the fix, HERMES_MCP_HERMES_ENV resolved, secrets refused.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { splitCommand } from "../../src/config/schema.ts";
import { configProblems } from "../support/config.ts";
import { tempHomes } from "../support/daemon.ts";

const home = tempHomes();

const load = (env: Record<string, string>) => loadConfig({ env: { HOME: home(), ...env }, cwd: home() });
const problemsOf = (env: Record<string, string>): string[] => configProblems(() => load(env));

describe("messaging settings", () => {
  test("off by default, 120 s per call, no filter, the static client without messaging", () => {
    expect(load({}).config.messaging).toEqual({
      mode: "off",
      command: null,
      env: {},
      timeoutMs: 120_000,
      tools: { include: [], exclude: [] },
      staticClient: "off",
    });
  });

  test("every variable parsed", () => {
    const { config, warnings } = load({
      HERMES_MCP_MESSAGING: "Send",
      HERMES_MCP_HERMES_COMMAND: `"/opt/my hermes/bin/hermes" mcp serve --verbose`,
      HERMES_MCP_HERMES_ENV: "HERMES_HOME=/srv/h, LANGUAGE, MISSING_ONE",
      LANGUAGE: "de",
      HERMES_MCP_MESSAGING_TIMEOUT_SECONDS: "30",
      HERMES_MCP_MESSAGING_TOOLS: "hermes_messages_read,-events_wait,!attachments_fetch",
      OAUTH_STATIC_CLIENT_MESSAGING: "read",
    });
    expect(config.messaging).toEqual({
      mode: "send",
      command: ["/opt/my hermes/bin/hermes", "mcp", "serve", "--verbose"],
      env: { HERMES_HOME: "/srv/h", LANGUAGE: "de" },
      timeoutMs: 30_000,
      tools: { include: ["messages_read"], exclude: ["events_wait", "attachments_fetch"] },
      staticClient: "read",
    });
    expect(warnings.some((w) => w.includes("MISSING_ONE"))).toBe(true);
    expect(warnings.some((w) => w.includes("HERMES_MCP_MESSAGING") && w.includes("not a hermes-mcp setting"))).toBe(false);
  });

  test("bad values are named with what to do", () => {
    expect(problemsOf({ HERMES_MCP_MESSAGING: "yes" })).toEqual(['HERMES_MCP_MESSAGING must be off, read or send (got "yes")']);
    expect(problemsOf({ OAUTH_STATIC_CLIENT_MESSAGING: "write" })[0]).toContain("OAUTH_STATIC_CLIENT_MESSAGING must be off, read or send");
    expect(problemsOf({ HERMES_MCP_MESSAGING_TIMEOUT_SECONDS: "1" })[0]).toContain("from 5 to 3600");
    expect(problemsOf({ HERMES_MCP_MESSAGING_TOOLS: "permissions_respond" })[0]).toContain("not a messaging tool");
    expect(problemsOf({ HERMES_MCP_HERMES_COMMAND: `"/opt/hermes mcp serve` })[0]).toContain("unclosed quote");
    expect(problemsOf({ HERMES_MCP_HERMES_ENV: "1BAD=x" })[0]).toContain("NAME=value");
  });

  test("HERMES_MCP_HERMES_ENV cannot hand the daemon's own secrets to the child", () => {
    expect(problemsOf({ HERMES_MCP_HERMES_ENV: "HERMES_API_KEY" })[0]).toContain("must not pass HERMES_API_KEY");
    expect(problemsOf({ HERMES_MCP_HERMES_ENV: "OAUTH_CLIENT_SECRET=x" })[0]).toContain("must not pass OAUTH_CLIENT_SECRET");
  });

  test("static-client messaging while messaging is off is said to have no effect", () => {
    expect(
      load({ OAUTH_STATIC_CLIENT_MESSAGING: "send" }).warnings.some((w) => w.includes("has no effect while HERMES_MCP_MESSAGING is off")),
    ).toBe(true);
  });

  test("a misspelt messaging variable is warned about, naming the real one", () => {
    expect(load({ HERMES_MCP_MESAGING: "read" }).warnings.join("\n")).toContain("did you mean HERMES_MCP_MESSAGING?");
  });

  test("splitCommand honours quotes and no shell", () => {
    expect(splitCommand(`hermes mcp serve`)).toEqual(["hermes", "mcp", "serve"]);
    expect(splitCommand(`'a b' "c d" e$HOME`)).toEqual(["a b", "c d", "e$HOME"]);
  });
});
