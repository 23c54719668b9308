// The fast lane must answer exactly as the SDK would: eligibility rules, and the same requests through both paths.
import { afterAll, describe, expect, test } from "bun:test";
import { fastToolCall } from "../../src/mcp/fast-calls.ts";
import { fastCallOf } from "../../src/mcp/fast-lane.ts";
import { TOOL_BY_NAME } from "../../src/mcp/tool-table.ts";
import { createLanePair } from "../support/lanes.ts";

const headers = (extra: Record<string, string> = {}) =>
  new Headers({ "content-type": "application/json", accept: "application/json, text/event-stream", ...extra });
const call = (method: string, params?: unknown, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

describe("fastCallOf", () => {
  test("takes simple 2025-era ping, tools/list, tools/call and initialize requests", () => {
    expect(fastCallOf(headers(), call("ping"))?.method).toBe("ping");
    expect(fastCallOf(headers({ "mcp-protocol-version": "2025-06-18" }), call("tools/list"))?.method).toBe("tools/list");
    expect(fastCallOf(headers(), call("tools/call", { name: "hermes_check", arguments: { job_id: "x" } }, "abc"))?.id).toBe("abc");
    expect(
      fastCallOf(headers(), call("tools/call", { name: "hermes_ask", arguments: {}, _meta: { progressToken: "p1" } }))?.progressToken,
    ).toBe("p1");
    // initialize is taken here; fast-session.ts then decides whether its params are ones it answers.
    expect(fastCallOf(headers(), call("initialize", { protocolVersion: "2025-11-25" }))?.method).toBe("initialize");
  });

  test.each([
    ["a 2026-07-28 protocol header", headers({ "mcp-protocol-version": "2026-07-28" }), call("ping")],
    ["an unknown protocol header", headers({ "mcp-protocol-version": "1999-01-01" }), call("ping")],
    ["an Accept the SDK would refuse", headers({ accept: "application/json" }), call("ping")],
    ["a non-JSON content type", headers({ "content-type": "text/plain" }), call("ping")],
    ["a notification", headers(), { jsonrpc: "2.0", method: "notifications/initialized" }],
    ["a batch", headers(), [call("ping")]],
    ["a fractional id", headers(), call("ping", undefined, 1.5)],
    ["a null id", headers(), call("ping", undefined, null)],
    [
      "a progress token that is not a string or number",
      headers(),
      call("tools/call", { name: "hermes_check", arguments: {}, _meta: { progressToken: {} } }),
    ],
    ["a 2026 envelope", headers(), call("tools/call", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } })],
    ["a fractional progress token (the SDK takes strings and integers)", headers(), call("tools/call", { _meta: { progressToken: 1.5 } })],
    ["array params", headers(), call("tools/list", [])],
    ["null params", headers(), call("ping", null)],
    ["a method the fast lane has no answer for", headers(), call("tasks/list")],
    ["wrong jsonrpc", headers(), { ...call("ping"), jsonrpc: "1.0" }],
  ])("leaves %s to the SDK", (_name, h, body) => {
    expect(fastCallOf(h, body)).toBeNull();
  });
});

