// The Hono application: /mcp (its own lean pipeline), then /healthz and the OAuth routes, all behind the Host guard.
import { Hono } from "hono";
import { LinearRouter } from "hono/router/linear-router";
import type { Config } from "../config/load.ts";
import { type Logger, logMs } from "../log.ts";
import type { McpEndpoint } from "../mcp/server.ts";
import type { TokenVerifier } from "../oauth/verify.ts";
import type { StorageAlarm } from "../store/storage-failure.ts";
import { failureResponse } from "./failure-response.ts";
import { hostGuard } from "./guards.ts";
import { createMcpRoute } from "./mcp-route.ts";
import { tunnelProbeRoutes } from "./tunnel-probe.ts";

export { MAX_BODY_BYTES } from "./mcp-route.ts";

export interface AppDeps {
  config: Config;
  log: Logger;
  verifier: TokenVerifier;
  mcp: McpEndpoint;
  /** The /mcp pipeline, when the caller also mounts it natively on Bun.serve (see daemon.ts). */
  mcpRoute?: (request: Request) => Promise<Response>;
  /** Extra routes (the OAuth authorization server) mounted at the root, behind the Host guard. */
  extraRoutes?: Hono;
  /** The per-start key behind doctor's tunnel probe (tunnel-probe.ts); no probe without it. */
  probeKey?: string;
  /** Where a request the database refused (a full disk) is told to the owner. */
  storageAlarm: StorageAlarm;
}

export function protectedResourceMetadataUrl(config: Config): string {
  return `${config.issuerUrl}/.well-known/oauth-protected-resource/mcp`;
}

export function createApp(deps: AppDeps): Hono {
  const { config, log } = deps;
  // Hono's default router compiles every route into regular expressions on the first request, hot enough to wake the
  // optimising JIT at start (≈ 3.8 MiB of idle RSS, measured). What Hono routes here is the low-traffic rest (OAuth,
  // discovery, consent, /healthz; /mcp goes through Bun's router), so a linear scan of a few dozen routes does.
  const app = new Hono({ router: new LinearRouter() });

  // Registered first, so the hot path runs none of the middleware below; it logs its own line.
  const mcpRoute = deps.mcpRoute ?? createMcpRoute({ ...deps, resourceMetadataUrl: protectedResourceMetadataUrl(config) });
  app.all("/mcp", (c) => mcpRoute(c.req.raw));

  // One INFO line per request: method, path (never the query: it may carry codes), status, duration.
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    log.info("http", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: logMs(performance.now() - started),
    });
  });

  // DNS rebinding: /healthz too answers only to our own names (it tells a page which version runs here).
  app.use(hostGuard(config.allowedHosts));
  app.get("/healthz", (c) => c.json({ status: "ok", version: config.version }));
  if (deps.extraRoutes) app.route("/", deps.extraRoutes);
  if (deps.probeKey) app.route("/", tunnelProbeRoutes(deps.probeKey));

  app.notFound((c) =>
    c.json({ error: "not_found", error_description: `nothing is served at ${c.req.path}; the MCP endpoint is /mcp` }, 404),
  );
  app.onError((error, c) => failureResponse(error, c.req.path, deps.storageAlarm, log));
  return app;
}
