// The checks behind `hermes-mcp doctor` (and serve's gateway probe): each says ✔, ⚠ or ✖ and, when something is wrong, the one thing to do about it.
import { Database } from "bun:sqlite";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Config } from "../config/load.ts";
import { isAllowedHost } from "../http/guards.ts";
import { CONSENT_BUCKET, Limiter, LIMITS } from "../oauth/limits.ts";
import { hasConsentPassword } from "../oauth/password.ts";
import { type DaemonHolder, describeHolder } from "../store/daemon-lock.ts";
import { databaseFiles, SchemaRefusal, schemaVersionOf, unreadableRefusal } from "../store/database.ts";
import { foreignOwned, nearestExisting } from "../file-owner.ts";
import { BUSY_TIMEOUT_MS, freeBytesIn, NO_ROOM_BYTES } from "../store/storage-failure.ts";
import { sizeText } from "../size-text.ts";
import { inspectStore } from "../store/index.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import { askDaemonAt } from "./doctor-running.ts";
import { howToRestart } from "./stop-advice.ts";
import { unlistenable } from "./listen-errors.ts";
import { hostPort } from "../web/host-port.ts";

export interface Check {
  ok: boolean;
  /** A passing check that still deserves a look (shown with ⚠, does not fail doctor). */
  warn?: boolean;
  title: string;
  detail?: string;
  fix?: string;
}

/**
 * Usable, writable and private, and whether an older hermes-mcp wrote it; a database that does not exist yet is not
 * created here, and an existing one is read as it is (doctor changes nothing: the fixes it prints stay the fixes).
 */
export function databaseChecks(config: Config): Check[] {
  const path = config.dbPath;
  // Before "exists": a folder of ours root made (sudo) hides the file inside from us, which is no missing database.
  const foreign = foreignOwned(databaseFiles(path));
  if (foreign) return [{ ok: false, title: `database ${path} usable`, detail: foreign.problem, fix: foreign.fix }];
  if (!existsSync(path)) {
    const folder = nearestExisting(dirname(path));
    try {
      accessSync(folder, constants.W_OK);
      return [{ ok: true, title: `database ${path} will be created at first start` }];
    } catch {
      return [
        {
          ok: false,
          title: `database ${path} can be created`,
          detail: `${folder} is not writable`,
          fix: "set HERMES_MCP_DB_PATH to a file in a folder you own",
        },
      ];
    }
  }
  const title = `database ${path} writable and private`;
  let version: number;
  try {
    const db = new Database(path, { readwrite: true, create: false });
    try {
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // The file as serve would take it: ours (or empty), not a newer one's, not another program's.
      version = schemaVersionOf(db);
      db.exec("BEGIN IMMEDIATE; ROLLBACK;");
    } finally {
      db.close();
    }
  } catch (error) {
    const refusal = error instanceof SchemaRefusal ? error : unreadableRefusal(error);
    // Another program's file gets no chmod advice: it is not ours to tighten.
    if (refusal) return [{ ok: false, title: `database ${path} usable`, detail: `it ${refusal.problem}`, fix: refusal.fix }];
    return [{ ok: false, title, detail: (error as Error).message, fix: "set HERMES_MCP_DB_PATH to a file in a folder you own" }];
  }
  const fileMode = statSync(path).mode & 0o777;
  const dirMode = statSync(dirname(path)).mode & 0o777;
  const checks: Check[] =
    fileMode & 0o077 || dirMode & 0o077
      ? [
          {
            ok: false,
            title,
            detail: `file mode ${fileMode.toString(8)}, folder mode ${dirMode.toString(8)}`,
            fix: `chmod 600 ${path} && chmod 700 ${dirname(path)}`,
          },
        ]
      : [{ ok: true, title }];
  if (version > 0 && version < MIGRATIONS.length) {
    checks.push({
      ok: true,
      warn: true,
      title: `database ${path} from an older hermes-mcp (schema ${version}; this one writes ${MIGRATIONS.length})`,
      fix: "`hermes-mcp serve` upgrades it at start, keeping every connection",
    });
  }
  return checks;
}

/** Below this, doctor warns: a day of busy use (jobs, their answers, the WAL) fits, a week of log files may not. */
const LOW_ROOM_BYTES = 100 * 1024 * 1024;

/**
 * Room on the disk holding the database: a full one refuses new jobs and keeps answers only in memory until it has
 * room (doctor's ✔ on "writable" cannot see that: its probe writes nothing).
 */
export function diskRoomCheck(config: Config, freeBytes: (folder: string) => number | null = freeBytesIn): Check[] {
  if (config.dbPath === ":memory:") return [];
  // The database, or where it will be created: statfs of the nearest folder that exists, which is on the same disk.
  const free = freeBytes(nearestExisting(dirname(config.dbPath)));
  if (free === null) return [];
  const title = `room on the disk holding ${config.dbPath}`;
  if (free >= LOW_ROOM_BYTES) return [{ ok: true, title: `${title}: ${sizeText(free)} free` }];
  const fix = "free some space on it (`df -h` shows which disk; old logs and caches are the usual culprits)";
  if (free < NO_ROOM_BYTES) {
    return [
      {
        ok: false,
        title,
        detail: `${sizeText(free)} free: too little to count on (a full disk refuses new jobs, and answers then wait in memory)`,
        fix,
      },
    ];
  }
  return [{ ok: true, warn: true, title: `${title}: only ${sizeText(free)} free`, fix }];
}

/**
 * Whether apps that register themselves (Claude Code, Codex, Cursor, VS Code) can connect, and whether wrong
 * passwords have locked approvals; nothing when the database cannot be read (its own check says why).
 */