describe("both paths answer alike", () => {
  const { deps, fast, slow, auth, idle, close } = createLanePair();
  afterAll(close);

  const send = async (endpoint: typeof fast, body: unknown, as: typeof auth = auth) => {
    const text = JSON.stringify(body);
    const response = await endpoint.fetch(
      new Request("http://127.0.0.1/mcp", { method: "POST", headers: headers(), body: text }),
      as,
      text,
    );
    const raw = await response.text();
    const events = [...raw.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string));
    const message = events.at(-1) ?? JSON.parse(raw);
    // The SDK checks structured results against the output schema; the fast lane does not, so every answer it gives is checked here.
    const tool = TOOL_BY_NAME.get((body as { params?: { name?: string } }).params?.name ?? "");
    if (endpoint === fast && tool && message.result?.structuredContent) tool.output.parse(message.result.structuredContent);
    if (endpoint === fast && tool) checked.add(tool.name);
    return { status: response.status, type: response.headers.get("content-type"), message, events };
  };
  const checked = new Set<string>();

  test.each([
    ["ping", call("ping")],
    ["tools/list", call("tools/list")],
    ["hermes_check of an unknown job", call("tools/call", { name: "hermes_check", arguments: { job_id: "nope" } })],
    ["hermes_cancel of an unknown job", call("tools/call", { name: "hermes_cancel", arguments: { job_id: "nope" } })],
    ["hermes_reset", call("tools/call", { name: "hermes_reset", arguments: {} })],
    ["hermes_check with bad arguments", call("tools/call", { name: "hermes_check", arguments: { job_id: 5 } })],
    ["an unknown tool", call("tools/call", { name: "hermes_fly", arguments: {} })],
    ["ping with null params", call("ping", null)],
    [
      "hermes_check with a fractional progress token",
      call("tools/call", { name: "hermes_check", arguments: {}, _meta: { progressToken: 0.5 } }),
    ],
  ])("%s", async (_name, body) => {
    const a = await send(fast, body);
    const b = await send(slow, body);
    expect(a.status).toBe(b.status);
    expect(a.type).toBe(b.type);
    const strip = (m: { result?: { _meta?: unknown } }) => ({ ...m, result: m.result ? { ...m.result, _meta: undefined } : undefined });
    expect(strip(a.message)).toEqual(strip(b.message));
  });

  test.each([
    ["a wrong type", "hermes_check", { job_id: 5 }],
    ["a missing field", "hermes_check", {}],
    ["no arguments at all", "hermes_ask", undefined],
    ["an empty prompt", "hermes_ask", { prompt: "" }],
    ["two refused fields", "hermes_ask", { prompt: 5, async_mode: "yes", session_id: 1 }],
    ["a field out of range", "hermes_check", { job_id: "x", wait_seconds: -1 }],
    ["an unknown field beside a refused one", "hermes_cancel", { job: "x" }],
    ["a job_id too long", "hermes_cancel", { job_id: "j".repeat(201) }],
  ])("arguments a tool refuses (%s) get the SDK's tool error word for word, without the SDK", async (_name, tool, args) => {
    const body = call("tools/call", { name: tool, ...(args === undefined ? {} : { arguments: args }) });
    const fastCall = fastCallOf(headers(), body);
    expect(fastCall && fastToolCall(deps, fastCall, "pat:test#0a1b2c3d", new Request("http://127.0.0.1/mcp"))).not.toBeNull();
    const a = await send(fast, body);
    const b = await send(slow, body);
    expect(a.status).toBe(b.status);
    expect(a.type).toBe(b.type);
    expect(a.message).toEqual(b.message);
    expect(a.message.result.isError).toBe(true);
  });

  test.each([
    ["null", null],
    ["an array", []],
    ["a string", "job"],
  ])("arguments that are %s are the SDK's to refuse, on either lane", async (_name, args) => {
    const body = call("tools/call", { name: "hermes_check", arguments: args });
    const fastCall = fastCallOf(headers(), body);
    expect(fastCall && fastToolCall(deps, fastCall, "pat:test#0a1b2c3d", new Request("http://127.0.0.1/mcp"))).toBeNull();
    const a = await send(fast, body);
    expect(a.message).toEqual((await send(slow, body)).message);
    expect(a.message.error.code).toBe(-32602);
  });

  test.each([
    ["with a progress token", { progressToken: "tok" }],
    ["without one (log notifications)", undefined],
  ])("a sync hermes_ask streams the same notifications and result either way, %s", async (_name, meta) => {
    const body = call("tools/call", { name: "hermes_ask", arguments: { prompt: "stream me" }, ...(meta ? { _meta: meta } : {}) });
    const a = await send(fast, body);
    const b = await send(slow, body);
    expect(a.type).toBe(b.type);
    const shape = (
      events: { method?: string; params?: Record<string, unknown>; result?: { structuredContent?: Record<string, unknown> } }[],
    ) => events.map((e) => e.method ?? { answer: e.result?.structuredContent?.answer, status: e.result?.structuredContent?.status });
    expect(shape(a.events)).toEqual(shape(b.events));
    expect(a.events.length).toBe(2);
    expect(a.events[0]).toEqual(b.events[0]);
    expect(shape(a.events).at(-1)).toEqual({ answer: "echo: stream me", status: "completed" });
  });

  test("an async hermes_ask answers the same shape either way", async () => {
    const body = call("tools/call", { name: "hermes_ask", arguments: { prompt: "x", async_mode: true } });
    const a = (await send(fast, body)).message.result.structuredContent;
    const b = (await send(slow, body)).message.result.structuredContent;
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    expect(a.status).toBe("pending");
    expect(b.status).toBe("pending");
  });

  test("live job views, cancels and resets answer alike and fit their output schemas", async () => {
    const ask = (prompt: string) => call("tools/call", { name: "hermes_ask", arguments: { prompt, async_mode: true } });
    await idle();
    const jobOf = async (endpoint: typeof fast) => (await send(endpoint, ask("hang on"))).message.result.structuredContent.job_id as string;
    const a = await jobOf(fast);
    const b = await jobOf(slow);
    await Bun.sleep(5);
    const viewOf = async (endpoint: typeof fast, name: string, id: string) =>
      (await send(endpoint, call("tools/call", { name, arguments: { job_id: id } }))).message.result.structuredContent;
    const running = await viewOf(fast, "hermes_check", a);
    expect(running.progress.current_tool).toContain("terminal");
    const same = (view: Record<string, unknown>, id: string) => ({
      ...view,
      job_id: id,
      created_at: 0,
      started_at: 0,
      finished_at: 0,
      progress: undefined,
    });
    expect(same(running, "x")).toEqual(same(await viewOf(slow, "hermes_check", b), "x"));
    const cancelled = await viewOf(fast, "hermes_cancel", a);
    expect(cancelled.status).toBe("cancelled");
    expect(same(cancelled, "x")).toEqual(same(await viewOf(slow, "hermes_cancel", b), "x"));
    const reset = await send(fast, call("tools/call", { name: "hermes_reset", arguments: {} }));
    expect(reset.message.result.structuredContent.cleared).toBeGreaterThan(0);
    expect(checked).toEqual(new Set(["hermes_ask", "hermes_check", "hermes_cancel", "hermes_reset"]));
  });

  test("a task-augmented hermes_ask is answered with the task on either lane, and tasks/get of it alike", async () => {
    await idle();
    const body = call("tools/call", { name: "hermes_ask", arguments: { prompt: "hang as a task" }, task: { ttl: 120_000 } });
    const a = await send(fast, body);
    const b = await send(slow, body);
    expect(a.type).toBe(b.type);
    const shape = (task: Record<string, unknown>) => ({ ...task, taskId: "x", createdAt: "t", lastUpdatedAt: "t", statusMessage: "m" });
    expect(a.message.result.task).toMatchObject({ status: "working", ttl: 120_000, pollInterval: 5000 });
    expect(shape(a.message.result.task)).toEqual(shape(b.message.result.task));
    const get = (id: string) => call("tasks/get", { taskId: id });
    expect(shape((await send(fast, get(a.message.result.task.taskId))).message.result)).toEqual(
      shape((await send(slow, get(b.message.result.task.taskId))).message.result),
    );
    for (const task of [a, b]) await send(fast, call("tasks/cancel", { taskId: task.message.result.task.taskId }));
  });

  test.each([
    ["a task field that does not validate", { name: "hermes_ask", arguments: { prompt: "x" }, task: { ttl: "soon" } }],
    ["arguments that do not validate", { name: "hermes_ask", arguments: { prompt: "" }, task: {} }],
    ["an unknown tool", { name: "hermes_fly", arguments: {}, task: {} }],
  ])("a task-augmented call with %s is left to the SDK on either lane", async (_name, params) => {
    const a = await send(fast, call("tools/call", params));
    const b = await send(slow, call("tools/call", params));
    expect(a.message).toEqual(b.message);
    expect(a.message.result?.task).toBeUndefined();
  });

  test("the task lane's refusal (-32601, a tool without task support) is framed as the SDK frames its own errors", async () => {
    const refused = await send(fast, call("tools/call", { name: "hermes_check", arguments: { job_id: "x" }, task: {} }));
    const sdkError = await send(fast, call("tasks/get", { taskId: "never" }));
    expect(refused.message.error.code).toBe(-32601);
    expect(sdkError.message.error.code).toBe(-32602);
    expect(refused.type).toBe(sdkError.type);
    expect(refused.status).toBe(sdkError.status);
    expect(Object.keys(refused.message).sort()).toEqual(Object.keys(sdkError.message).sort());
    expect(Object.keys(refused.message.error).sort()).toEqual(Object.keys(sdkError.message.error).sort());
  });

  test("another principal's job answers alike on both paths, as an unknown id", async () => {
    await idle();
    const mine = (await send(fast, call("tools/call", { name: "hermes_ask", arguments: { prompt: "hang mine", async_mode: true } })))
      .message.result.structuredContent.job_id;
    const other = { ...auth, extra: { principal: "pat:other#99999999" } };
    const check = call("tools/call", { name: "hermes_check", arguments: { job_id: mine } });
    const a = await send(fast, check, other);
    const b = await send(slow, check, other);
    expect(a.message.result.structuredContent).toMatchObject({ job_id: mine, status: "unknown" });
    expect(a.message.result.structuredContent).toEqual(b.message.result.structuredContent);
    expect((await send(fast, check)).message.result.structuredContent.status).toBe("running");
    await send(fast, call("tools/call", { name: "hermes_cancel", arguments: { job_id: mine } }));
  });
});
