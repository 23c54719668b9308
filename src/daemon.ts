// Wires the layers into a running daemon: the database lock, store, HTTP server, gateway client, jobs, token verifier, MCP endpoint; and stops it cleanly.
import type { Server } from "bun";
import { randomBytes } from "./crypto/primitives.ts";
import { type Config, type LoadedConfig, withBoundPort } from "./config/load.ts";
import { GatewayClient } from "./gateway/client.ts";
import { closeIdleGatewayConnections } from "./gateway/http1.ts";
import { createApp, protectedResourceMetadataUrl } from "./http/app.ts";
import { shellCommand } from "./shell-word.ts";
import { StartSteps } from "./start-steps.ts";
import { createMcpRoute } from "./http/mcp-route.ts";
import { JobService } from "./jobs/service.ts";
import { type GcPacing, gcPacingFor } from "./gc-pacing.ts";
import { idleCollector } from "./idle-collector.ts";
import type { Logger } from "./log.ts";
import { memoryGiveBack } from "./memory-give-back.ts";
import { SyncCallRegistry } from "./mcp/cancellations.ts";
import { MessagingCallRegistry } from "./mcp/messaging-calls.ts";
import { MessagingService } from "./messaging/service.ts";
import { createMcpEndpoint } from "./mcp/server.ts";
import { oauthAccessTokenKind } from "./oauth/access-token-kind.ts";
import { createOAuthServer } from "./oauth/server.ts";
import { createTokenVerifier, personalTokenKind } from "./oauth/verify.ts";
import { copyInto, fileStamp } from "./store/backup.ts";
import { acquireDaemonLock, type DaemonLock } from "./store/daemon-lock.ts";
import { type FileChange, fileIdentity } from "./store/file-identity.ts";
import { openStore, type Store } from "./store/index.ts";
import { StoreError } from "./store/database.ts";
import { StorageAlarm, startRefusal } from "./store/storage-failure.ts";
import { failureResponse } from "./http/failure-response.ts";
import { hostPort } from "./web/host-port.ts";

export interface RunningDaemon {
  url: string;
  port: number;
  /** The configuration in force: with BIND_PORT=0, the port (and default issuer) actually bound. */
  config: Config;
  stop(): Promise<void>;
}

/** Bun closes idle connections after 10 s by default; streams send a heartbeat at most every 15 s, so allow 2 minutes. */
const IDLE_TIMEOUT_SECONDS = 120;

/** What the command running the daemon may hook into (serve tunes the JIT with them). */
export interface DaemonHooks {
  /** Called when the first request reaches /mcp (whoever sent it), and again by the first one after each quiet spell. */
  onServing?: () => void;
  /** Called each time the daemon goes quiet, before it gives memory back (start-up's quiet included). */
  onQuiet?: () => void;
  /** Called once when the database file was found deleted or replaced (its contents already saved and logged): stop. */
  onDatabaseLost?: () => void;
  /** Serve's start so far: the daemon times its own steps after them and logs them all at DEBUG once it listens. */
  steps?: StartSteps;
  /** Collections while busy (default: gcPacingFor(), which paces only when Bun's own GC timer is off). */
  pacing?: GcPacing;
}

export function startDaemon(loaded: LoadedConfig, log: Logger, hooks: DaemonHooks = {}): RunningDaemon {
  // One daemon per database, before anything is read, changed or said: a second `serve` must not fail the first one's
  // live jobs, nor log that it serves.
  const steps = hooks.steps ?? new StartSteps(performance.now());
  const lock = acquireDaemonLock(loaded.config.dbPath, loaded.config.bind.host);
  for (const note of loaded.notes) log.info(note);
  for (const warning of loaded.warnings) log.warn(warning);
  // (The lock, then what the settings have to say: the first log line's cost lands here, not on the database.)
  steps.done("lock");
  let store: Store | null = null;
  let server: Server<undefined> | null = null;
  try {
    store = openStore(loaded.config.dbPath);
    steps.done("database");
    for (const fix of store.fixes) log.warn(`database permissions tightened: ${fix}`);
    // Bind before recovering jobs: a taken port changes nothing. Requests wait for the real handlers below.
    server = Bun.serve({
      hostname: loaded.config.bind.host,
      port: loaded.config.bind.port,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      routes: { "/mcp": starting },
      fetch: starting,
    });
    steps.done("listen");
    return serveOn(withBoundPort(loaded.config, server.port as number), store, server, lock, log, hooks, steps);
  } catch (error) {
    server?.stop(true);
    store?.close();
    lock.release();
    const refusal = startRefusal(error, loaded.config.dbPath);
    throw refusal ? new StoreError(refusal) : error;
  }
}

const starting = (): Response =>
  Response.json(
    { error: "starting", error_description: "hermes-mcp is starting; try again in a moment" },
    { status: 503, headers: { "retry-after": "1" } },
  );

