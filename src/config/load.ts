// Builds the one validated Config from the real environment, ./.env and ~/.config/hermes-mcp/env (real env wins).
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parseDotenv } from "./dotenv.ts";
import { expandHome } from "./home-path.ts";
import { userPaths } from "./user-paths.ts";
import { unknownVariableWarnings } from "./names.ts";
import { overrideWarnings, type SettingSource } from "./overrides.ts";
import { EnvSchema, isLoopbackHost, type LogLevel, type MessagingLevel, withoutCredentials } from "./schema.ts";
import { foreignOwned } from "../file-owner.ts";
import { VERSION } from "../version.ts";
import { isHeaderValue } from "../web/header-value.ts";
import { allowedHostOf } from "../web/host-name.ts";
import { isLoopbackIpv4 } from "../web/loopback.ts";

export interface Config {
  version: string;
  bind: { host: string; port: number };
  /** Public base URL of this bridge, no trailing slash (RFC 8414 §2: issuer compared byte for byte). */
  issuerUrl: string;
  issuerIsDefault: boolean;
  /** The protected resource: `<issuer>/mcp` (RFC 8707 audience). */
  resourceUrl: string;
  /** Host names (no port, lower case) accepted in Host headers besides loopback names. */
  allowedHosts: string[];
  staticClient: { id: string; secret: string } | null;
  gateway: { url: string; apiKey: string | null; apiKeySource: "env" | "hermes-env" | "missing"; model: string; retries: number };
  timeouts: { requestMs: number; jobMs: number; syncBudgetMs: number; heartbeatMs: number; maxWaitMs: number };
  jobs: { maxConcurrent: number; maxQueued: number; maxStored: number; retentionMs: number };
  oauth: {
    redirectSchemes: string[];
    redirectUris: string[];
    accessTokenTtlSeconds: number;
    refreshTokenTtlDays: number;
    dynamicClients: boolean;
    /** Test-only (HERMES_MCP_TEST_ALLOW_LOOPBACK_CIMD=1): accept http client metadata documents on loopback. */
    allowLoopbackCimd: boolean;
  };
  log: { level: LogLevel; format: "text" | "json" };
  /** Hermes's messaging tools through a supervised `hermes mcp serve` child (off unless HERMES_MCP_MESSAGING says so). */
  messaging: {
    mode: MessagingLevel;
    /** HERMES_MCP_HERMES_COMMAND as argv; null: `hermes mcp serve`, found on PATH or in Hermes's install. */
    command: string[] | null;
    /** Extra variables for the child (HERMES_MCP_HERMES_ENV), on top of the safe baseline. */
    env: Record<string, string>;
    timeoutMs: number;
    tools: { include: string[]; exclude: string[] };
    /** What the static client may do (OAUTH_STATIC_CLIENT_MESSAGING), never more than `mode`. */
    staticClient: MessagingLevel;
  };
  dbPath: string;
  paths: { home: string; userEnvFile: string; hermesEnvFile: string };
}

export interface LoadedConfig {
  config: Config;
  /** Things worth saying at start-up (where a value came from). */
  notes: string[];
  /** Things that work but deserve attention (non-loopback bind, unreadable env file lines). */
  warnings: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Configuration is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export interface LoadOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const realEnv = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const { home, dataHome, userEnvFile, hermesEnvFile } = userPaths(realEnv);
  const notes: string[] = [];
  const warnings: string[] = [];

  const fromFile = (path: string): SettingSource => {
    const source: SettingSource = { label: path, values: {} };
    try {
      const { values, badLines, repeated, verbatim } = parseDotenv(readFileSync(path, "utf8"));
      if (badLines.length > 0) warnings.push(`${path}: ignored line(s) ${badLines.join(", ")} (expected KEY=VALUE)`);
      return { ...source, values, repeated, verbatim };
    } catch (error) {
      // Missing is no problem; a file in a folder we may not enter (a root-made one, after sudo) is, and is said.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return source;
      // Our own env file's folder is ours to mend; a project's ./.env or Hermes's folder is not: only the file is named.
      const foreign = foreignOwned([path], undefined, path === userEnvFile);
      warnings.push(
        foreign
          ? `${path} could not be read: ${foreign.problem}; skipped — ${foreign.fix}`
          : `${path} could not be read (${(error as Error).message}); skipped`,
      );
      return source;
    }
  };
  // Precedence: real environment > ./.env > ~/.config/hermes-mcp/env.
  const cwdEnvFile = join(cwd, ".env");
  const userFile = fromFile(userEnvFile);
  const cwdFile = fromFile(cwdEnvFile);
  const userValues = userFile.values as Record<string, string>;
  const cwdValues = cwdFile.values as Record<string, string>;
  const merged: Record<string, string | undefined> = { ...userValues, ...cwdValues };
  for (const [key, value] of Object.entries(realEnv)) if (value !== undefined) merged[key] = value;
  // A misspelt setting silently falls back to its default: name it, and the setting probably meant. A bare NAME in
  // HERMES_MCP_HERMES_ENV passes that variable's value on (read below from these settings): used, so never "ignored".
  const passedOn = new Set(
    (EnvSchema.shape.HERMES_MCP_HERMES_ENV.safeParse(merged.HERMES_MCP_HERMES_ENV).data ?? [])
      .filter((entry) => entry.value === null)
      .map((entry) => entry.name),
  );
  warnings.push(
    ...unknownVariableWarnings(
      [
        { label: "the environment", values: realEnv, shared: true },
        { label: cwdEnvFile, values: cwdValues, shared: false },
        { label: userEnvFile, values: userValues, shared: false, own: true },
      ],
      passedOn,
    ),
  );
  const overrides = overrideWarnings([{ label: "the environment", values: realEnv }, cwdFile, userFile]);
  warnings.push(...overrides.map((override) => override.message));

