// A 2025-era session's own messages (initialize, its notifications, the refused GET and DELETE) answer on the fast lane exactly as the SDK answers them.
import { afterAll, describe, expect, test } from "bun:test";
import { fastCallOf, fastNotificationOf } from "../../src/mcp/fast-lane.ts";
import { fastInitialize, fastNotification, fastSessionCall } from "../../src/mcp/fast-session.ts";
import { createLanePair } from "../support/lanes.ts";

const POST_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const CLIENT = { name: "claude-code", version: "2.1.0" };
const init = (params: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT, ...params },
  });
const deep = (depth: number): unknown => (depth === 0 ? {} : { a: deep(depth - 1) });

const { deps, jobs, fast, slow, auth, idle, close } = createLanePair();
afterAll(close);
type Endpoint = typeof fast;

/** Status, the headers a client reads, and the body of one answer. */
async function exchange(endpoint: Endpoint, method: string, body?: string, headers: Record<string, string> = POST_HEADERS, as = auth) {
  const request = new Request("http://127.0.0.1/mcp", { method, headers, body });
  const response = await endpoint.fetch(request, as, body);
  const text = await response.text();
  // An event stream's last event is the answer (any before it are notifications).
  const data = [...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1];
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    allow: response.headers.get("allow"),
    message: data ? JSON.parse(data) : text,
  };
}

describe("initialize", () => {
  // [what, body, answered by the fast lane]
  const cases: [string, string, boolean][] = [
    ...["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"].map((version): [string, string, boolean] => [
      `version ${version}`,
      init({ protocolVersion: version }),
      true,
    ]),
    ["Claude Code's capabilities", init({ capabilities: { roots: { listChanged: true }, elicitation: {} } }), true],
    ["sampling with context and tools", init({ capabilities: { sampling: { context: {}, tools: {} } } }), true],
    ["elicitation with form and url", init({ capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } } }), true],
    [
      "experimental and extensions",
      init({ capabilities: { experimental: { x: { a: [1, "b", null] } }, extensions: { "io.x/y": {} } } }),
      true,
    ],
    ["a capability nobody defined", init({ capabilities: { teleport: 5 } }), true],
    [
      "a full clientInfo",
      init({ clientInfo: { ...CLIENT, title: "Claude Code", websiteUrl: "https://claude.ai", description: "d" } }),
      true,
    ],
    ["a params key nobody defined", init({ hello: "world" }), true],
    ["a string id", init({}).replace('"id":0', '"id":"init-1"'), true],
    // The SDK's to negotiate or refuse:
    ["an unknown version", init({ protocolVersion: "1999-01-01" }), false],
    ["the 2026-07-28 version", init({ protocolVersion: "2026-07-28" }), false],
    ["a version that is not a string", init({ protocolVersion: 20251125 }), false],
    ["roots.listChanged not a boolean", init({ capabilities: { roots: { listChanged: "yes" } } }), false],
    ["no capabilities", init({ capabilities: undefined }), false],
    ["capabilities null", init({ capabilities: null }), false],
    ["sampling null", init({ capabilities: { sampling: null } }), false],
    ["an experimental capability that is an array", init({ capabilities: { experimental: { x: [] } } }), false],
    ["elicitation.form.applyDefaults not a boolean", init({ capabilities: { elicitation: { form: { applyDefaults: "yes" } } } }), false],
    ["the tasks capability", init({ capabilities: { tasks: { list: {} } } }), false],
    ["a non-finite number (1e400)", init({ capabilities: { experimental: { x: { n: 0 } } } }).replace('"n":0', '"n":1e400'), false],
    ["capabilities nested 40 deep", init({ capabilities: { experimental: { x: deep(40) } } }), false],
    ["no clientInfo", init({ clientInfo: undefined }), false],
    ["a clientInfo version that is a number", init({ clientInfo: { name: "c", version: 1 } }), false],
    ["clientInfo icons", init({ clientInfo: { ...CLIENT, icons: [{ src: "https://x/i.png" }] } }), false],
    ["a _meta", init({ _meta: { progressToken: "p" } }), false],
  ];

  test.each(cases)("%s: both lanes answer alike", async (_what, body, answeredFast) => {
    const call = fastCallOf(new Headers(POST_HEADERS), JSON.parse(body));
    expect(call !== null && fastInitialize(call) !== null).toBe(answeredFast);
    const a = await exchange(fast, "POST", body);
    const b = await exchange(slow, "POST", body);
    expect(a).toEqual(b);
    if (answeredFast) expect(a.message.result.serverInfo.name).toBe("hermes-mcp");
  });

  test.each([
    ["another 2025-era revision", "2025-06-18", true],
    ["the 2026-07-28 revision", "2026-07-28", false],
    ["an unknown revision", "1999-01-01", false],
  ])("an MCP-Protocol-Version header naming %s: both lanes answer alike", async (_what, version, answeredFast) => {
    const headers = { ...POST_HEADERS, "mcp-protocol-version": version };
    const body = init({});
    expect(fastCallOf(new Headers(headers), JSON.parse(body)) !== null).toBe(answeredFast);
    const a = await exchange(fast, "POST", body, headers);
    expect(a).toEqual(await exchange(slow, "POST", body, headers));
  });

  test("the answer names this server's capabilities, tasks included, and the version asked for", async () => {
    const { message } = await exchange(fast, "POST", init({ protocolVersion: "2025-06-18" }));
    expect(message.result.protocolVersion).toBe("2025-06-18");
    expect(message.result.capabilities).toEqual({
      logging: {},
      tools: { listChanged: true },
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
    expect(message.result.instructions).toContain("hermes_ask");
  });
});

