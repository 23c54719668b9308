// Messaging modes on a real daemon: off changes nothing for anyone (no child, the same four tools), read never offers sending, HERMES_MCP_MESSAGING_TOOLS filters.
import { afterAll, describe, expect, test } from "bun:test";
import { runCli } from "../support/daemon.ts";
import { fakeHermes, messagingEnv, type FakeHermes } from "../support/fake-hermes.ts";
import { connectClient, textOf } from "../support/mcp-client.ts";
import { startWorld, type World } from "../support/world.ts";

const JOB_TOOLS = ["hermes_ask", "hermes_cancel", "hermes_check", "hermes_reset"];
const worlds: World[] = [];
const fakes: FakeHermes[] = [];
afterAll(async () => {
  await Promise.allSettled(worlds.map((w) => w.close()));
  for (const f of fakes) f.remove();
});

async function senderIn(
  env: (fake: FakeHermes) => Record<string, string>,
): Promise<{ world: World; fake: FakeHermes; names: string[]; token: string }> {
  const fake = fakeHermes();
  fakes.push(fake);
  const world = await startWorld(env(fake));
  worlds.push(world);
  const created = await runCli(["token", "create", "--name", "sender", "--messaging", "send"], { home: world.home, env: world.env });
  const token = created.stdout.trim().split("\n").at(-1) as string;
  const client = await connectClient(world.daemon.url, token);
  const names = (await client.listTools()).tools.map((t) => t.name).sort();
  await client.close();
  return { world, fake, names, token };
}

describe("messaging modes", () => {
  test("off: even a token created with --messaging send sees the four job tools, and no child is ever started", async () => {
    const { fake, names, world } = await senderIn((fake) => ({ HERMES_MCP_HERMES_COMMAND: fake.command }));
    expect(names).toEqual(JOB_TOOLS);
    const client = await connectClient(world.daemon.url, world.token);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(JOB_TOOLS);
    const refused = await client
      .callTool({ name: "hermes_messages_read", arguments: { session_key: "telegram:100" } })
      .catch((e: Error) => e.message);
    expect(typeof refused === "string" ? refused : textOf(refused)).toMatch(/not found|unknown tool/i);
    await client.close();
    expect(fake.pids()).toEqual([]);
  }, 60_000);

  test("read: a send token gets the read tools only; HERMES_MCP_MESSAGING_TOOLS excludes what it names", async () => {
    const { names } = await senderIn((fake) =>
      messagingEnv(fake, "read", { HERMES_MCP_MESSAGING_TOOLS: "-attachments_fetch,-events_wait" }),
    );
    expect(names).toEqual(
      [
        ...JOB_TOOLS,
        "hermes_channels_list",
        "hermes_conversation_get",
        "hermes_conversations_list",
        "hermes_events_poll",
        "hermes_messages_read",
      ].sort(),
    );
  }, 60_000);

  test("an include list wins over exclude: only what it names", async () => {
    const { names } = await senderIn((fake) =>
      messagingEnv(fake, "send", { HERMES_MCP_MESSAGING_TOOLS: "messages_read,messages_send,-messages_send" }),
    );
    expect(names).toEqual([...JOB_TOOLS, "hermes_messages_read", "hermes_messages_send"].sort());
  }, 60_000);
});