  // jitless: zod would compile this schema's parser (new Function) for a parse that runs once a start: 3.5 ms of it.
  const parsed = EnvSchema.safeParse(merged, { jitless: true });
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? "");
      problems.push(issue.message.includes(variable) ? issue.message : `${variable}: ${issue.message}`);
      // The value refused may not be the one the owner sees in the file (an exported variable, a unit's EnvironmentFile=).
      problems.push(...overrides.filter((override) => override.setting === variable).map((override) => override.message));
    }
    // Report the issuer too, so one run names every bad variable.
    const rawIssuer = merged.OAUTH_ISSUER_URL?.trim();
    const issuerProblem = rawIssuer ? checkIssuerUrl(rawIssuer) : null;
    if (issuerProblem) problems.push(issuerProblem);
    throw new ConfigError(problems);
  }
  const env = parsed.data;

  // Static client: both halves or neither.
  let staticClient: Config["staticClient"] = null;
  if (env.OAUTH_CLIENT_ID && !env.OAUTH_CLIENT_SECRET)
    problems.push("OAUTH_CLIENT_SECRET is required when OAUTH_CLIENT_ID is set — run `hermes-mcp mint-client` for a pair");
  else if (env.OAUTH_CLIENT_SECRET && !env.OAUTH_CLIENT_ID)
    problems.push("OAUTH_CLIENT_ID is required when OAUTH_CLIENT_SECRET is set — run `hermes-mcp mint-client` for a pair");
  else if (env.OAUTH_CLIENT_ID && env.OAUTH_CLIENT_SECRET) staticClient = { id: env.OAUTH_CLIENT_ID, secret: env.OAUTH_CLIENT_SECRET };

  // Issuer: https anywhere, http only on loopback; no trailing slash, query or fragment.
  const port = env.BIND_PORT;
  let issuerUrl = defaultIssuerUrl(env.BIND_HOST, port);
  const issuerIsDefault = env.OAUTH_ISSUER_URL === undefined;
  if (!issuerIsDefault) {
    const raw = env.OAUTH_ISSUER_URL as string;
    const issuerProblem = checkIssuerUrl(raw);
    if (issuerProblem) problems.push(issuerProblem);
    else issuerUrl = raw.replace(/\/+$/, "");
  } else {
    const shown = port === 0 ? issuerUrl.replace(/:0$/, ":<the port picked at start>") : issuerUrl;
    notes.push(
      `OAUTH_ISSUER_URL is not set: serving as ${shown} (local use only). For remote clients set OAUTH_ISSUER_URL to your tunnel's https URL and MCP_ALLOWED_HOSTS to its host name.`,
    );
  }

  // Gateway key: env, else API_SERVER_KEY from ~/.hermes/.env.
  let apiKey = env.HERMES_API_KEY ?? null;
  let apiKeySource: Config["gateway"]["apiKeySource"] = apiKey ? "env" : "missing";
  if (!apiKey) {
    const hermesKey = fromFile(hermesEnvFile).values.API_SERVER_KEY?.trim();
    if (hermesKey) {
      apiKey = hermesKey;
      apiKeySource = "hermes-env";
      notes.push(`HERMES_API_KEY is not set: using API_SERVER_KEY from ${hermesEnvFile}`);
    } else {
      warnings.push(missingApiKeyWarning(hermesEnvFile));
    }
  }
  // The key travels in the Authorization header: one that cannot (a control character, a character past U+00FF) would
  // fail every call as "gateway unreachable", so it is refused here, where the fix is known.
  if (apiKey && !isHeaderValue(apiKey)) {
    const cannot = "holds a character an HTTP header cannot carry (a control character or a non-Latin-1 letter)";
    problems.push(
      apiKeySource === "env"
        ? `HERMES_API_KEY ${cannot} — copy API_SERVER_KEY from ${hermesEnvFile} exactly`
        : `API_SERVER_KEY in ${hermesEnvFile} ${cannot} — set it to letters, digits and symbols only, then restart the Hermes gateway so both use the new key`,
    );
  }

  const dbPath = databasePath(env.HERMES_MCP_DB_PATH, home, dataHome);
  if (typeof dbPath !== "string") problems.push(dbPath.problem);

  // The original's variable: an entry that names no host is a warning, not a refusal to start (it matched nothing before
  // either, and the issuer's host, always allowed, may be all a setup needs); one it can read is used.
  const extraHosts: string[] = [];
  for (const entry of env.MCP_ALLOWED_HOSTS) {
    const read = allowedHostOf(entry);
    if ("problem" in read) warnings.push(`MCP_ALLOWED_HOSTS ${read.problem}; that entry is ignored`);
    else {
      extraHosts.push(read.host);
      if (read.note) warnings.push(`MCP_ALLOWED_HOSTS ${read.note}`);
    }
  }

  // An OpenAI-style base URL, or a route pasted whole: the gateway client adds /v1 and the route itself, so …/v1/v1/…
  // would answer 404 to every call (and the gateway's key check, which comes before its routes, a misleading 401).
  const route = GATEWAY_ROUTE_SUFFIX.exec(env.HERMES_API_URL)?.[0];
  const gatewayUrl = route ? env.HERMES_API_URL.slice(0, -route.length) : env.HERMES_API_URL;
  if (route) {
    warnings.push(`HERMES_API_URL ends in ${route}, which hermes-mcp adds itself: using ${gatewayUrl} (set HERMES_API_URL=${gatewayUrl})`);
  }

  if (!isLoopbackHost(env.BIND_HOST)) {
    warnings.push(
      `BIND_HOST=${env.BIND_HOST} listens beyond this machine; keep the default 127.0.0.1 and reach it through a tunnel unless you know why`,
    );
  }

  const childEnv: Record<string, string> = {};
  for (const entry of env.HERMES_MCP_HERMES_ENV) {
    const value = entry.value ?? merged[entry.name];
    if (value === undefined)
      warnings.push(`HERMES_MCP_HERMES_ENV passes ${entry.name}, which is not set; the Hermes child gets no ${entry.name}`);
    else childEnv[entry.name] = value;
  }
  if (env.OAUTH_STATIC_CLIENT_MESSAGING !== "off" && env.HERMES_MCP_MESSAGING === "off") {
    warnings.push(
      `OAUTH_STATIC_CLIENT_MESSAGING=${env.OAUTH_STATIC_CLIENT_MESSAGING} has no effect while HERMES_MCP_MESSAGING is off (set HERMES_MCP_MESSAGING=read or send)`,
    );
  }

  // (A database path that is no path has its problem listed.)
  if (problems.length > 0 || typeof dbPath !== "string") throw new ConfigError(problems);

  const issuerHost = new URL(issuerUrl).hostname.toLowerCase();
  const allowedHosts = [...new Set([...extraHosts, issuerHost])];

  const config: Config = {
    version: VERSION,
    bind: { host: env.BIND_HOST, port },
    issuerUrl,
    issuerIsDefault,
    resourceUrl: `${issuerUrl}/mcp`,
    allowedHosts,
    staticClient,
    gateway: { url: gatewayUrl, apiKey, apiKeySource, model: env.HERMES_MODEL, retries: env.HERMES_MCP_GATEWAY_RETRIES },
    timeouts: {
      requestMs: env.HERMES_REQUEST_TIMEOUT_SECONDS * 1000,
      jobMs: env.HERMES_MCP_JOB_TIMEOUT_SECONDS * 1000,
      syncBudgetMs: env.HERMES_MCP_SYNC_BUDGET_SECONDS * 1000,
      heartbeatMs: env.HERMES_MCP_HEARTBEAT_SECONDS * 1000,
      maxWaitMs: env.HERMES_MCP_MAX_WAIT_SECONDS * 1000,
    },
    jobs: {
      maxConcurrent: env.HERMES_MCP_MAX_CONCURRENT_JOBS,
      maxQueued: env.HERMES_MCP_MAX_QUEUED_JOBS,
      maxStored: env.HERMES_MCP_MAX_STORED_JOBS,
      retentionMs: env.HERMES_MCP_JOB_RETENTION_HOURS * 3_600_000,
    },
    oauth: {
      redirectSchemes: env.OAUTH_ALLOWED_REDIRECT_SCHEMES,
      redirectUris: env.OAUTH_ALLOWED_REDIRECT_URIS,
      accessTokenTtlSeconds: env.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlDays: env.OAUTH_REFRESH_TOKEN_TTL_DAYS,
      dynamicClients: env.OAUTH_DYNAMIC_CLIENTS,
      allowLoopbackCimd: env.HERMES_MCP_TEST_ALLOW_LOOPBACK_CIMD,
    },
    log: { level: env.LOG_LEVEL, format: env.LOG_FORMAT as "text" | "json" },
    messaging: {
      mode: env.HERMES_MCP_MESSAGING,
      command: env.HERMES_MCP_HERMES_COMMAND,
      env: childEnv,
      timeoutMs: env.HERMES_MCP_MESSAGING_TIMEOUT_SECONDS * 1000,
      tools: env.HERMES_MCP_MESSAGING_TOOLS,
      staticClient: env.OAUTH_STATIC_CLIENT_MESSAGING,
    },
    dbPath,
    paths: { home, userEnvFile, hermesEnvFile },
  };
  return { config, notes, warnings };
}

