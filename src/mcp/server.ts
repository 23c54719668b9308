// The MCP endpoint: a per-request McpServer (stateless, so restarts are invisible) serving both protocol eras on one URL.
import { createMcpHandler, McpServer, type McpHttpHandler } from "@modelcontextprotocol/server";
import { VERSION } from "../version.ts";
import { SERVER_INSTRUCTIONS } from "./descriptions.ts";
import { registerTools, type ToolDeps } from "./tools.ts";

export function createMcpServer(deps: ToolDeps): McpServer {
  const server = new McpServer(
    { name: "hermes-mcp", title: "Hermes Agent", version: VERSION },
    { capabilities: { logging: {}, tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );
  registerTools(server, deps);
  return server;
}

export function createMcpEndpoint(deps: ToolDeps, onError?: (error: Error) => void): McpHttpHandler {
  return createMcpHandler(() => createMcpServer(deps), {
    legacy: "stateless",
    // Stream every tool call as SSE so progress and keep-alives can flow through tunnels that buffer other bodies.
    responseMode: "sse",
    // SSE comment every 15 s: Cloudflare cuts responses silent for ~100 s.
    keepAliveMs: Math.min(15_000, deps.timeouts.heartbeatMs),
    maxRequestBodySize: 4 * 1024 * 1024,
    onerror: onError,
  });
}
