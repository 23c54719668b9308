// The four tools end to end: the SDK's real client, over HTTP, against the real daemon and the fake gateway — in both protocol eras.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { structuredOf, textOf, type Era } from "../support/mcp-client.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld({ HERMES_MCP_SYNC_BUDGET_SECONDS: "1", HERMES_MCP_HEARTBEAT_SECONDS: "1", HERMES_MCP_GATEWAY_RETRIES: "2" });
});
afterAll(async () => {
  await world.close();
});

const ask = (client: Client, args: Record<string, unknown>, onprogress?: (p: { message?: string }) => void) =>
  client.callTool({ name: "hermes_ask", arguments: args }, onprogress ? { onprogress } : undefined);
const check = async (client: Client, job_id: string, wait_seconds?: number) =>
  structuredOf(
    await client.callTool({ name: "hermes_check", arguments: wait_seconds === undefined ? { job_id } : { job_id, wait_seconds } }),
  );

describe.each(["legacy", "modern"] as Era[])("tools over the %s protocol", (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await world.client(era);
  });

  test("lists exactly the four tools, with annotations and output schemas, and no `toolsets`", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["hermes_ask", "hermes_cancel", "hermes_check", "hermes_reset"]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.hermes_ask?.annotations?.openWorldHint).toBe(true);
    expect(byName.hermes_check?.annotations?.readOnlyHint).toBe(true);
    expect(byName.hermes_cancel?.annotations?.destructiveHint).toBe(true);
    expect(byName.hermes_reset?.annotations?.destructiveHint).toBe(true);
    for (const tool of tools) expect(tool.outputSchema?.type).toBe("object");
    expect(Object.keys(byName.hermes_ask?.inputSchema.properties ?? {}).sort()).toEqual(["async_mode", "prompt", "session_id"]);
    expect(byName.hermes_ask?.description).toContain("async_mode");
    expect(byName.hermes_cancel?.description).toContain("interrupt");
  });

  test("a sync ask returns the answer, as structured content and the same JSON as text", async () => {
    const result = await ask(client, { prompt: `hello from ${era}` });
    expect(result.isError).toBeFalsy();
    const out = structuredOf(result);
    expect(out).toMatchObject({ status: "completed", answer: `echo: hello from ${era}` });
    expect(JSON.parse(textOf(result))).toEqual(out);
    const chat = world.gateway.chats.at(-1);
    expect(chat?.hasOrigin).toBe(false);
    expect(chat?.stream).toBe(true);
    expect(chat?.headers.authorization).toBe(`Bearer ${world.env.HERMES_API_KEY}`);
  });

  test("a session label threads through the gateway's own session id, even when it rotates", async () => {
    const label = `trip-${era}`;
    await ask(client, { prompt: "first", session_id: label });
    const first = world.gateway.chats.at(-1);
    expect(first?.sessionIdSent).toBeNull();
    await ask(client, { prompt: "second [[rotate]]", session_id: label });
    const second = world.gateway.chats.at(-1);
    expect(second?.sessionIdSent).toBe(first?.sessionIdReturned as string);
    expect(second?.sessionIdReturned).not.toBe(second?.sessionIdSent);
    await ask(client, { prompt: "third", session_id: label });
    expect(world.gateway.chats.at(-1)?.sessionIdSent).toBe(second?.sessionIdReturned as string);
    const out = structuredOf(await ask(client, { prompt: "unlabelled" }));
    expect(out.session_id).toBeNull();
  });

  test("the original's `toolsets` argument is tolerated", async () => {
    const result = await ask(client, { prompt: "with toolsets", toolsets: ["web", "terminal"] });
    expect(structuredOf(result).status).toBe("completed");
  });

  test("Hermes tool events arrive as progress notifications during a sync call", async () => {
    const messages: string[] = [];
    const result = await ask(client, { prompt: "research [[tools:2]] [[step:40]]" }, (p) => messages.push(p.message ?? ""));
    expect(structuredOf(result).status).toBe("completed");
    expect(messages.length).toBeGreaterThanOrEqual(4);
    expect(messages[0]).toContain("🔎 web_search");
    expect(messages[0]).toContain("(running)");
    expect(messages.some((m) => m.includes("(completed)"))).toBe(true);
  });

  test("async returns a pending job at once; check reports it running with progress, then completed", async () => {
    const started = performance.now();
    const result = await ask(client, { prompt: "long job [[tools:3]] [[step:300]]", async_mode: true, session_id: "async-label" });
    expect(performance.now() - started).toBeLessThan(800);
    const { job_id, status } = structuredOf(result) as { job_id: string; status: string };
    expect(status).toBe("pending");
    await Bun.sleep(450);
    const running = await check(client, job_id);
    expect(running.status).toBe("running");
    const progress = running.progress as {
      elapsed_seconds: number;
      current_tool: string | null;
      recent_events: string[];
      tool_events: number;
    };
    expect(progress.tool_events).toBeGreaterThanOrEqual(1);
    expect(progress.recent_events.length).toBeGreaterThanOrEqual(1);
    const done = await check(client, job_id, 10);
    expect(done).toMatchObject({
      job_id,
      status: "completed",
      result: "echo: long job",
      session_id: "async-label",
      prompt_chars: "long job [[tools:3]] [[step:300]]".length,
    });
    expect(typeof done.created_at).toBe("number");
    expect((done.finished_at as number) >= (done.created_at as number)).toBe(true);
    expect(done.progress).toBeUndefined();
  });

  test("a sync call that outlives its budget becomes a job instead of an error, and is not started twice", async () => {
    const before = world.gateway.chats.length;
    const result = await ask(client, { prompt: "slow task [[delay:2000]]" });
    expect(result.isError).toBeFalsy();
    const out = structuredOf(result) as { job_id: string; status: string; note: string };
    expect(out.status).toBe("running");
    expect(out.note).toContain("hermes_check");
    // Long-poll: returns as soon as the job ends, well before the wait is over.
    const started = performance.now();
    const done = await check(client, out.job_id, 20);
    expect(done.status).toBe("completed");
    expect(performance.now() - started).toBeLessThan(5000);
    expect(world.gateway.chats.length).toBe(before + 1);
  });

  test("check with wait_seconds returns the current state when the time is up", async () => {
    const { job_id } = structuredOf(await ask(client, { prompt: "[[delay:3000]]", async_mode: true })) as { job_id: string };
    const started = performance.now();
    const view = await check(client, job_id, 1);
    expect(view.status).toBe("running");
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    await client.callTool({ name: "hermes_cancel", arguments: { job_id } });
  });

  test("cancel stops a running job at the gateway (seen as a disconnect) and records why; a second cancel changes nothing", async () => {
    const { job_id } = structuredOf(await ask(client, { prompt: `cancel me ${era} [[hang]]`, async_mode: true })) as { job_id: string };
    await world.gateway.waitFor(() => world.gateway.chats.some((c) => c.prompt?.includes(`cancel me ${era}`)), 3000, "chat to arrive");
    const disconnectsBefore = world.gateway.disconnects;
    const cancelled = structuredOf(await client.callTool({ name: "hermes_cancel", arguments: { job_id } }));
    expect(cancelled).toMatchObject({ job_id, status: "cancelled", end_reason: "cancelled" });
    expect(cancelled.error as string).toContain("interrupt");
    await world.gateway.waitForDisconnect(3000, disconnectsBefore + 1);
    expect(world.gateway.chats.find((c) => c.prompt?.includes(`cancel me ${era}`))?.outcome).toBe("disconnected");
    const again = structuredOf(await client.callTool({ name: "hermes_cancel", arguments: { job_id } }));
    expect(again).toEqual(cancelled);
  });

  test("cancelling a finished job returns it unchanged; unknown ids say so", async () => {
    const { job_id } = structuredOf(await ask(client, { prompt: "quick" })) as { job_id: string };
    const view = structuredOf(await client.callTool({ name: "hermes_cancel", arguments: { job_id } }));
    expect(view).toMatchObject({ status: "completed", result: "echo: quick" });
    const unknown = await check(client, "no-such-job");
    expect(unknown).toMatchObject({ job_id: "no-such-job", status: "unknown" });
    expect(unknown.error as string).toContain("never issued");
  });

  test("bad arguments are refused with a message the model can act on", async () => {
    const empty = await ask(client, { prompt: "" });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toContain("prompt must not be empty");
    // Told once what is wrong, not also that an empty prompt is blank.
    expect(textOf(empty)).not.toContain("only spaces");
    const blank = await ask(client, { prompt: " \n\t " });
    expect(blank.isError).toBe(true);
    expect(textOf(blank)).toContain("prompt must not be only spaces or blank lines");
    const long = await ask(client, { prompt: "x".repeat(70_000) });
    expect(long.isError).toBe(true);
    expect(textOf(long)).toContain("65536");
    const missing = await client.callTool({ name: "hermes_check", arguments: {} });
    expect(missing.isError).toBe(true);
  });

  test("session labels with bidi controls, line separators or C1 controls are refused, saying why", async () => {
    const cases: [string, string][] = [
      ["trip\u202Eevil", "bidirectional controls"],
      ["trip\u2066x\u2069", "bidirectional controls"],
      ["trip\u200F", "bidirectional controls"],
      ["trip\u061C", "bidirectional controls"],
      ["trip\u2028two", "line/paragraph separators"],
      ["trip\u2029two", "line/paragraph separators"],
      ["trip\u0085two", "control characters"],
      ["trip\u009Bcsi", "control characters"],
      ["trip\nline", "control characters"],
    ];
    const before = world.gateway.chats.length;
    for (const [session_id, why] of cases) {
      const result = await ask(client, { prompt: "labelled", session_id });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(why);
    }
    expect(world.gateway.chats.length).toBe(before);
    expect(structuredOf(await ask(client, { prompt: "plain label", session_id: "trip-2026 (Zürich) — 東京" })).status).toBe("completed");
  });
});