/** The gateway's own routes (and /v1) at the end of HERMES_API_URL: what hermes-mcp appends to the base URL itself. */
const GATEWAY_ROUTE_SUFFIX = /\/v1(?:\/(?:chat\/completions|responses|models|capabilities|health|runs))?$/i;

/** Said at start-up when no gateway key is found; `doctor` shows it as a failed check instead. */
export const missingApiKeyWarning = (hermesEnvFile: string): string =>
  `HERMES_API_KEY is not set and ${hermesEnvFile} has no API_SERVER_KEY: hermes_ask will fail until you set HERMES_API_KEY to the gateway's API_SERVER_KEY`;

/**
 * HERMES_MCP_DB_PATH: absolute, or under the home folder with ~/ (an env file and systemd's EnvironmentFile do not expand
 * it: kept as written, it made a folder named "~"). A relative path would be a different database from each folder
 * hermes-mcp starts in (the service starts in /), so the CLI and the daemon could disagree on every token.
 */
function databasePath(raw: string | undefined, home: string, dataHome: string): string | { problem: string } {
  if (raw === undefined) return join(dataHome, "hermes-mcp", "hermes-mcp.db");
  const path = expandHome(raw, home);
  if (isAbsolute(path)) return path;
  return {
    problem: `HERMES_MCP_DB_PATH must be an absolute path or start with ~/ (got "${raw}"), so every command and the service use the same file`,
  };
}

