// Hermes's messaging tools through a real daemon and a fake `hermes mcp serve`: who sees what, sends end to end, the child's environment, redaction, long-polls, list changes, crash and hang.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { createToken, runCli } from "../support/daemon.ts";
import { fakeHermes, messagingEnv, type FakeHermes } from "../support/fake-hermes.ts";
import { connectClient, textOf, type Era } from "../support/mcp-client.ts";
import {
  approvedAppTokens,
  consentPage,
  type OAuthWorld,
  PASSWORD,
  pkce,
  redirectParams,
  registerOk,
  startOAuthWorld,
  staticTokens,
  submitConsent,
  tokenRequest,
} from "../support/oauth-flow.ts";
import { until } from "../support/until.ts";

const APP_CALLBACK = "http://127.0.0.1:33419/callback";
const JOB_TOOLS = ["hermes_ask", "hermes_cancel", "hermes_check", "hermes_reset"];
const READ_TOOLS = [
  "hermes_attachments_fetch",
  "hermes_channels_list",
  "hermes_conversation_get",
  "hermes_conversations_list",
  "hermes_events_poll",
  "hermes_events_wait",
  "hermes_messages_read",
];
const SEND_TOOLS = [...READ_TOOLS, "hermes_messages_send"];
const SLOW = 60_000;

let fake: FakeHermes;
let world: OAuthWorld;
const tokens: Record<string, string> = {};
const clients: Client[] = [];

/** A registered app approved on the consent page with the given messaging boxes ticked, through to its access token. */
async function appToken(
  name: string,
  boxes: Record<string, string>,
): Promise<{ token: string; scope: string; refresh: string; clientId: string }> {
  const app = await approvedAppTokens(world.url, { name, redirectUri: APP_CALLBACK, fields: boxes });
  return { token: app.access_token, scope: app.scope, refresh: app.refresh_token, clientId: app.clientId };
}

async function client(who: string, era: Era = "legacy"): Promise<Client> {
  const c = await connectClient(world.url, tokens[who] as string, era);
  clients.push(c);
  return c;
}

const toolNames = async (who: string, era: Era = "legacy"): Promise<string[]> =>
  (await (await client(who, era)).listTools()).tools.map((t) => t.name).sort();

/** A call's outcome as text, whether the tool answered with an error result or the protocol refused it. */
async function outcome(c: Client, name: string, args: Record<string, unknown> = {}): Promise<{ error: boolean; text: string }> {
  try {
    const result = await c.callTool({ name, arguments: args });
    return { error: result.isError === true, text: textOf(result) };
  } catch (error) {
    return { error: true, text: (error as Error).message };
  }
}

beforeAll(async () => {
  fake = fakeHermes();
  world = await startOAuthWorld({
    password: true,
    env: messagingEnv(fake, "send", {
      OAUTH_STATIC_CLIENT_MESSAGING: "read",
      HERMES_MCP_HERMES_ENV: "HERMES_HOME=/tmp/hermes-home-for-test",
      HERMES_MCP_MESSAGING_TIMEOUT_SECONDS: "9",
      HERMES_MCP_HEARTBEAT_SECONDS: "1",
      SOME_OTHER_SECRET: "do-not-pass-me",
    }),
  });
  tokens.static = (await staticTokens(world)).access_token;
  tokens.appPlain = (await appToken("Plain App", {})).token;
  tokens.appRead = (await appToken("Reader App", { messaging_read: "yes" })).token;
  tokens.appSend = (await appToken("Phone App", { messaging_read: "yes", messaging_send: "yes" })).token;
  tokens.patPlain = await createToken(world.home, "plain", world.env);
  // In any case, as people type it.
  const read = await runCli(["token", "create", "--name", "reader", "--messaging", "Read"], { home: world.home, env: world.env });
  tokens.patRead = read.stdout.trim().split("\n").at(-1) as string;
  const send = await runCli(["token", "create", "--name", "sender", "--messaging", "send"], { home: world.home, env: world.env });
  tokens.patSend = send.stdout.trim().split("\n").at(-1) as string;
}, SLOW);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await world?.close();
  fake?.remove();
});

