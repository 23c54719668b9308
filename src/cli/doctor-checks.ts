// The checks behind `hermes-mcp doctor`: each says ✔ or ✖ and, when something is wrong, the one thing to do about it.
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Config } from "../config/load.ts";
import { GatewayClient } from "../gateway/client.ts";
import { GatewayError } from "../gateway/errors.ts";
import { isAllowedHost } from "../http/guards.ts";
import { hasConsentPassword } from "../oauth/password.ts";
import { openStore } from "../store/index.ts";

export interface Check {
  ok: boolean;
  /** A passing check that still deserves a look (shown with ⚠, does not fail doctor). */
  warn?: boolean;
  title: string;
  detail?: string;
  fix?: string;
}

const TIMEOUT_MS = 5000;

export async function gatewayChecks(config: Config): Promise<Check[]> {
  const checks: Check[] = [];
  const client = new GatewayClient({ baseUrl: config.gateway.url, apiKey: config.gateway.apiKey ?? "", model: config.gateway.model, maxRetries: 0 });
  try {
    const { version } = await client.health(TIMEOUT_MS);
    checks.push({ ok: true, title: `Hermes gateway reachable at ${config.gateway.url}`, detail: version ? `version ${version}` : undefined });
  } catch (error) {
    checks.push({
      ok: false,
      title: `Hermes gateway reachable at ${config.gateway.url}`,
      detail: (error as Error).message,
      fix: "start it with `hermes gateway run` (or `systemctl --user start hermes-gateway`), or set HERMES_API_URL to where it listens",
    });
    return checks;
  }
  if (!config.gateway.apiKey) {
    checks.push({
      ok: false,
      title: "HERMES_API_KEY set",
      fix: `set HERMES_API_KEY to API_SERVER_KEY from ${config.paths.hermesEnvFile} (or put API_SERVER_KEY there)`,
    });
    return checks;
  }
  const source = config.gateway.apiKeySource === "hermes-env" ? ` (API_SERVER_KEY from ${config.paths.hermesEnvFile})` : "";
  let models: string[];
  try {
    models = await client.models(TIMEOUT_MS);
    checks.push({ ok: true, title: `gateway accepts HERMES_API_KEY${source}` });
  } catch (error) {
    const unauthorized = error instanceof GatewayError && error.kind === "unauthorized";
    checks.push({
      ok: false,
      title: `gateway accepts HERMES_API_KEY${source}`,
      detail: (error as Error).message,
      fix: unauthorized ? `copy API_SERVER_KEY from ${config.paths.hermesEnvFile} into HERMES_API_KEY, then restart hermes-mcp` : "see the gateway's log (journalctl --user -u hermes-gateway)",
    });
    return checks;
  }
  const present = models.includes(config.gateway.model);
  checks.push({
    ok: present,
    title: `model "${config.gateway.model}" offered by the gateway`,
    detail: present ? undefined : `the gateway offers: ${models.join(", ") || "nothing"}`,
    fix: present ? undefined : `set HERMES_MODEL to one of: ${models.join(", ")}`,
  });
  return checks;
}

export function databaseCheck(config: Config): Check {
  const title = `database ${config.dbPath} writable and private`;
  try {
    const store = openStore(config.dbPath);
    try {
      store.db.exec("BEGIN IMMEDIATE; ROLLBACK;");
    } finally {
      store.close();
    }
    const fileMode = statSync(config.dbPath).mode & 0o777;
    const dirMode = statSync(dirname(config.dbPath)).mode & 0o777;
    if (fileMode & 0o077 || dirMode & 0o077) {
      return { ok: false, title, detail: `file mode ${fileMode.toString(8)}, folder mode ${dirMode.toString(8)}`, fix: `chmod 600 ${config.dbPath} && chmod 700 ${dirname(config.dbPath)}` };
    }
    return { ok: true, title };
  } catch (error) {
    return { ok: false, title, detail: (error as Error).message, fix: "set HERMES_MCP_DB_PATH to a file in a folder you own" };
  }
}

/** Whether apps that register themselves (Claude Code, Codex, Cursor, VS Code) can connect; nothing when the database cannot be read (its own check says why). */
export function dynamicClientsCheck(config: Config): Check[] {
  if (!config.oauth.dynamicClients) return [{ ok: true, title: "apps that register themselves: off (OAUTH_DYNAMIC_CLIENTS=false)" }];
  let passwordSet: boolean;
  try {
    const store = openStore(config.dbPath);
    try {
      passwordSet = hasConsentPassword(store);
    } finally {
      store.close();
    }
  } catch {
    return [];
  }
  return passwordSet
    ? [{ ok: true, title: "apps that register themselves: on, each approved with your password" }]
    : [{ ok: true, warn: true, title: "apps that register themselves (Claude Code, Codex, Cursor, VS Code) cannot connect yet", fix: "run `hermes-mcp set-password` to approve them on a consent page" }];
}

export async function portCheck(config: Config): Promise<Check> {
  const { host, port } = config.bind;
  const title = `port ${port} on ${host} free`;
  try {
    const probe = Bun.listen({ hostname: host, port, socket: { data() {} } });
    probe.stop(true);
    return { ok: true, title };
  } catch {
    // Busy: fine if it is us.
    try {
      const response = await fetch(`http://${host.includes(":") ? `[${host}]` : host}:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      const body = (await response.json()) as { status?: string; version?: string };
      if (body.status === "ok") return { ok: true, title: `hermes-mcp ${body.version ?? ""} is already running on ${host}:${port}`.replace("  ", " ") };
    } catch {
      // Not hermes-mcp.
    }
    return { ok: false, title, detail: "another program listens there", fix: "stop it, or set BIND_PORT to a free port (and point your tunnel at it)" };
  }
}

export function issuerChecks(config: Config): Check[] {
  const checks: Check[] = [];
  const issuer = new URL(config.issuerUrl);
  if (config.issuerIsDefault) {
    checks.push({
      ok: true,
      warn: true,
      title: `issuer URL ${config.issuerUrl} (local only)`,
      fix: "for remote clients set OAUTH_ISSUER_URL to your tunnel's https URL, e.g. https://hermes.example.com",
    });
  } else {
    checks.push({ ok: true, title: `issuer URL ${config.issuerUrl} well-formed`, detail: `connectors use ${config.issuerUrl}/mcp` });
  }
  const allowed = isAllowedHost(issuer.hostname.toLowerCase(), config.allowedHosts);
  checks.push({
    ok: allowed,
    title: `issuer host ${issuer.hostname} accepted by the Host guard`,
    fix: allowed ? undefined : `add ${issuer.hostname} to MCP_ALLOWED_HOSTS`,
  });
  checks.push(
    config.staticClient
      ? { ok: true, title: `static OAuth client ${config.staticClient.id} configured` }
      : { ok: true, warn: true, title: "no static OAuth client", fix: "for Claude's Advanced settings run `hermes-mcp mint-client` and set OAUTH_CLIENT_ID/OAUTH_CLIENT_SECRET" },
  );
  if (!existsSync(config.paths.userEnvFile)) {
    checks.push({ ok: true, warn: true, title: `no env file at ${config.paths.userEnvFile}`, fix: "keep settings there (mode 0600) so the service unit finds them" });
  } else if (statSync(config.paths.userEnvFile).mode & 0o077) {
    checks.push({ ok: false, title: `env file ${config.paths.userEnvFile} private`, fix: `chmod 600 ${config.paths.userEnvFile}` });
  }
  return checks;
}
