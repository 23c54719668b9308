// Wires the layers into a running daemon: store, gateway client, jobs, token verifier, MCP endpoint, HTTP server; and stops it cleanly.
import type { LoadedConfig } from "./config/load.ts";
import { GatewayClient } from "./gateway/client.ts";
import { createApp, protectedResourceMetadataUrl } from "./http/app.ts";
import { createMcpRoute } from "./http/mcp-route.ts";
import { JobService } from "./jobs/service.ts";
import type { Logger } from "./log.ts";
import { SyncCallRegistry } from "./mcp/cancellations.ts";
import { createMcpEndpoint } from "./mcp/server.ts";
import { oauthAccessTokenKind } from "./oauth/access-token-kind.ts";
import { createOAuthServer } from "./oauth/server.ts";
import { createTokenVerifier, personalTokenKind } from "./oauth/verify.ts";
import { openStore } from "./store/index.ts";

export interface RunningDaemon {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Bun closes idle connections after 10 s by default; streams send a heartbeat at most every 15 s, so allow 2 minutes. */
const IDLE_TIMEOUT_SECONDS = 120;

export function startDaemon({ config, notes, warnings }: LoadedConfig, log: Logger): RunningDaemon {
  for (const note of notes) log.info(note);
  for (const warning of warnings) log.warn(warning);

  const store = openStore(config.dbPath);
  for (const fix of store.fixes) log.warn(`database permissions tightened: ${fix}`);

  const gateway = config.gateway.apiKey
    ? new GatewayClient({ baseUrl: config.gateway.url, apiKey: config.gateway.apiKey, model: config.gateway.model, log, maxRetries: config.gateway.retries })
    : null;
  const jobs = new JobService({
    store,
    gateway,
    missingGatewayMessage: `HERMES_API_KEY is not set, so hermes-mcp cannot call the Hermes gateway — set HERMES_API_KEY to API_SERVER_KEY from ${config.paths.hermesEnvFile} and restart hermes-mcp`,
    limits: config.jobs,
    timeouts: config.timeouts,
    log,
  });
  const { recovered } = jobs.start();

  const verifier = createTokenVerifier(store, [personalTokenKind(store), oauthAccessTokenKind(store, config)]);
  const mcp = createMcpEndpoint({ jobs, log, calls: new SyncCallRegistry(), timeouts: config.timeouts }, {
    onError: (error) => log.debug("mcp request rejected", { error: error.message }),
  });
  const mcpRoute = createMcpRoute({ config, log, verifier, mcp, resourceMetadataUrl: protectedResourceMetadataUrl(config) });
  const oauth = createOAuthServer({ config, store, log, onRevoke: () => verifier.invalidate() });
  const app = createApp({ config, log, verifier, mcp, mcpRoute, extraRoutes: oauth });

  const server = Bun.serve({
    hostname: config.bind.host,
    port: config.bind.port,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    // /mcp is the hot path: Bun's native router hands it straight to its pipeline; everything else goes through Hono.
    routes: { "/mcp": mcpRoute },
    fetch: app.fetch,
    error(error) {
      log.error("request failed", { error: error.message });
      return new Response(JSON.stringify({ error: "server_error" }), { status: 500, headers: { "content-type": "application/json" } });
    },
  });
  const url = `http://${config.bind.host.includes(":") ? `[${config.bind.host}]` : config.bind.host}:${server.port}`;
  log.info("hermes-mcp listening", {
    url,
    mcp: `${config.issuerUrl}/mcp`,
    version: config.version,
    database: config.dbPath,
    gateway: config.gateway.url,
    recovered_jobs: recovered.length,
  });

  let stopping: Promise<void> | null = null;
  return {
    url,
    port: server.port as number,
    stop() {
      stopping ??= (async () => {
        log.info("shutting down: no new requests; interrupting active jobs");
        server.stop(false);
        await jobs.shutdown();
        await mcp.close().catch(() => undefined);
        server.stop(true);
        store.close();
        log.info("stopped");
      })();
      return stopping;
    },
  };
}
