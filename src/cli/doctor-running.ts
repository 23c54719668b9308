// doctor: whether the running hermes-mcp runs the code installed now (its version over /healthz; on Linux, whether its executable was replaced on disk since it started).
import { readlinkSync, statSync } from "node:fs";
import type { DaemonHolder } from "../store/daemon-lock.ts";
import { VERSION } from "../version.ts";
import type { Check } from "./doctor-checks.ts";
import { howToRestart } from "./stop-advice.ts";
import { hostPort } from "../web/host-port.ts";

/** A JSON route of the daemon that holds the lock, asked where it listens; null when it cannot be asked. */
export async function askRunningDaemon(holder: DaemonHolder, path: string): Promise<Record<string, unknown> | null> {
  return holder.port === null ? null : askDaemonAt(holder.host, holder.port, path);
}

/** A JSON route of whatever listens on `host`:`port` (a wildcard is asked on its family's loopback); null when it cannot be asked. */
export async function askDaemonAt(host: string, port: number, path: string): Promise<Record<string, unknown> | null> {
  const target = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  try {
    // A loopback Host name: the Host guard refuses a wildcard BIND_HOST such as 0.0.0.0.
    const response = await fetch(`http://${hostPort(target, port)}${path}`, {
      headers: { host: `127.0.0.1:${port}` },
      signal: AbortSignal.timeout(2000),
    });
    const body: unknown = await response.json();
    return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Setting files written after the running daemon started (the env file, Hermes's .env with the gateway key): it reads
 * them only at start, so what doctor checks is not yet what it uses.
 */
export function settingsSinceStartChecks(files: readonly string[], running: DaemonHolder | "unknown" | null): Check[] {
  if (running === null || running === "unknown") return [];
  const changed = files.filter((file) => {
    try {
      return statSync(file).mtimeMs > running.started_at;
    } catch {
      return false;
    }
  });
  if (changed.length === 0) return [];
  return [
    {
      ok: true,
      warn: true,
      title: `${changed.join(" and ")} changed after the running hermes-mcp (pid ${running.pid}) started`,
      detail: "it reads its settings only when it starts",
      fix: `restart it to use them: ${howToRestart(running)}`,
    },
  ];
}

/** What the running daemon's code is, as far as this machine tells. */
export interface RunningCode {
  /** Its executable's path when that file has been replaced or removed since it started (Linux); null otherwise. */
  replacedExecutable: string | null;
  /** The version its /healthz reports; null when it cannot be asked. */
  version: string | null;
}

/** The executable of `pid` when it is no longer the file at its path: Linux marks such a link " (deleted)". */
function replacedExecutable(pid: number): string | null {
  try {
    const link = readlinkSync(`/proc/${pid}/exe`);
    return link.endsWith(" (deleted)") ? link.slice(0, -" (deleted)".length) : null;
  } catch {
    return null;
  }
}

/** Whether version `a` (x.y.z) comes before `b`; anything unreadable compares as not older. */
function isOlder(a: string, b: string): boolean {
  const parts = (v: string): number[] => v.split(/[.-]/).slice(0, 3).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) {
    const [p, q] = [x[i] ?? 0, y[i] ?? 0];
    if (Number.isNaN(p) || Number.isNaN(q)) return false;
    if (p !== q) return p < q;
  }
  return false;
}

/** A warning when the running daemon is not running the code installed now (an upgrade waits for a restart), else null. */
export function runningCodeVerdict(holder: DaemonHolder, code: RunningCode, ours: string, restart: string): Check | null {
  const fix = `restart it: ${restart}`;
  if (code.version !== null && code.version !== ours) {
    const title = `the running hermes-mcp (pid ${holder.pid}) is version ${code.version}; this one is ${ours}`;
    // Older than the daemon: a restart would not help; this command is likely another copy than the service runs.
    if (isOlder(ours, code.version))
      return {
        ok: true,
        warn: true,
        title,
        fix: "check which hermes-mcp you ran (`command -v hermes-mcp`): it is older than the one running",
      };
    return { ok: true, warn: true, title, detail: "if you upgraded, it runs the new version once restarted", fix };
  }
  if (code.replacedExecutable !== null)
    return {
      ok: true,
      warn: true,
      title: `the running hermes-mcp (pid ${holder.pid}) runs a binary since replaced at ${code.replacedExecutable}`,
      detail: "an upgrade installed after it started takes effect when it restarts",
      fix,
    };
  return null;
}

export async function runningCodeChecks(running: DaemonHolder | "unknown" | null): Promise<Check[]> {
  if (running === null || running === "unknown") return [];
  const health = await askRunningDaemon(running, "/healthz");
  const code: RunningCode = {
    replacedExecutable: process.platform === "linux" ? replacedExecutable(running.pid) : null,
    version: typeof health?.version === "string" ? health.version : null,
  };
  const verdict = runningCodeVerdict(running, code, VERSION, howToRestart(running));
  return verdict ? [verdict] : [];
}
