// `hermes-mcp serve`: run the daemon until SIGTERM/SIGINT (or its terminal closes), then stop gracefully (jobs interrupted and recorded, database closed).
import { readFileSync } from "node:fs";
import type { CommandDef } from "citty";
import type { Config } from "../config/load.ts";
import { type RunningDaemon, startDaemon } from "../daemon.ts";
import { createLogger, type Logger } from "../log.ts";
import { StartSteps } from "../start-steps.ts";
import { StoreError } from "../store/database.ts";
import { DaemonLockedError } from "../store/daemon-lock.ts";
import { CliExit, guarded, loadConfigOrExit } from "./common.ts";
import { ENTRY_REACHED_MS } from "./entry-time.ts";
import { gatewayChecks } from "./gateway-checks.ts";
import { IDLE_JIT_POLICY } from "./relaunch.ts";
import { unlistenable } from "./listen-errors.ts";

/** One probe of the gateway at start, never awaited: serve starts anyway, and says what `doctor` would say about it. */
function warnIfGatewayUnusable(config: Config, log: Logger): void {
  gatewayChecks(config, { missingKey: false })
    .then((checks) => {
      // The title is doctor's expectation ("Hermes gateway reachable at …"): named in brackets, it cannot read as the result.
      for (const check of checks.filter((c) => !c.ok))
        log.warn(`gateway check failed (${check.title})${check.detail ? `: ${check.detail}` : ""}`, { fix: check.fix });
    })
    .catch((error: Error) => log.warn("gateway check could not run", { error: error.message }));
}

/**
 * Whether a hang-up (SIGHUP: the terminal running serve was closed, the ssh session dropped) should stop the daemon
 * gracefully, as Ctrl-C does; left alone, it killed the daemon mid-job. Not when SIGHUP was ignored at start (`nohup
 * hermes-mcp serve &`): a handler would undo what nohup promises. Linux says so in /proc; elsewhere, a daemon whose
 * stderr is not a terminal is taken to be nohup'd or run by a service manager, and keeps the default.
 */
function stopsOnHangup(): boolean {
  if (process.platform === "linux") {
    try {
      const ignored = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
      // SIGHUP is signal 1: bit 0 of the mask.
      if (ignored !== undefined) return (BigInt(`0x${ignored}`) & 1n) === 0n;
    } catch {
      // No /proc (a sandbox): decide as elsewhere.
    }
  }
  return process.stderr.isTTY === true;
}

/** The daemon's whole life, as `serve` runs it; the entry calls it directly for a bare `hermes-mcp serve` (index.ts). */
export const runServe = (): Promise<void> =>
  guarded(async () => {
    // Where start-up time goes (the DEBUG line "start-up steps"): the runtime, then loading this command's modules.
    const steps = new StartSteps();
    steps.done("runtime", ENTRY_REACHED_MS);
    steps.done("modules");
    const loaded = loadConfigOrExit();
    steps.done("config");
    // Files we create (database, WAL) are private by default.
    process.umask(0o077);
    const log = createLogger(loaded.config.log.level, loaded.config.log.format);
    let daemon: RunningDaemon | undefined;
    try {
      // While called, the request path is compiled early (SERVE_RUNTIME_OPTIONS' thresholds at the normal policy); once
      // quiet, reluctant again, so the housekeeping a quiet daemon does (closing connections, reading its own memory
      // map for the code-page release) wakes no compiler, whose machine code would page back in after the release
      // (measured: 4 MiB more of the binary resident after the memory bench's load than before it).
      daemon = startDaemon(loaded, log, {
        onServing: () => Bun.unsafe.setJITPolicy(1),
        onQuiet: () => Bun.unsafe.setJITPolicy(IDLE_JIT_POLICY),
        // Status 1: systemd (Restart=on-failure) and launchd (KeepAlive unless it succeeded) start it again on the new file.
        onDatabaseLost: () => void daemon?.stop().then(() => process.exit(1)),
        steps,
      });
    } catch (error) {
      if (error instanceof DaemonLockedError) {
        // Loaded here: a start that succeeds never needs it.
        const { howToStop } = await import("./stop-advice.ts");
        throw new CliExit(
          `${error.message}\nNothing was changed. Use the running one, or stop it first (${howToStop(error.holder)}), or give a second instance its own HERMES_MCP_DB_PATH.`,
        );
      }
      if (error instanceof StoreError) throw new CliExit(error.message);
      const code = (error as { code?: string }).code;
      if (code === "EADDRINUSE" || /in use|EADDRINUSE/i.test((error as Error).message)) {
        throw new CliExit(
          `port ${loaded.config.bind.port} on ${loaded.config.bind.host} is already in use (another program, or a hermes-mcp on another database) — stop it, or set BIND_PORT to a free port`,
        );
      }
      const refused = unlistenable(error);
      if (refused) {
        const { host, port } = loaded.config.bind;
        throw new CliExit(`cannot listen on ${host}:${port}: ${refused.detail} — ${refused.fix}`);
      }
      throw error;
    }
    const running = daemon;
    // The release binary starts with a reluctant JIT (scripts/build-flags.ts): start-up code ran once. Until its first
    // call (and after each quiet spell) the daemon stays 10× more reluctant than JavaScriptCore's defaults (see
    // IDLE_JIT_POLICY).
    Bun.unsafe.setJITPolicy(IDLE_JIT_POLICY);
    warnIfGatewayUnusable(running.config, log);
    let signalled = false;
    const onSignal = (signal: string): void => {
      // A second Ctrl-C (or SIGTERM) forces the exit. A second hang-up does not: closing a terminal sends one to the
      // daemon and its shell sends another to its jobs.
      if (signalled && signal === "SIGHUP") return;
      if (signalled) process.exit(130);
      signalled = true;
      log.info(`received ${signal}`);
      running.stop().then(() => process.exit(0));
    };
    process.on("SIGTERM", () => onSignal("SIGTERM"));
    process.on("SIGINT", () => onSignal("SIGINT"));
    if (stopsOnHangup()) process.on("SIGHUP", () => onSignal("SIGHUP"));
    // Keep the command pending while the server runs.
    await new Promise(() => {});
  });

export default {
  meta: { name: "serve", description: "Run the MCP bridge (Streamable HTTP on BIND_HOST:BIND_PORT)" },
  run: runServe,
} satisfies CommandDef;
