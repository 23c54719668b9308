// The MCP endpoint: a per-request McpServer (stateless, so restarts are invisible) serving both protocol eras on one URL.
import { createMcpHandler, McpServer, type McpHttpHandler } from "@modelcontextprotocol/server";
import { VERSION } from "../version.ts";
import { SERVER_INSTRUCTIONS } from "./descriptions.ts";
import { LOCAL_PRINCIPAL, registerTools, type ToolDeps } from "./tools.ts";

/** One server instance for one request; `principal` is who the request's token belongs to. */
export function createMcpServer(deps: ToolDeps, principal: string): McpServer {
  const server = new McpServer(
    { name: "hermes-mcp", title: "Hermes Agent", version: VERSION },
    { capabilities: { logging: {}, tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );
  registerTools(server, deps);
  // Stateless serving answers each POST with a fresh instance, so the SDK's own per-instance cancel bookkeeping never
  // sees the request a cancel names; route it through the registry instead (MCP basic/utilities/cancellation).
  server.server.setNotificationHandler("notifications/cancelled", (notification) => {
    const requestId = notification.params.requestId;
    if (requestId === undefined) return;
    const jobId = deps.calls.find(principal, requestId);
    if (jobId) deps.jobs.stop(jobId, "client_disconnected");
  });
  return server;
}

export function createMcpEndpoint(deps: ToolDeps, onError?: (error: Error) => void): McpHttpHandler {
  return createMcpHandler(({ authInfo }) => createMcpServer(deps, authInfo?.clientId ?? LOCAL_PRINCIPAL), {
    legacy: "stateless",
    // Stream every tool call as SSE so progress and keep-alives can flow through tunnels that buffer other bodies.
    responseMode: "sse",
    // SSE comment every 15 s: Cloudflare cuts responses silent for ~100 s.
    keepAliveMs: Math.min(15_000, deps.timeouts.heartbeatMs),
    maxRequestBodySize: 4 * 1024 * 1024,
    onerror: onError,
  });
}
