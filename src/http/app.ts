// The Hono application: health, MCP behind Host/Origin guards, bearer auth and a body limit, plus the OAuth routes.
import type { McpHttpHandler } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import type { TokenVerifier } from "../oauth/verify.ts";
import { bearerAuth, type BearerEnv } from "./bearer.ts";
import { hostGuard, originGuard } from "./guards.ts";

export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface AppDeps {
  config: Config;
  log: Logger;
  verifier: TokenVerifier;
  mcp: McpHttpHandler;
  /** Extra routes (the OAuth authorization server) mounted at the root, behind the Host guard. */
  extraRoutes?: Hono;
}

export function protectedResourceMetadataUrl(config: Config): string {
  return `${config.issuerUrl}/.well-known/oauth-protected-resource/mcp`;
}

export function createApp(deps: AppDeps): Hono<BearerEnv> {
  const { config, log } = deps;
  const app = new Hono<BearerEnv>();

  // One INFO line per request: method, path (never the query: it may carry codes), status, size, duration.
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    log.info("http", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      bytes_in: Number(c.req.header("content-length") ?? 0) || undefined,
      ms: Math.round((performance.now() - started) * 10) / 10,
      client: c.get("auth")?.clientId,
    });
  });

  app.get("/healthz", (c) => c.json({ status: "ok", version: config.version }));

  app.use(hostGuard(config.allowedHosts));
  if (deps.extraRoutes) app.route("/", deps.extraRoutes);

  app.use("/mcp", originGuard(config.allowedHosts));
  app.use("/mcp", bearerAuth(deps.verifier, protectedResourceMetadataUrl(config)));
  app.use(
    "/mcp",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `request body is larger than ${MAX_BODY_BYTES / 1048576} MiB` } }, 413),
    }),
  );
  app.all("/mcp", async (c) => {
    const response = await deps.mcp.fetch(c.req.raw, { authInfo: c.get("auth") });
    // Tunnels (Cloudflare, nginx) must not buffer or transform the event stream, or progress never arrives.
    if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
      response.headers.set("Cache-Control", "no-cache, no-transform");
      response.headers.set("X-Accel-Buffering", "no");
    }
    return response;
  });

  app.notFound((c) => c.json({ error: "not_found", error_description: `nothing is served at ${c.req.path}; the MCP endpoint is /mcp` }, 404));
  app.onError((error, c) => {
    log.error("unhandled error", { path: c.req.path, error: error.message });
    return c.json({ error: "server_error", error_description: "internal error; see the hermes-mcp log" }, 500);
  });
  return app;
}