export function dynamicClientsCheck(config: Config): Check[] {
  if (!config.oauth.dynamicClients) return [{ ok: true, title: "apps that register themselves: off (OAUTH_DYNAMIC_CLIENTS=false)" }];
  let passwordSet = false;
  let globalLock: number | null = null;
  let addressLocks: { count: number; longest: number | null } = { count: 0, longest: null };
  if (existsSync(config.dbPath)) {
    try {
      const store = inspectStore(config.dbPath);
      try {
        passwordSet = hasConsentPassword(store);
        const limiter = new Limiter(store.oauth.limits, Date.now);
        globalLock = limiter.retryAfter(CONSENT_BUCKET, LIMITS.consentGlobal);
        addressLocks = limiter.lockedMembers(CONSENT_BUCKET, LIMITS.consentPerAddress);
      } finally {
        store.close();
      }
    } catch {
      return [];
    }
  }
  if (!passwordSet) {
    return [
      {
        ok: true,
        warn: true,
        title: "apps that register themselves (Claude Code, Codex, Cursor, VS Code) cannot connect yet",
        fix: "run `hermes-mcp set-password` to approve them on a consent page",
      },
    ];
  }
  const minutes = (seconds: number | null): number => Math.ceil((seconds ?? 0) / 60);
  if (globalLock !== null) {
    return [
      {
        ok: true,
        warn: true,
        title: `approvals of new apps are locked everywhere for ${minutes(globalLock)} more minute(s) after ${LIMITS.consentGlobal.limit} wrong passwords within an hour`,
        detail: "apps already connected keep working",
        fix: "wait it out, or run `hermes-mcp set-password` (a new password lifts every lock)",
      },
    ];
  }
  if (addressLocks.count > 0) {
    return [
      {
        ok: true,
        warn: true,
        title: `${addressLocks.count} address(es) locked out of approvals for up to ${minutes(addressLocks.longest)} more minute(s) after ${LIMITS.consentPerAddress.limit} wrong passwords`,
        detail: "approvals from other addresses work; apps already connected keep working",
        fix: "if one of them is yours, wait it out or run `hermes-mcp set-password` (a new password lifts every lock)",
      },
    ];
  }
  return [{ ok: true, title: "apps that register themselves: on, each approved with your password" }];
}

/**
 * The daemon on this database (from its lock), else whether the port is free (BIND_PORT=0 needs no check).
 * `configured` is BIND_HOST and BIND_PORT as this shell sees them: a daemon listening elsewhere is said to.
 */
export async function portCheck(
  config: Config,
  running: DaemonHolder | "unknown" | null,
  configured: Config["bind"] = config.bind,
): Promise<Check> {
  if (running !== null) {
    const where = running === "unknown" ? "pid unknown" : `${describeHolder(running)}${running.port === null ? "" : ` on ${running.host}`}`;
    const title = `hermes-mcp is running on this database (${where})`;
    if (running === "unknown" || running.port === null) return { ok: true, title };
    const moved = (configured.port !== 0 && configured.port !== running.port) || configured.host !== running.host;
    if (!moved) return { ok: true, title };
    return {
      ok: true,
      warn: true,
      title,
      detail: `not on ${hostPort(configured.host, configured.port === 0 ? "<a free port>" : String(configured.port))} as BIND_HOST and BIND_PORT say here: they changed since it started, or it was started with others`,
      fix: `if these are the ones you want, restart it to listen there (and point your tunnel at it): ${howToRestart(running)}`,
    };
  }
  const { host, port } = config.bind;
  if (port === 0) return { ok: true, title: `BIND_PORT=0: a free port on ${host} is picked at start` };
  const title = `port ${port} on ${host} free`;
  try {
    const probe = Bun.listen({ hostname: host, port, socket: { data() {} } });
    probe.stop(true);
    return { ok: true, title };
  } catch (error) {
    const refused = unlistenable(error);
    if (refused) return { ok: false, title: `${host}:${port} can be listened on`, ...refused };
    // Busy: another hermes-mcp (on another database) answers /healthz.
    const other = (await askDaemonAt(host, port, "/healthz"))?.status === "ok";
    return {
      ok: false,
      title,
      detail: other ? "a hermes-mcp using another database listens there" : "another program listens there",
      fix: "stop it, or set BIND_PORT to a free port (and point your tunnel at it)",
    };
  }
}

export function issuerChecks(config: Config): Check[] {
  const checks: Check[] = [];
  const issuer = new URL(config.issuerUrl);
  if (config.issuerIsDefault) {
    checks.push({
      ok: true,
      warn: true,
      title: `issuer URL ${config.bind.port === 0 ? "http://127.0.0.1:<the port picked at start>" : config.issuerUrl} (local only)`,
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
      : {
          ok: true,
          warn: true,
          title: "no static OAuth client",
          fix: "for Claude's Advanced settings run `hermes-mcp mint-client --write` (it writes OAUTH_CLIENT_ID/OAUTH_CLIENT_SECRET into the env file)",
        },
  );
  let envMode: number | "missing" | "unseen";
  try {
    envMode = statSync(config.paths.userEnvFile).mode;
  } catch (error) {
    // Unseen (in a folder we may not enter): loading it already warned, with whose folder it is.
    envMode = (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "unseen";
  }
  if (envMode === "missing") {
    checks.push({
      ok: true,
      warn: true,
      title: `no env file at ${config.paths.userEnvFile}`,
      fix: "`hermes-mcp mint-client --write` creates it (folder 0700, file 0600); keep settings there so the service unit finds them",
    });
  } else if (envMode !== "unseen" && envMode & 0o077) {
    checks.push({ ok: false, title: `env file ${config.paths.userEnvFile} private`, fix: `chmod 600 ${config.paths.userEnvFile}` });
  }
  return checks;
}
