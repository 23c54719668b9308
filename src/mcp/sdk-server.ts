// The SDK side of the MCP endpoint: per-request SDK servers (stateless, so restarts are invisible) for both protocol eras. Loaded on first use (server.ts).
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { SERVER_INSTRUCTIONS } from "./descriptions.ts";
import { cancelCall } from "./cancellations.ts";
import { principalOf, type ToolDeps } from "./deps.ts";
import { SERVER_INFO, serverCapabilities } from "./identity.ts";
import { messagingLevelOf } from "./messaging-calls.ts";
import { registerMessagingTools } from "./messaging-tools.ts";
import type { MessagingLevel } from "../messaging/level.ts";
import { registerTaskHandlers } from "./tasks.ts";
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
  const server = new McpServer(SERVER_INFO, { capabilities: serverCapabilities(era), instructions: SERVER_INSTRUCTIONS });
  registerTools(server, deps, principal);
  if (era === "legacy") registerTaskHandlers(server, deps, principal);
  // Stateless serving answers each POST with a fresh instance, so the SDK's own per-instance cancel bookkeeping never
  // sees the request a cancel names; route it through the registry instead (MCP basic/utilities/cancellation).
  server.server.setNotificationHandler("notifications/cancelled", (notification) => {
    const requestId = notification.params.requestId;
    if (requestId !== undefined) cancelCall(deps, principal, requestId);
  });
  if (messaging === "off") return server;
  return registerMessagingTools(server, deps, principal, messaging).then(() => server);
}

/** The SDK's stateless handler for both eras, each request answered by a fresh server from `createMcpServer`. */
export function createSdkHandler(deps: ToolDeps, onError?: (error: Error) => void): ReturnType<typeof createMcpHandler> {
  return createMcpHandler(({ authInfo, era }) => createMcpServer(deps, principalOf(authInfo), era, messagingLevelOf(deps, authInfo)), {
    legacy: "stateless",
    // Stream every modern tool call as SSE so progress and keep-alives can flow through tunnels that buffer other bodies.
    responseMode: "sse",
    // SSE comment at least every 15 s: Cloudflare cuts responses silent for ~100 s.
    keepAliveMs: Math.min(15_000, deps.timeouts.heartbeatMs),
    maxRequestBodySize: 4 * 1024 * 1024,
    onerror: onError,
  });
}
