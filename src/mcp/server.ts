// The MCP endpoint: a fast lane for 2025-era sessions and calls; the SDK (sdk-server.ts) for everything else, loaded on first use.
import type { AuthInfo } from "@modelcontextprotocol/server";
import { fastCallOf, fastNotificationOf, sseResult, sseResultJson } from "./fast-lane.ts";
import { fastToolCall } from "./fast-calls.ts";
import { fastNotification, fastSessionCall, methodNotAllowed } from "./fast-session.ts";
import { principalOf, type ToolDeps } from "./deps.ts";
import { messagingLevelOf } from "./messaging-calls.ts";
import type { MessagingLevel } from "../messaging/level.ts";
import type { createSdkHandler } from "./sdk-server.ts";
import { taskToolCall } from "./task-calls.ts";
import { toolsListResult } from "./tools-list.ts";

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
  /**
   * Answer a 2025-era session (initialize, logging/setLevel, methods this server lacks, ping, tools/list, tool calls, its
   * notifications, the 405 to GET and DELETE) without a per-request SDK server (default on; tests compare both paths).
   */
  fastLane?: boolean;
}

type SdkHandler = ReturnType<typeof createSdkHandler>;

export function createMcpEndpoint(deps: ToolDeps, options: EndpointOptions = {}): McpEndpoint {
  // The SDK and its schemas are evaluated only when a request first needs them (6–8 MiB of an idle daemon's memory,
  // bench/memory.ts): a daemon nobody used, or one only 2025-era sessions reach (fast-session.ts), never pays for it.
  // Loaded once, kept.
  let sdkLoading: Promise<SdkHandler> | null = null;
  const sdk = (): Promise<SdkHandler> =>
    (sdkLoading ??= import("./sdk-server.ts").then((module) => module.createSdkHandler(deps, options.onError)));

  // Tunnels (Cloudflare, nginx) must not buffer or transform the event stream, or progress never arrives. The fast lane
  // sets these itself; the SDK's answers get them here.
  const viaSdk = async (request: Request, options: Parameters<SdkHandler["fetch"]>[1]): Promise<Response> => {
    const response = await (await sdk()).fetch(request, options);
    if (response.headers.get("content-type")?.startsWith("text/event-stream") && !response.headers.has("x-accel-buffering")) {
      response.headers.set("Cache-Control", "no-cache, no-transform");
      response.headers.set("X-Accel-Buffering", "no");
    }
    return response;
  };

  // tools/list as the SDK words it, kept as its JSON text (a tools/list answer then costs no serialisation). Without
  // messaging, the table's own list (tools-list.ts, proven equal to the SDK's), so listing never loads the SDK. With
  // messaging tools, computed once per level by asking the SDK itself, and forgotten whenever they change (the child's
  // list_changed, or its first answer).
  let tableList: string | null = null;
  const toolsLists = new Map<MessagingLevel, string | Promise<string>>();
  deps.messaging?.service.onChange(() => toolsLists.clear());
  const listTools = (authInfo?: AuthInfo): string | Promise<string> => {
    const level = messagingLevelOf(deps, authInfo);
    if (level === "off") return (tableList ??= asciiJson(toolsListResult(deps)));
    const cached = toolsLists.get(level);
    if (cached !== undefined) return cached;
    const computed = sdk()
      .then((handler) =>
        handler.fetch(
          new Request("http://hermes-mcp.internal/mcp", {
            method: "POST",
            headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tools/list" }),
          }),
          { authInfo },
        ),
      )
      .then(async (response) => asciiJson(JSON.parse(/^data: (.*)$/m.exec(await response.text())?.[1] ?? "null").result));
    // A list made before the child ever answered is not kept: the next caller asks again.
    const keep = deps.messaging?.service.ready;
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
    const session = call && fastSessionCall(call);
    if (session) return session;
    if (call === null && options.fastLane !== false) {
      const notification = fastNotificationOf(request.headers, body);
      const answered = notification && fastNotification(deps, notification, principalOf(authInfo));
      if (answered) return answered;
    }
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
      if (request.method !== "POST") return options.fastLane === false ? viaSdk(request, { authInfo }) : methodNotAllowed();
      if (bodyText !== undefined) return servePost(request, authInfo, bodyText);
      return request.text().then((text) => servePost(request, authInfo, text));
    },
    close: async () => {
      // Never loaded: nothing to close (a load that failed has nothing either).
      await (await sdkLoading?.catch(() => null))?.close();
    },
  };
}
