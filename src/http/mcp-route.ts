// The /mcp request pipeline as plain steps (no middleware chain on the hot path): Host, Origin, bearer, body cap, MCP, one log line.
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import type { McpEndpoint } from "../mcp/server.ts";
import type { TokenVerifier } from "../oauth/verify.ts";
import { authenticate } from "./bearer.ts";
import { readBodyLimited } from "../web/body.ts";
import { rejectForeignHost, rejectForeignOrigin } from "./guards.ts";

export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface McpRouteDeps {
  config: Config;
  log: Logger;
  verifier: TokenVerifier;
  mcp: McpEndpoint;
  resourceMetadataUrl: string;
}

export function createMcpRoute(deps: McpRouteDeps): (request: Request) => Promise<Response> {
  const { config, log, verifier, mcp, resourceMetadataUrl } = deps;
  const logged = (request: Request, response: Response, started: number, client?: string): Response => {
    log.info("http", {
      method: request.method,
      path: "/mcp",
      status: response.status,
      bytes_in: Number(request.headers.get("content-length") ?? 0) || undefined,
      ms: Math.round((performance.now() - started) * 10) / 10,
      client,
    });
    return response;
  };
  return async (request) => {
    const started = performance.now();
    const rejected = rejectForeignHost(request, config.allowedHosts) ?? rejectForeignOrigin(request, config.allowedHosts);
    if (rejected) return logged(request, rejected, started);
    const auth = authenticate(request, verifier, resourceMetadataUrl);
    if (auth instanceof Response) return logged(request, auth, started);
    let body: string | undefined;
    if (request.method === "POST") {
      let text: string | null;
      try {
        text = await readBodyLimited(request, MAX_BODY_BYTES);
      } catch {
        // The client went away mid-body: its own problem, answered 400 (nobody reads it), never an unhandled 500 or an ERROR line.
        const dropped = Response.json(
          {
            jsonrpc: "2.0",
            id: null,
            error: { code: -32600, message: "the request body could not be read completely (the connection ended early)" },
          },
          { status: 400 },
        );
        return logged(request, dropped, started, auth.clientId);
      }
      if (text === null) {
        const tooLarge = Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32600, message: `request body is larger than ${MAX_BODY_BYTES / 1048576} MiB` } },
          { status: 413 },
        );
        return logged(request, tooLarge, started, auth.clientId);
      }
      body = text;
    }
    const response = await mcp.fetch(request, auth, body);
    // Tunnels (Cloudflare, nginx) must not buffer or transform the event stream, or progress never arrives.
    if (response.headers.get("content-type")?.startsWith("text/event-stream") && !response.headers.has("x-accel-buffering")) {
      response.headers.set("Cache-Control", "no-cache, no-transform");
      response.headers.set("X-Accel-Buffering", "no");
    }
    return logged(request, response, started, auth.clientId);
  };
}