/** Builds every layer on the bound port's configuration, recovers interrupted jobs, then hands the server its real handlers. */
function serveOn(
  config: Config,
  store: Store,
  server: Server<undefined>,
  lock: DaemonLock,
  log: Logger,
  hooks: DaemonHooks,
  steps: StartSteps,
): RunningDaemon {
  const gateway = config.gateway.apiKey
    ? new GatewayClient({
        baseUrl: config.gateway.url,
        apiKey: config.gateway.apiKey,
        model: config.gateway.model,
        log,
        maxRetries: config.gateway.retries,
      })
    : null;
  const storageAlarm = new StorageAlarm(log, config.dbPath, Date.now, store.lockWait);
  const jobs = new JobService({
    store,
    storageAlarm,
    gateway,
    missingGatewayMessage: `HERMES_API_KEY is not set, so hermes-mcp cannot call the Hermes gateway — set HERMES_API_KEY to API_SERVER_KEY from ${config.paths.hermesEnvFile} and restart hermes-mcp`,
    limits: config.jobs,
    timeouts: config.timeouts,
    log,
  });
  const { recovered } = jobs.start();
  steps.done("recovery");

  const verifier = createTokenVerifier(store, [personalTokenKind(store), oauthAccessTokenKind(store, config)], Date.now, (error) => {
    if (!storageAlarm.report(error, "record when a token was last used"))
      log.warn("recording a token's last use failed", { error: String(error) });
  });
  // Messaging off (the default): no child, no service, the same tools for everyone as without the feature.
  const messaging =
    config.messaging.mode === "off"
      ? null
      : new MessagingService({ config: config.messaging, log, version: config.version, parentEnv: process.env });
  const mcp = createMcpEndpoint(
    {
      jobs,
      log,
      calls: new SyncCallRegistry(),
      timeouts: config.timeouts,
      ...(messaging ? { messaging: { service: messaging, calls: new MessagingCallRegistry() } } : {}),
    },
    {
      onError: (error) => log.debug("mcp request rejected", { error: error.message }),
    },
  );
  const mcpRoute = createMcpRoute({ config, log, verifier, mcp, resourceMetadataUrl: protectedResourceMetadataUrl(config) });
  const oauth = createOAuthServer({ config, store, log, onRevoke: () => verifier.invalidate() });
  // A fresh key each start: doctor's proof through the tunnel names this process, not one that ran here before. Doctor
  // reads it from the lock's holder record (setAddress below).
  const probeKey = randomBytes(32).toString("base64url");
  const app = createApp({ config, log, verifier, mcp, mcpRoute, extraRoutes: oauth, probeKey, storageAlarm });

  // Whether /mcp has been called since the last quiet spell.
  let serving = false;
  // The database file deleted or replaced under the daemon: looked at once per quiet spell (a stat; no timer of its own).
  const database = fileIdentity(config.dbPath);
  let databaseLost = false;
  const onDatabaseChange = (change: FileChange): void => {
    databaseLost = true;
    // What only this process can still read (its open file) is saved before it stops: a mistaken `rm` loses nothing.
    const saved = `${config.dbPath}.${change}-${fileStamp(new Date())}`;
    let kept: string | null = null;
    try {
      store.jobs.writeUnwritten();
      copyInto(store.db, saved);
      kept = saved;
    } catch (error) {
      log.error("could not save the database this process still holds", { error: (error as Error).message });
    }
    log.error(
      `the database file ${config.dbPath} was ${change} while hermes-mcp ran: stopping, so nothing more goes to a file no command can open; the next start opens ${config.dbPath}`,
      kept ? { saved: kept, fix: `if that was a mistake, stop hermes-mcp and run: ${shellCommand(["hermes-mcp", "restore", kept])}` } : {},
    );
    hooks.onDatabaseLost?.();
  };
  // While requests keep arriving, collections of the daemon's own, when serve has turned Bun's GC timer off.
  const pacing = hooks.pacing ?? gcPacingFor();
  // Once quiet after work: the gateway's idle connections close (each would otherwise time out later on its own, and
  // run code after the code-page release), then memory goes back (src/memory-give-back.ts).
  const collector = idleCollector(
    server,
    memoryGiveBack(store.db, log, () => {
      serving = false;
      pacing.quiet();
      hooks.onQuiet?.();
      const change = databaseLost ? null : database.change();
      if (change) onDatabaseChange(change);
      return { gateway_connections_closed: closeIdleGatewayConnections() };
    }),
  );
  server.reload({
    // /mcp is the hot path: Bun's native router hands it straight to its pipeline; everything else goes through Hono.
    routes: {
      "/mcp": (request) => {
        collector.touch();
        pacing.touch();
        if (!serving) {
          serving = true;
          hooks.onServing?.();
        }
        return mcpRoute(request);
      },
    },
    fetch: (request, bunServer) => {
      collector.touch();
      pacing.touch();
      return app.fetch(request, bunServer);
    },
    // /mcp's own failures land here (Hono's onError answers the rest the same way).
    error: (error) => failureResponse(error, "/mcp", storageAlarm, log),
  });
  // Start-up is work too: what it leaves behind (config, migrations, schemas built) goes back once the daemon is quiet
  // (measured: 1.6 MiB of anonymous memory).
  collector.touch();
  lock.setAddress(config.bind.host, config.bind.port, probeKey);
  steps.done("layers");
  const url = `http://${hostPort(config.bind.host, config.bind.port)}`;
  log.info("hermes-mcp listening", {
    url,
    mcp: config.resourceUrl,
    version: config.version,
    database: config.dbPath,
    gateway: config.gateway.url,
    recovered_jobs: recovered.length,
    messaging: config.messaging.mode,
  });
  log.debug("start-up steps", steps.fields());

  let stopping: Promise<void> | null = null;
  return {
    url,
    port: config.bind.port,
    config,
    stop() {
      stopping ??= (async () => {
        log.info("shutting down: no new requests; interrupting active jobs");
        collector.stop();
        pacing.quiet();
        server.stop(false);
        await jobs.shutdown();
        await messaging?.close().catch(() => undefined);
        await mcp.close().catch(() => undefined);
        server.stop(true);
        store.close();
        lock.release();
        log.info("stopped");
      })();
      return stopping;
    },
  };
}
