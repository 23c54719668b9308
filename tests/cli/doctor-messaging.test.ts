// `hermes-mcp doctor` on messaging: off by default, and when on it finds the command, starts it once, lists its tools, and names the fix for each failure.
import { afterAll, describe, expect, test } from "bun:test";
import { runCli, tempHomes } from "../support/daemon.ts";
import { fakeHermes, messagingEnv } from "../support/fake-hermes.ts";

const home = tempHomes();
const fake = fakeHermes();
afterAll(() => fake.remove());

const doctor = async (env: Record<string, string>): Promise<string> => (await runCli(["doctor"], { home: home(), env })).stdout;

describe("doctor's messaging check", () => {
  test("off: says so and how to turn it on", async () => {
    expect(await doctor({})).toContain("✔ messaging off — set HERMES_MCP_MESSAGING=read or send");
  });

  test("on: the command, a start, the tools Hermes offers and those hermes-mcp passes on", async () => {
    const out = await doctor(messagingEnv(fake, "send", { HERMES_MCP_MESSAGING_TOOLS: "-events_wait" }));
    expect(out).toContain("✔ messaging on (send)");
    expect(out).toContain(`✔ hermes command found — ${fake.argv.join(" ")}`);
    expect(out).toMatch(/✔ hermes mcp serve starts — 10 tool\(s\): conversations_list/);
    expect(out).toContain("✔ messaging tools offered — hermes_conversations_list");
    expect(out).not.toContain("hermes_events_wait");
    expect(out).not.toContain("hermes_permissions");
  }, 30_000);

  test("a command that does not exist, and one that does not start: each named, with the fix", async () => {
    const missing = await doctor({ HERMES_MCP_MESSAGING: "read", HERMES_MCP_HERMES_COMMAND: "/nonexistent/hermes mcp serve" });
    // What is wrong on the ✖ line, what to do on the fix line: each said once.
    expect(missing).toContain(
      "✖ hermes command found — HERMES_MCP_HERMES_COMMAND names /nonexistent/hermes, which is not an executable file\n",
    );
    expect(missing).toContain('fix: give the full path to Hermes\'s `hermes` followed by "mcp serve"');
    const absent = await doctor({ HERMES_MCP_MESSAGING: "read", PATH: "/nonexistent" });
    expect(absent).toMatch(/✖ hermes command found — the `hermes` command is neither on PATH nor at \S+\n/);
    expect(absent).toContain("fix: install Hermes Agent, or set HERMES_MCP_HERMES_COMMAND");
    fake.refuseToStart(true);
    try {
      const refused = await doctor(messagingEnv(fake, "read"));
      expect(refused).toContain("✖ hermes mcp serve starts");
      expect(refused).toContain("yourself to see why it fails");
    } finally {
      fake.refuseToStart(false);
    }
  }, 30_000);
});