describe("gateway failures reach the caller as one clear sentence", () => {
  let client: Client;
  beforeAll(async () => {
    client = await world.client();
  });

  const failureOf = async (prompt: string): Promise<string> => {
    const result = await ask(client, { prompt });
    expect(result.isError).toBe(true);
    return textOf(result);
  };

  test("429 is retried honouring Retry-After, then succeeds", async () => {
    const result = await ask(client, { prompt: "busy once [[status:429]] [[fail-times:1]] [[retry-after:0.2]]" });
    expect(structuredOf(result).status).toBe("completed");
    expect(world.gateway.chats.filter((c) => c.prompt?.startsWith("busy once")).length).toBe(2);
  });

  test("429 that persists → busy", async () => {
    expect(await failureOf("busy [[status:429]] [[retry-after:0.1]]")).toContain("Hermes gateway is busy");
  });

  test("503 that persists → draining", async () => {
    expect(await failureOf("draining [[status:503]] [[retry-after:0.1]]")).toContain("draining");
  });

  test("502 agent_incomplete → incomplete run", async () => {
    expect(await failureOf("[[status:502]]")).toContain("Hermes run was incomplete");
  });

  test("a partial run is not a success, and its partial text is kept", async () => {
    const text = await failureOf("partial answer please [[partial]]");
    expect(text).toContain("incomplete");
    expect(text).toContain("partial_result");
  });

  test("a stream cut mid-answer → incomplete", async () => {
    expect(await failureOf("cut [[drop]]")).toContain("incomplete");
  });

  test("a malformed body → unexpected response", async () => {
    expect(await failureOf("[[malformed]]")).toContain("unexpected response from the gateway");
  });

  test("400, 413 and 500 are named by status without echoing the gateway's body", async () => {
    const rejected = await failureOf("[[status:400]]");
    expect(rejected).toContain("rejected the request (400)");
    expect(await failureOf("[[status:413]]")).toContain("413");
    const failed = await failureOf("[[status:500]]");
    expect(failed).toContain("failed (500)");
    for (const text of [rejected, failed]) expect(text.toLowerCase()).not.toContain("traceback");
  });

  test("a failed async job keeps the error in hermes_check", async () => {
    const { job_id } = structuredOf(await ask(client, { prompt: "[[status:502]]", async_mode: true })) as { job_id: string };
    const view = await check(client, job_id, 5);
    expect(view).toMatchObject({ status: "failed" });
    expect(view.error as string).toContain("incomplete");
  });
});

describe("hermes_reset", () => {
  test("clears every job of the caller, counted by status, and interrupts the active ones at the gateway", async () => {
    const client = await world.client();
    await client.callTool({ name: "hermes_reset", arguments: {} });
    await ask(client, { prompt: "done before reset" });
    const a = structuredOf(await ask(client, { prompt: "reset-hang-a [[hang]]", async_mode: true })) as { job_id: string };
    await ask(client, { prompt: "reset-hang-b [[hang]]", async_mode: true });
    await world.gateway.waitFor(
      () => world.gateway.chats.filter((c) => c.prompt?.startsWith("reset-hang") && c.outcome === "open").length === 2,
      3000,
      "two hanging chats",
    );
    const before = world.gateway.disconnects;
    const out = structuredOf(await client.callTool({ name: "hermes_reset", arguments: {} }));
    expect(out).toEqual({ cleared: 3, by_status: { completed: 1, running: 2 } });
    await world.gateway.waitForDisconnect(3000, before + 2);
    expect((await check(client, a.job_id)).status).toBe("unknown");
    expect(structuredOf(await client.callTool({ name: "hermes_reset", arguments: {} }))).toEqual({ cleared: 0, by_status: {} });
  });
});