/**
 * The issuer when none is set: where this machine reaches the daemon. A loopback BIND_HOST other than localhost is used
 * as it is (::1 in brackets): 127.0.0.1 would not answer. Anything else, a wildcard or localhost included, keeps
 * 127.0.0.1, as before (tokens are bound to the issuer: a new default would sign local clients out).
 */
const defaultIssuerUrl = (host: string, port: number): string => {
  const local = host === "::1" ? "[::1]" : isLoopbackIpv4(host) ? host : "127.0.0.1";
  return `http://${local}:${port}`;
};

/** The configuration once the daemon has bound its port: with BIND_PORT=0 the default issuer (and resource) follow the port actually picked. */
export function withBoundPort(config: Config, port: number): Config {
  if (config.bind.port === port) return config;
  const issuerUrl = config.issuerIsDefault ? defaultIssuerUrl(config.bind.host, port) : config.issuerUrl;
  return { ...config, bind: { ...config.bind, port }, issuerUrl, resourceUrl: `${issuerUrl}/mcp` };
}

/** Returns a problem sentence, or null when the issuer URL is acceptable. */
export function checkIssuerUrl(raw: string): string | null {
  // Every refusal below repeats the value without what may be a user name and password (they would reach the log).
  const shown = withoutCredentials(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `OAUTH_ISSUER_URL must be a URL such as https://hermes.example.com (got "${shown}")`;
  }
  // Before anything that repeats the value: a password in it must not reach the log.
  if (url.username || url.password) return `OAUTH_ISSUER_URL must not contain credentials`;
  if (url.search || url.hash) return `OAUTH_ISSUER_URL must not have a query or fragment (RFC 8414 §2) (got "${shown}")`;
  // Every route (/authorize, /token, /mcp, the metadata) is served at the root of the host: an issuer with a path would
  // advertise endpoints nothing answers. The commonest case is the connector URL pasted here.
  const path = url.pathname.replace(/\/+$/, "");
  if (path !== "") {
    const origin = url.origin;
    return path.endsWith("/mcp")
      ? `OAUTH_ISSUER_URL is the connector URL (${shown}); the issuer is its origin: set OAUTH_ISSUER_URL=${origin} (clients still connect to ${origin}/mcp)`
      : `OAUTH_ISSUER_URL must have no path: hermes-mcp serves at the root of its host — set OAUTH_ISSUER_URL=${origin} (got "${shown}")`;
  }
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return null;
  return `OAUTH_ISSUER_URL must use https (http is allowed only on 127.0.0.1/localhost) — use your tunnel's https URL (got "${shown}")`;
}