describe("who sees which tools", () => {
  test("a principal without messaging sees exactly the job tools, and no child is started for it", async () => {
    expect(await toolNames("patPlain")).toEqual(JOB_TOOLS);
    expect(await toolNames("appPlain")).toEqual(JOB_TOOLS);
    expect(fake.pids()).toEqual([]);
  });

  test("each principal kind sees exactly the tools it was granted, in both protocol eras; never permissions_*", async () => {
    const expected: Record<string, string[]> = {
      static: [...JOB_TOOLS, ...READ_TOOLS].sort(),
      appPlain: JOB_TOOLS,
      appRead: [...JOB_TOOLS, ...READ_TOOLS].sort(),
      appSend: [...JOB_TOOLS, ...SEND_TOOLS].sort(),
      patPlain: JOB_TOOLS,
      patRead: [...JOB_TOOLS, ...READ_TOOLS].sort(),
      patSend: [...JOB_TOOLS, ...SEND_TOOLS].sort(),
    };
    for (const [who, names] of Object.entries(expected)) {
      expect({ who, tools: await toolNames(who) }).toEqual({ who, tools: names });
      expect({ who, tools: await toolNames(who, "modern") }).toEqual({ who, tools: names });
    }
    expect(fake.pids()).toHaveLength(1);
  });

  test("schemas and descriptions are the child's own", async () => {
    const tools = (await (await client("patSend")).listTools()).tools;
    const send = tools.find((t) => t.name === "hermes_messages_send");
    expect(send?.description).toBe("Send a text message through a platform target such as telegram:123456.");
    expect(Object.keys((send?.inputSchema as { properties: object }).properties).sort()).toEqual(["message", "target"]);
  });

  test("the consent page offers messaging as its own unticked choices, named for what they are", async () => {
    const app = await registerOk(world.url, { client_name: "Look App", redirect_uris: [APP_CALLBACK], token_endpoint_auth_method: "none" });
    const form = await consentPage(world.url, {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: APP_CALLBACK,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    expect(form.html).toContain('<input type="checkbox" name="messaging_read" value="yes">');
    expect(form.html).toContain('<input type="checkbox" name="messaging_send" value="yes">');
    expect(form.html).toContain("<strong>read your messages</strong>");
    expect(form.html).toContain("<strong>send messages as your Hermes bot</strong>");
    expect(form.html).not.toContain("checked");
  });

  test("an app that asks for messaging in its scope finds that box ticked and is told it asks; only the submitted boxes count", async () => {
    const app = await registerOk(world.url, {
      client_name: "Asking App",
      redirect_uris: [APP_CALLBACK],
      token_endpoint_auth_method: "none",
    });
    const pair = pkce();
    const form = await consentPage(world.url, {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: APP_CALLBACK,
      code_challenge: pair.challenge,
      code_challenge_method: "S256",
      scope: "hermes hermes:messages.read",
    });
    expect(form.html).toContain("This app also asks for your messages");
    expect(form.html).toContain('<input type="checkbox" name="messaging_read" value="yes" checked>');
    expect(form.html).toContain('<input type="checkbox" name="messaging_send" value="yes">');
    // The owner unticks it: the app gets the job tools only.
    const { params } = redirectParams(await submitConsent(world.url, form, PASSWORD, "approve"));
    const answer = await tokenRequest(world.url, {
      grant_type: "authorization_code",
      code: params.get("code") as string,
      redirect_uri: APP_CALLBACK,
      code_verifier: pair.verifier,
      client_id: app.client_id,
    });
    expect(answer.body.scope).toBe("hermes");
  });

  test("the consent page's scopes are what the token endpoint grants", async () => {
    expect((await appToken("Scope Reader", { messaging_read: "yes" })).scope).toBe("hermes hermes:messages.read");
    expect((await appToken("Scope Sender", { messaging_send: "yes" })).scope).toBe("hermes hermes:messages.read hermes:messages.send");
    expect((await appToken("Scope None", {})).scope).toBe("hermes");
  });

  test("a refreshed token keeps exactly the messaging its grant was approved for", async () => {
    const sender = await appToken("Refreshing Sender", { messaging_send: "yes" });
    const refreshed = await tokenRequest(world.url, {
      grant_type: "refresh_token",
      refresh_token: sender.refresh,
      client_id: sender.clientId,
    });
    expect(refreshed.body.scope).toBe("hermes hermes:messages.read hermes:messages.send");
    tokens.refreshed = refreshed.body.access_token as string;
    expect(await toolNames("refreshed")).toEqual([...JOB_TOOLS, ...SEND_TOOLS].sort());
  });

  test("calling a tool one was not granted is an unknown tool, and reaches nothing", async () => {
    const before = fake.calls().length;
    for (const [who, name] of [
      ["patPlain", "hermes_messages_read"],
      ["appPlain", "hermes_conversations_list"],
      ["patRead", "hermes_messages_send"],
      ["static", "hermes_messages_send"],
      ["patSend", "hermes_permissions_list_open"],
    ] as const) {
      const result = await outcome(await client(who), name, { target: "telegram:100", message: "x", session_key: "telegram:100" });
      expect({ who, name, error: result.error, unknown: /not found|unknown tool/i.test(result.text) }).toEqual({
        who,
        name,
        error: true,
        unknown: true,
      });
    }
    expect(fake.calls().length).toBe(before);
  });
});

describe("reading and sending", () => {
  test("a reader reads a conversation", async () => {
    const result = await outcome(await client("appRead"), "hermes_messages_read", { session_key: "telegram:100" });
    expect(result.error).toBe(false);
    expect(result.text).toContain("Are we still on for Friday?");
  });

  test("end to end: a phone-style OAuth client approved to send sends; the send is logged at INFO without its text", async () => {
    const phone = await client("appSend");
    const text = "On my way, 10 minutes — unique-phrase-4711";
    const result = await outcome(phone, "hermes_messages_send", { target: "telegram:100", message: text });
    expect(result).toEqual({ error: false, text: JSON.stringify({ sent: true, target: "telegram:100" }) });
    expect(fake.calls().at(-1)).toEqual({ tool: "messages_send", args: { target: "telegram:100", message: text } });
    const read = await outcome(phone, "hermes_messages_read", { session_key: "telegram:100" });
    expect(read.text).toContain("unique-phrase-4711");
    // INFO lines reach stderr within 50 ms (buffered).
    await until("the send's log line", () => world.daemon.logs().includes("messaging: send"));
    const infoLine = world.daemon
      .logs()
      .split("\n")
      .find((line) => line.includes("INFO") && line.includes("messaging: send"));
    expect(infoLine).toContain("target=telegram:100");
    expect(infoLine).toContain(`length=${text.length}`);
    expect(infoLine).toContain("principal=");
    expect(infoLine).not.toContain("unique-phrase-4711");
  });

  test("credentials in the child's error text are redacted before the client sees them", async () => {
    const result = await outcome(await client("patSend"), "hermes_messages_send", { target: "leak:1", message: "x" });
    expect(result.error).toBe(true);
    expect(result.text).toContain("[REDACTED]");
    for (const secret of ["abcdef1234567890XYZ", "tg-secret-123", "sk-live0123456789abcdef", "hunter2"])
      expect(result.text).not.toContain(secret);
    expect(result.text).toContain("session_key=telegram:100");
    expect(world.daemon.logs()).not.toContain("sk-fakeleak1234567890");
  });

  test("a large attachment is replaced by a note saying so; a small one comes through", async () => {
    const c = await client("patRead");
    const small = await c.callTool({ name: "hermes_attachments_fetch", arguments: { session_key: "telegram:100", message_id: "m2" } });
    expect((small.content as { type: string }[])[0]?.type).toBe("image");
    const big = await outcome(c, "hermes_attachments_fetch", { session_key: "telegram:100", message_id: "m3" });
    expect(big.text).toMatch(/image, image\/png of \d+ MiB omitted: larger than hermes-mcp's 4 MiB limit/);
  });
});

describe("the child's environment", () => {
  test("only the safe baseline and HERMES_MCP_HERMES_ENV: no daemon secret reaches it", () => {
    const env = fake.env();
    expect(env.HERMES_HOME).toBe("/tmp/hermes-home-for-test");
    expect(env.HOME).toBe(world.home);
    expect(env.PATH).toBeDefined();
    for (const name of ["HERMES_API_KEY", "OAUTH_CLIENT_SECRET", "OAUTH_CLIENT_ID", "SOME_OTHER_SECRET", "HERMES_MCP_HERMES_COMMAND"]) {
      expect({ name, present: name in env }).toEqual({ name, present: false });
    }
    const values = Object.values(env).join("\n");
    expect(values).not.toContain(world.staticSecret);
    expect(values).not.toContain("do-not-pass-me");
    expect(values).not.toContain(world.env.HERMES_API_KEY as string);
    const allowed = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TERM", "SHELL", "TMPDIR", "HERMES_HOME"];
    expect(Object.keys(env).filter((name) => !allowed.includes(name) && !name.startsWith("XDG_"))).toEqual([]);
  });
});

describe("long-polls", () => {
  test(
    "hermes_events_wait stays open across heartbeats and answers with the event that arrives",
    async () => {
      const c = await client("patRead");
      const { cursor } = JSON.parse((await outcome(c, "hermes_events_poll", { after_cursor: 0 })).text) as { cursor: number };
      const progress: string[] = [];
      setTimeout(() => fake.incoming("hello from Alice while you wait"), 2000);
      const result = await c.callTool(
        { name: "hermes_events_wait", arguments: { after_cursor: cursor, timeout_ms: 60_000 } },
        { onprogress: (p) => progress.push(p.message ?? ""), resetTimeoutOnProgress: true },
      );
      expect(textOf(result)).toContain("hello from Alice while you wait");
      expect(progress.some((line) => line.startsWith("Waiting for new messages"))).toBe(true);
      // The child's wait is kept inside hermes-mcp's per-call timeout (9 s here, less a 5 s margin).
      expect(Bun.file(`${fake.dir}/last-wait-timeout`).size).toBeGreaterThan(0);
      expect(await Bun.file(`${fake.dir}/last-wait-timeout`).text()).toBe("4000");
    },
    SLOW,
  );

  test(
    "a client's cancel ends hermes_events_wait",
    async () => {
      const c = await client("patRead");
      const controller = new AbortController();
      setTimeout(() => controller.abort("changed my mind"), 500);
      const started = c.callTool({ name: "hermes_events_wait", arguments: { timeout_ms: 2500 } }, { signal: controller.signal });
      expect(await started.then(() => "answered").catch(() => "cancelled")).toBe("cancelled");
      await until("the daemon to see the cancel", () => world.daemon.logs().includes("messaging: call cancelled"));
    },
    SLOW,
  );
});

describe("the child's tool list changes", () => {
  test(
    "tools the child withdraws disappear from tools/list, and come back",
    async () => {
      fake.hide(["events_wait", "attachments_fetch"]);
      await until("the withdrawn tools to disappear", async () => !(await toolNames("patRead")).includes("hermes_events_wait"));
      expect(await toolNames("patRead")).toEqual(
        [...JOB_TOOLS, ...READ_TOOLS.filter((n) => n !== "hermes_events_wait" && n !== "hermes_attachments_fetch")].sort(),
      );
      const withdrawn = await outcome(await client("patRead"), "hermes_events_wait", {});
      expect(withdrawn.error).toBe(true);
      fake.hide([]);
      await until("the tools to come back", async () => (await toolNames("patRead")).includes("hermes_events_wait"));
      expect(await toolNames("patSend")).toEqual([...JOB_TOOLS, ...SEND_TOOLS].sort());
    },
    SLOW,
  );
});

describe("a list change reaches a call in flight", () => {
  test(
    "a client waiting in hermes_events_wait is told notifications/tools/list_changed",
    async () => {
      const c = await client("patSend");
      let told = 0;
      c.setNotificationHandler("notifications/tools/list_changed", () => {
        told += 1;
      });
      setTimeout(() => fake.hide(["channels_list"]), 500);
      await c.callTool({ name: "hermes_events_wait", arguments: { timeout_ms: 2500 } });
      expect(told).toBeGreaterThan(0);
      fake.hide([]);
      await until("channels_list to come back", async () => (await toolNames("patRead")).includes("hermes_channels_list"));
    },
    SLOW,
  );
});

describe("a child that crashes or hangs", () => {
  test(
    "killed mid-call: a clear error, and the next call works on a restarted child",
    async () => {
      const c = await client("patRead");
      const pidsBefore = fake.pids().length;
      fake.crashOnNextCall();
      const crashed = await outcome(c, "hermes_conversations_list", {});
      expect(crashed.error).toBe(true);
      expect(crashed.text).toContain("stopped during conversations_list");
      const next = await outcome(c, "hermes_conversations_list", {});
      expect(next).toEqual({ error: false, text: expect.stringContaining("telegram:100") });
      expect(fake.pids().length).toBe(pidsBefore + 1);
      expect(world.daemon.logs()).toContain("hermes mcp serve exited unexpectedly");
    },
    SLOW,
  );

  test(
    "hung: the call times out with a clear error, the child is replaced, and the next call works",
    async () => {
      const c = await client("patRead");
      const pidsBefore = fake.pids().length;
      fake.hangOnNextCall();
      const hung = await outcome(c, "hermes_channels_list", {});
      expect(hung.error).toBe(true);
      expect(hung.text).toContain("did not answer channels_list within 9 s");
      const next = await outcome(c, "hermes_channels_list", {});
      expect(next.error).toBe(false);
      expect(fake.pids().length).toBe(pidsBefore + 1);
    },
    SLOW,
  );
});
