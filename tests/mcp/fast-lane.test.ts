// The fast lane must answer exactly as the SDK would: eligibility rules, and the same requests through both paths.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobService } from "../../src/jobs/service.ts";
import { silentLogger } from "../../src/log.ts";
import { SyncCallRegistry } from "../../src/mcp/cancellations.ts";
import { fastCallOf } from "../../src/mcp/fast-lane.ts";
import { createMcpEndpoint } from "../../src/mcp/server.ts";
import { openStore } from "../../src/store/index.ts";

const headers = (extra: Record<string, string> = {}) =>
  new Headers({ "content-type": "application/json", accept: "application/json, text/event-stream", ...extra });
const call = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

describe("fastCallOf", () => {
  test("takes simple 2025-era ping, tools/list and tools/call requests", () => {
    expect(fastCallOf(headers(), call("ping"))?.method).toBe("ping");
    expect(fastCallOf(headers({ "mcp-protocol-version": "2025-06-18" }), call("tools/list"))?.method).toBe("tools/list");
    expect(fastCallOf(headers(), call("tools/call", { name: "hermes_check", arguments: { job_id: "x" } }, "abc"))?.id).toBe("abc");
    expect(fastCallOf(headers(), call("tools/call", { name: "hermes_ask", arguments: {}, _meta: { progressToken: "p1" } }))?.progressToken).toBe("p1");
  });

  test.each([
    ["a 2026-07-28 protocol header", headers({ "mcp-protocol-version": "2026-07-28" }), call("ping")],
    ["an unknown protocol header", headers({ "mcp-protocol-version": "1999-01-01" }), call("ping")],
    ["an Accept the SDK would refuse", headers({ accept: "application/json" }), call("ping")],
    ["a non-JSON content type", headers({ "content-type": "text/plain" }), call("ping")],
    ["initialize", headers(), call("initialize", {})],
    ["a notification", headers(), { jsonrpc: "2.0", method: "notifications/initialized" }],
    ["a batch", headers(), [call("ping")]],
    ["a fractional id", headers(), call("ping", undefined, 1.5)],
    ["a null id", headers(), call("ping", undefined, null)],
    ["a progress token that is not a string or number", headers(), call("tools/call", { name: "hermes_check", arguments: {}, _meta: { progressToken: {} } })],
    ["a 2026 envelope", headers(), call("tools/call", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } })],
    ["array params", headers(), call("tools/list", [])],
    ["wrong jsonrpc", headers(), { ...call("ping"), jsonrpc: "1.0" }],
  ])("leaves %s to the SDK", (_name, h, body) => {
    expect(fastCallOf(h, body)).toBeNull();
  });
});

describe("both paths answer alike", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-fastlane-"));
  const store = openStore(join(dir, "db.sqlite"));
  const jobs = new JobService({
    store,
    gateway: {
      chat: async (request) => {
        if (request.prompt.startsWith("hang")) return new Promise(() => {});
        await Bun.sleep(2);
        request.onEvent?.({ type: "tool", tool: "web_search", status: "running", emoji: "🔎", label: "x" });
        await Bun.sleep(5);
        return { text: `echo: ${request.prompt}`, sessionId: "api-1", finishReason: "stop" };
      },
    },
    limits: { maxConcurrent: 2, maxQueued: 5, maxStored: 100, retentionMs: 3_600_000 },
    timeouts: { requestMs: 60_000, jobMs: 60_000 },
    log: silentLogger,
  });
  const deps = { jobs, log: silentLogger, calls: new SyncCallRegistry(), timeouts: { syncBudgetMs: 45_000, requestMs: 60_000, heartbeatMs: 15_000, maxWaitMs: 50_000 } };
  const fast = createMcpEndpoint(deps);
  const slow = createMcpEndpoint(deps, { fastLane: false });
  const auth = { token: "t", clientId: "pat:test", scopes: [] };
  afterAll(async () => {
    await jobs.shutdown(0);
    await fast.close();
    await slow.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const send = async (endpoint: typeof fast, body: unknown) => {
    const text = JSON.stringify(body);
    const response = await endpoint.fetch(new Request("http://127.0.0.1/mcp", { method: "POST", headers: headers(), body: text }), auth, text);
    const raw = await response.text();
    const events = [...raw.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string));
    return { status: response.status, type: response.headers.get("content-type"), message: events.at(-1) ?? JSON.parse(raw), events };
  };

  test.each([
    ["ping", call("ping")],
    ["tools/list", call("tools/list")],
    ["hermes_check of an unknown job", call("tools/call", { name: "hermes_check", arguments: { job_id: "nope" } })],
    ["hermes_cancel of an unknown job", call("tools/call", { name: "hermes_cancel", arguments: { job_id: "nope" } })],
    ["hermes_reset", call("tools/call", { name: "hermes_reset", arguments: {} })],
    ["hermes_check with bad arguments", call("tools/call", { name: "hermes_check", arguments: { job_id: 5 } })],
    ["an unknown tool", call("tools/call", { name: "hermes_fly", arguments: {} })],
  ])("%s", async (_name, body) => {
    const a = await send(fast, body);
    const b = await send(slow, body);
    expect(a.status).toBe(b.status);
    expect(a.type).toBe(b.type);
    const strip = (m: { result?: { _meta?: unknown } }) => ({ ...m, result: m.result ? { ...m.result, _meta: undefined } : undefined });
    expect(strip(a.message)).toEqual(strip(b.message));
  });

  test.each([
    ["with a progress token", { progressToken: "tok" }],
    ["without one (log notifications)", undefined],
  ])("a sync hermes_ask streams the same notifications and result either way, %s", async (_name, meta) => {
    const body = call("tools/call", { name: "hermes_ask", arguments: { prompt: "stream me" }, ...(meta ? { _meta: meta } : {}) });
    const a = await send(fast, body);
    const b = await send(slow, body);
    expect(a.type).toBe(b.type);
    const shape = (events: { method?: string; params?: Record<string, unknown>; result?: { structuredContent?: Record<string, unknown> } }[]) =>
      events.map((e) => e.method ?? { answer: e.result?.structuredContent?.answer, status: e.result?.structuredContent?.status });
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
});
