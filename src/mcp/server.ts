// The MCP endpoint: per-request SDK servers (stateless, so restarts are invisible) for both protocol eras, with a fast lane for 2025-era tool calls.
import { createMcpHandler, McpServer, type AuthInfo } from "@modelcontextprotocol/server";
import { VERSION } from "../version.ts";
import { SERVER_INSTRUCTIONS } from "./descriptions.ts";
import { fastCallOf, sseResult, sseResultJson } from "./fast-lane.ts";
import { fastToolCall } from "./fast-calls.ts";
import { principalOf, type ToolDeps } from "./deps.ts";
import { messagingLevelOf, registerMessagingTools } from "./messaging-tools.ts";
import type { MessagingLevel } from "../messaging/level.ts";
import { taskToolCall } from "./task-calls.ts";
import { registerTaskHandlers, TASKS_CAPABILITY } from "./tasks.ts";
import { registerTools } from "./tools.ts";

/**
 * One server instance for one request; `principal` is who the request's token belongs to, `messaging` what its token
 * allows of Hermes's messaging tools (it sees exactly those; any other is an unknown tool). MCP tasks exist only in
 * the 2025-era protocol (2026-07-28 removed them from core), so only a legacy instance declares and serves them.
 */
export function createMcpServer(
  deps: ToolDeps,
  principal: string,
  era: "legacy" | "modern" = "legacy",
  messaging: MessagingLevel = "off",
): McpServer | Promise<McpServer> {
  const server = new McpServer(
    { name: "hermes-mcp", title: "Hermes Agent", version: VERSION },
    {
      capabilities: { logging: {}, tools: {}, ...(era === "legacy" ? { tasks: TASKS_CAPABILITY } : {}) },
      instructions: SERVER_INSTRUCTIONS,
    },
  );
  registerTools(server, deps, principal);
  if (era === "legacy") registerTaskHandlers(server, deps, principal);
  // Stateless serving answers each POST with a fresh instance, so the SDK's own per-instance cancel bookkeeping never
  // sees the request a cancel names; route it through the registry instead (MCP basic/utilities/cancellation).
  server.server.setNotificationHandler("notifications/cancelled", (notification) => {
    const requestId = notification.params.requestId;
    if (requestId === undefined) return;
    const jobId = deps.calls.find(principal, requestId);
    if (jobId) deps.jobs.stop(jobId, "client_disconnected", principal);
    else deps.messaging?.calls.cancel(principal, requestId);
  });
  if (messaging === "off") return server;
  return registerMessagingTools(server, deps, principal, messaging).then(() => server);
}

/**
 * JSON with every non-ASCII character written as its \\uXXXX escape: the same value to any JSON parser, but a one-byte
 * string, which Bun writes to the socket as is instead of transcoding UTF-16 on every answer.
 */
export function asciiJson(value: unknown): string {
  const escaped = JSON.stringify(value).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return Buffer.from(escaped, "latin1").toString("latin1");
}

export interface McpEndpoint {
  /**
   * Serves one request; `bodyText` is the POST body when the caller already read it (under its size cap). An instant
   * fast-lane answer comes back as a Response, not a Promise: nothing on that path waits.
   */
  fetch(request: Request, authInfo?: AuthInfo, bodyText?: string): Response | Promise<Response>;
  close(): Promise<void>;
}

export interface EndpointOptions {
  onError?: (error: Error) => void;
  /** Answer 2025-era ping, tools/list and tool calls without a per-request SDK server (default on; tests compare both paths). */
  fastLane?: boolean;
}

export function createMcpEndpoint(deps: ToolDeps, options: EndpointOptions = {}): McpEndpoint {
  const sdk = createMcpHandler(({ authInfo, era }) => createMcpServer(deps, principalOf(authInfo), era, messagingLevelOf(deps, authInfo)), {
    legacy: "stateless",
    // Stream every modern tool call as SSE so progress and keep-alives can flow through tunnels that buffer other bodies.
    responseMode: "sse",
    // SSE comment at least every 15 s: Cloudflare cuts responses silent for ~100 s.
    keepAliveMs: Math.min(15_000, deps.timeouts.heartbeatMs),
    maxRequestBodySize: 4 * 1024 * 1024,
    onerror: options.onError,
  });

  // Tunnels (Cloudflare, nginx) must not buffer or transform the event stream, or progress never arrives. The fast lane
  // sets these itself; the SDK's answers get them here.
  const viaSdk = async (request: Request, options: Parameters<typeof sdk.fetch>[1]): Promise<Response> => {
    const response = await sdk.fetch(request, options);
    if (response.headers.get("content-type")?.startsWith("text/event-stream") && !response.headers.has("x-accel-buffering")) {
      response.headers.set("Cache-Control", "no-cache, no-transform");
      response.headers.set("X-Accel-Buffering", "no");
    }
    return response;
  };

  // tools/list as the SDK words it, computed once per messaging level by asking the SDK itself, so the two paths can
  // never differ; kept as its JSON text (a tools/list answer then costs no serialisation); forgotten whenever the
  // messaging tools change (the child's list_changed, or its first answer).
  const toolsLists = new Map<MessagingLevel, string | Promise<string>>();
  deps.messaging?.service.onChange(() => toolsLists.clear());
  const listTools = (authInfo?: AuthInfo): string | Promise<string> => {
    const level = messagingLevelOf(deps, authInfo);
    const cached = toolsLists.get(level);
    if (cached !== undefined) return cached;
    const computed = sdk
      .fetch(
        new Request("http://hermes-mcp.internal/mcp", {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tools/list" }),
        }),
        { authInfo },
      )
      .then(async (response) => asciiJson(JSON.parse(/^data: (.*)$/m.exec(await response.text())?.[1] ?? "null").result));
    // A list made before the child ever answered is not kept: the next caller asks again.
    const keep = level === "off" || deps.messaging?.service.ready;
    if (keep) {
      toolsLists.set(level, computed);
      // Once known, answered without waiting (unless the list was forgotten meanwhile).
      void computed.then((json) => {
        if (toolsLists.get(level) === computed) toolsLists.set(level, json);
      });
    }
    return computed;
  };

  const servePost = (request: Request, authInfo: AuthInfo | undefined, text: string): Response | Promise<Response> => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // Let the SDK word the parse error.
      return viaSdk(new Request(request.url, { method: "POST", headers: request.headers, body: text }), { authInfo });
    }
    const wellFormed = fastCallOf(request.headers, body);
    // A task-augmented call is answered here whichever lane is on: the SDK cannot answer it with a task.
    if (wellFormed?.method === "tools/call" && wellFormed.params.task !== undefined) {
      return taskToolCall(deps, wellFormed, principalOf(authInfo)) ?? viaSdk(request, { authInfo, parsedBody: body });
    }
    const call = options.fastLane === false ? null : wellFormed;
    if (call?.method === "ping") return sseResult(call.id, {});
    if (call?.method === "tools/list" && call.params.cursor === undefined) {
      const json = listTools(authInfo);
      const id = call.id;
      return typeof json === "string" ? sseResultJson(id, json) : json.then((known) => sseResultJson(id, known));
    }
    if (call?.method === "tools/call") {
      const answered = fastToolCall(deps, call, principalOf(authInfo), request);
      if (answered) return answered;
    }
    return viaSdk(request, { authInfo, parsedBody: body });
  };

  return {
    fetch(request, authInfo, bodyText) {
      if (request.method !== "POST") return viaSdk(request, { authInfo });
      if (bodyText !== undefined) return servePost(request, authInfo, bodyText);
      return request.text().then((text) => servePost(request, authInfo, text));
    },
    close: () => sdk.close(),
  };
}