describe("logging/setLevel and methods this server does not have", () => {
  const request = (method: string, params?: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", id: 7, method, ...(params === undefined ? {} : { params }) });
  const cases: [string, string, boolean][] = [
    ...["debug", "info", "warning", "emergency"].map((level): [string, string, boolean] => [
      `setLevel ${level}`,
      request("logging/setLevel", { level }),
      true,
    ]),
    ["setLevel with a key nobody defined", request("logging/setLevel", { level: "info", colour: "red" }), true],
    ["setLevel to a level that does not exist", request("logging/setLevel", { level: "loud" }), false],
    ["setLevel without a level", request("logging/setLevel", {}), false],
    ["setLevel without params", request("logging/setLevel"), false],
    ["setLevel with a _meta", request("logging/setLevel", { level: "info", _meta: { progressToken: 1 } }), false],
    ...["resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe"].map(
      (method): [string, string, boolean] => [
        method,
        request(method, method === "resources/read" ? { uri: "file:///x" } : undefined),
        true,
      ],
    ),
    ["prompts/list", request("prompts/list", { cursor: "abc" }), true],
    ["prompts/get", request("prompts/get", { name: "p" }), true],
    ["completion/complete", request("completion/complete", { ref: {}, argument: {} }), true],
    ["prompts/list with array params", request("prompts/list", []), false],
    ["a method nobody defined", request("teleport/now", {}), false],
  ];

  test.each(cases)("%s: both lanes answer alike", async (_what, body, answeredFast) => {
    const call = fastCallOf(new Headers(POST_HEADERS), JSON.parse(body));
    expect(call !== null && fastSessionCall(call) !== null).toBe(answeredFast);
    const a = await exchange(fast, "POST", body);
    expect(a).toEqual(await exchange(slow, "POST", body));
  });
});

describe("notifications", () => {
  const note = (method: string, params?: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  const cases: [string, string, boolean][] = [
    ["initialized", note("notifications/initialized"), true],
    ["initialized with empty params", note("notifications/initialized", {}), true],
    ["cancelled naming no call", note("notifications/cancelled", { requestId: 12345, reason: "stop" }), true],
    ["cancelled without a request id", note("notifications/cancelled", {}), true],
    ["cancelled with an object id", note("notifications/cancelled", { requestId: {} }), false],
    ["cancelled with a numeric reason", note("notifications/cancelled", { requestId: 1, reason: 5 }), false],
    ["cancelled with a fractional id", note("notifications/cancelled", { requestId: 1.5 }), false],
    ["initialized with a _meta", note("notifications/initialized", { _meta: {} }), false],
    ["a notification with an id", JSON.stringify({ jsonrpc: "2.0", id: 3, method: "notifications/initialized" }), false],
    ["roots/list_changed", note("notifications/roots/list_changed"), true],
    ["roots/list_changed with params", note("notifications/roots/list_changed", { anything: 1 }), true],
    ["a notification nobody defined", note("notifications/teleported", {}), false],
  ];

  test.each(cases)("%s: both lanes answer alike", async (_what, body, answeredFast) => {
    const notification = fastNotificationOf(new Headers(POST_HEADERS), JSON.parse(body));
    expect(notification !== null && fastNotification(deps, notification, "pat:nobody#00000000") !== null).toBe(answeredFast);
    const a = await exchange(fast, "POST", body);
    const b = await exchange(slow, "POST", body);
    expect(a).toEqual(b);
  });

  test.each([
    ["fast", fast],
    ["SDK", slow],
  ] as [string, Endpoint][])("a cancel on the %s lane stops the caller's own sync call, and only the caller's", async (_lane, endpoint) => {
    await idle();
    const ask = JSON.stringify({
      jsonrpc: "2.0",
      id: 77,
      method: "tools/call",
      params: { name: "hermes_ask", arguments: { prompt: "hang up" } },
    });
    const answer = exchange(endpoint, "POST", ask);
    while (jobs.activeCount === 0) await Bun.sleep(2);
    const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 77 } });
    // Another caller naming the same request id stops nothing (never stop someone else's work).
    const stranger = { ...auth, extra: { principal: "pat:stranger#00000000" } };
    expect((await exchange(endpoint, "POST", cancel, POST_HEADERS, stranger)).status).toBe(202);
    await Bun.sleep(20);
    expect(jobs.activeCount).toBe(1);
    expect((await exchange(endpoint, "POST", cancel)).status).toBe(202);
    const { message } = await answer;
    expect(message.result.isError).toBe(true);
    expect(message.result.content[0].text).toContain("the client cancelled or disconnected");
    expect(jobs.activeCount).toBe(0);
  });
});

describe("every method but POST", () => {
  test.each([
    ["GET for a stream", "GET", { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25" }],
    ["GET without headers", "GET", {}],
    ["GET naming 2026-07-28", "GET", { accept: "text/event-stream", "mcp-protocol-version": "2026-07-28" }],
    ["DELETE of a session", "DELETE", { "mcp-session-id": "abc", "mcp-protocol-version": "2025-11-25" }],
    ["PUT", "PUT", {}],
    ["PATCH", "PATCH", {}],
    ["HEAD", "HEAD", {}],
  ] as [string, string, Record<string, string>][])("%s: both lanes refuse alike (405, Allow: POST)", async (_what, method, headers) => {
    const a = await exchange(fast, method, undefined, headers);
    const b = await exchange(slow, method, undefined, headers);
    expect(a).toEqual(b);
    expect(a.status).toBe(405);
    expect(a.allow).toBe("POST");
  });
});
