// The /mcp request pipeline as plain steps (no middleware chain on the hot path): Host, Origin, bearer, body cap, MCP, one log line.
import type { Config } from "../config/load.ts";
import { type Logger, logMs } from "../log.ts";
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
      ms: logMs(performance.now() - started),
      client,
    });
    return response;
  };
  const tooLarge = (): Response =>
    Response.json(
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: `request body is larger than ${MAX_BODY_BYTES / 1048576} MiB` } },
      { status: 413 },
    );
  const dropped = (): Response =>
    Response.json(
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "the request body could not be read completely (the connection ended early)" },
      },
      { status: 400 },
    );
  // Synchronous wherever nothing waits: an instant answer costs no extra promise hops once the body is in.
  return (request) => {
    const started = performance.now();
    const rejected = rejectForeignHost(request, config.allowedHosts) ?? rejectForeignOrigin(request, config.allowedHosts);
    if (rejected) return Promise.resolve(logged(request, rejected, started));
    const auth = authenticate(request, verifier, resourceMetadataUrl);
    if (auth instanceof Response) return Promise.resolve(logged(request, auth, started));
    const answer = (response: Response): Response => logged(request, response, started, auth.clientId);
    const serve = (body: string | undefined): Response | Promise<Response> => {
      // (Event streams carry the no-buffering headers tunnels need: see mcp/server.ts.)
      const response = mcp.fetch(request, auth, body);
      return response instanceof Promise ? response.then(answer) : answer(response);
    };
    if (request.method !== "POST") return Promise.resolve(serve(undefined));
    return readBodyLimited(request, MAX_BODY_BYTES).then(
      (text) => (text === null ? answer(tooLarge()) : serve(text)),
      // The client went away mid-body: its own problem, answered 400 (nobody reads it), never an unhandled 500 or an ERROR line.
      () => answer(dropped()),
    );
  };
}
