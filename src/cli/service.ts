// `hermes-mcp service install|uninstall|status|logs`: the daemon (and optionally its tunnel) as a systemd user unit or LaunchAgent, no hand edits.
import { defineCommand } from "citty";
import { chmodSync, existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writePrivateFile } from "../config/env-file.ts";
import { isLoopbackHost } from "../config/schema.ts";
import { userPaths } from "../config/user-paths.ts";
import { describeHolder, runningDaemon } from "../store/daemon-lock.ts";
import { CliExit, guarded, loadConfigOrExit, ui } from "./common.ts";
import { writeStdout } from "./output.ts";
import {
  describePlan,
  installPlan,
  logsPlan,
  type PlannedFile,
  type ServiceContext,
  type ServiceOs,
  type ServicePlan,
  statusPlan,
  uninstallPlan,
} from "./service-plan.ts";
import type { TunnelKind, TunnelOptions } from "./service-units.ts";
import { loginName } from "../login-name.ts";
import { shellCommand } from "../shell-word.ts";
import { howToStop, isTheService, keepsTheServiceFromStarting, starterOf } from "./stop-advice.ts";
import { writeStaticClient } from "./static-client.ts";
import { hostPort } from "../web/host-port.ts";

const common = {
  "dry-run": { type: "boolean", description: "Print every file and command instead of writing or running anything" },
  os: { type: "string", description: "linux or macos (default: this machine; another only with --dry-run)", valueHint: "linux|macos" },
} as const;

/** A compiled binary runs its bundle from Bun's virtual file system; from source, Bun.main is a real file. */
const compiled = (): boolean => Bun.main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(Bun.main);

/**
 * The command that runs this very hermes-mcp: the binary's real path, or bun with this checkout's entry point, as its
 * shebang runs it (`--no-env-file`: the unit's working folder is the home folder, whose .env Bun would otherwise load).
 */
export function daemonArgv(): string[] {
  const self = realpathSync(process.execPath);
  return compiled() ? [self, "serve"] : [self, "--no-env-file", realpathSync(join(import.meta.dir, "index.ts")), "serve"];
}

function targetOs(requested: string | undefined, dryRun: boolean): ServiceOs {
  const here: ServiceOs | null = process.platform === "linux" ? "linux" : process.platform === "darwin" ? "macos" : null;
  if (requested !== undefined && requested !== "linux" && requested !== "macos")
    throw new CliExit(`--os must be linux or macos, not "${requested}"`);
  const os = (requested as ServiceOs | undefined) ?? here;
  if (os === null)
    throw new CliExit(
      `hermes-mcp service supports Linux (systemd) and macOS (launchd); on ${process.platform} run \`hermes-mcp serve\` from your own service manager`,
    );
  if (os !== here && !dryRun) throw new CliExit(`this machine is not ${os}: add --dry-run to see the files for it`);
  return os;
}

function tunnelOptions(
  kind: string | undefined,
  tunnelName: string,
  config: ReturnType<typeof loadConfigOrExit>["config"],
): TunnelOptions | null {
  if (kind === undefined) return null;
  if (kind !== "cloudflared" && kind !== "ngrok") throw new CliExit(`--tunnel must be cloudflared or ngrok, not "${kind}"`);
  const found = Bun.which(kind);
  if (!found) throw new CliExit(`${kind} is not on your PATH: install it first (see the README's Tunnels section), then run this again`);
  if (config.issuerIsDefault)
    throw new CliExit(
      "OAUTH_ISSUER_URL is not set: put your tunnel's https URL in ~/.config/hermes-mcp/env first (the tunnel serves that host name)",
    );
  if (config.bind.port === 0) throw new CliExit("BIND_PORT=0 picks a new port at every start, which a tunnel cannot follow: set BIND_PORT");
  const host = isLoopbackHost(config.bind.host) ? config.bind.host : "127.0.0.1";
  return {
    kind: kind as TunnelKind,
    binary: realpathSync(found),
    tunnelName,
    domain: new URL(config.issuerUrl).hostname,
    upstream: `http://${hostPort(host, config.bind.port)}`,
  };
}

function context(args: { os?: string; "dry-run"?: boolean; tunnel?: string; "tunnel-name"?: string }): {
  context: ServiceContext;
  dbPath: string;
} {
  const { config } = loadConfigOrExit();
  const paths = userPaths();
  const environment: Record<string, string> = {};
  for (const name of ["XDG_CONFIG_HOME", "XDG_DATA_HOME"]) if (process.env[name]) environment[name] = process.env[name] as string;
  return {
    context: {
      os: targetOs(args.os, args["dry-run"] === true),
      home: paths.home,
      configHome: dirname(dirname(paths.userEnvFile)),
      uid: process.getuid?.() ?? 0,
      daemonArgv: daemonArgv(),
      envFile: paths.userEnvFile,
      environment,
      tunnel: tunnelOptions(args.tunnel, args["tunnel-name"] ?? "hermes-mcp", config),
    },
    dbPath: config.dbPath,
  };
}

function carryOut(plan: ServicePlan): number {
  for (const file of plan.files) {
    if (file.secret) writePrivateFile(file.path, file.text);
    else {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.text);
      chmodSync(file.path, file.mode);
    }
    ui.success(`wrote ${file.path}`);
  }
  for (const path of plan.remove) {
    rmSync(path, { force: true });
    ui.success(`removed ${path}`);
  }
  let last = 0;
  for (const command of plan.commands) {
    const shown = shellCommand(command.argv);
    let code: number;
    try {
      code = Bun.spawnSync(command.argv, { stdio: ["inherit", "inherit", "inherit"] }).exitCode;
    } catch {
      throw new CliExit(
        `\`${command.argv[0]}\` was not found, so \`${shown}\` could not run; see the files with --dry-run and load them by hand`,
      );
    }
    if (code !== 0 && !command.mayFail) {
      // The usual cause in a container or an `su` shell: no user manager to talk to.
      const hint =
        command.argv[0] === "systemctl"
          ? "; if it cannot connect to the bus, log in as this user directly (not through su or sudo) or turn on lingering"
          : "";
      throw new CliExit(`\`${shown}\` failed (exit ${code}); see its message above${hint}`);
    }
    last = code;
  }
  return last;
}

function runPlan(plan: ServicePlan, dryRun: boolean): number {
  if (!dryRun) return carryOut(plan);
  writeStdout(describePlan(plan));
  return 0;
}

/** The env file to write: a fresh static client when it has none (its secret never shown, even in --dry-run). */
function envFilePlan(path: string): PlannedFile | null {
  const outcome = writeStaticClient(path, { replace: false, dryRun: true });
  if (!outcome.written) return null;
  return {
    path,
    mode: 0o600,
    secret: true,
    text: outcome.text,
    shown: outcome.text.replace(`OAUTH_CLIENT_SECRET=${outcome.client.secret}`, "OAUTH_CLIENT_SECRET=<a new 256-bit secret>"),
  };
}

/**
 * The service is restarted by the install; any other daemon on the database would keep it from starting (systemd would
 * retry every 2 s and give up). Beside one started by hand, or by a system unit of the same name, the install is
 * refused, changing nothing, so it is never left half done; a holder whose starter cannot be told (pid unknown), and a
 * dry run, are only warned about.
 */
function refuseBesideAnotherDaemon(dbPath: string, dryRun: boolean): void {
  const running = runningDaemon(dbPath);
  if (running === null) return;
  const holder = running === "unknown" ? null : running;
  const starter = starterOf(holder);
  if (isTheService(starter)) return;
  const problem = `a hermes-mcp is already running on this database (${describeHolder(holder)}) and the service cannot start beside it`;
  const fix = `stop it first (${howToStop(holder)})`;
  if (keepsTheServiceFromStarting(starter) && !dryRun)
    throw new CliExit(`${problem}. Nothing was changed: ${fix}, then run \`hermes-mcp service install\` again.`);
  ui.warn(`${problem}: ${fix}`);
}

const install = defineCommand({
  meta: {
    name: "install",
    description: "Write the unit for this binary, create the env file with a static client if missing, enable and start it",
  },
  args: {
    ...common,
    tunnel: { type: "string", description: "Also run a tunnel as a service, started after hermes-mcp", valueHint: "cloudflared|ngrok" },
    "tunnel-name": { type: "string", description: "cloudflared: the named tunnel to run (default hermes-mcp)" },
  },
  run: ({ args }) =>
    guarded(() => {
      const dryRun = args["dry-run"] === true;
      const { context: ctx, dbPath } = context(args);
      const envFile = envFilePlan(ctx.envFile);
      const plan = installPlan(ctx, envFile);
      refuseBesideAnotherDaemon(dbPath, dryRun);
      if (ctx.tunnel?.kind === "cloudflared" && !existsSync(join(ctx.home, ".cloudflared", "config.yml")))
        ui.warn(
          `~/.cloudflared/config.yml is missing: \`cloudflared tunnel run ${ctx.tunnel.tunnelName}\` needs it to route ${ctx.tunnel.domain} to ${ctx.tunnel.upstream} (see the README's Tunnels section)`,
        );
      runPlan(plan, dryRun);
      if (envFile) ui.info(`${dryRun ? "would write" : "wrote"} a new static OAuth client into ${ctx.envFile} (mode 0600)`);
      if (ctx.os === "linux") lingerAdvice();
      if (!dryRun) {
        ui.success(`hermes-mcp runs as a service: ${shellCommand(ctx.daemonArgv)}`);
        ui.info("Next: `hermes-mcp doctor`, then `hermes-mcp connect claude` for what to paste into Claude.");
      }
    }),
});

/** A systemd user manager stops at logout unless lingering is on: say so (loginctl keeps the list in /var/lib/systemd/linger). */
function lingerAdvice(): void {
  const user = loginName();
  if (existsSync(join("/var/lib/systemd/linger", user))) return;
  ui.warn(
    `lingering is off for ${user}: the service stops when you log out and starts at your next login. To keep it running: loginctl enable-linger ${user} (with sudo if it is refused)`,
  );
}

const present = (path: string): boolean => existsSync(path);

const uninstall = defineCommand({
  meta: { name: "uninstall", description: "Stop the service (and its tunnel) and remove the units; the env file and database stay" },
  args: common,
  run: ({ args }) =>
    guarded(() => {
      const { context: ctx } = context(args);
      runPlan(uninstallPlan(ctx, present), args["dry-run"] === true);
      if (args["dry-run"] !== true) ui.info(`${ctx.envFile} and the database are kept; delete them yourself to remove every trace.`);
    }),
});

const status = defineCommand({
  meta: { name: "status", description: "Show whether the service (and its tunnel) runs" },
  args: common,
  run: ({ args }) =>
    guarded(() => {
      const { context: ctx } = context(args);
      process.exitCode = runPlan(statusPlan(ctx, present), args["dry-run"] === true);
    }),
});

const logs = defineCommand({
  meta: { name: "logs", description: "Show the service's recent log lines (journald or ~/Library/Logs)" },
  args: {
    ...common,
    follow: { type: "boolean", alias: "f", description: "Keep printing new lines" },
    lines: { type: "string", description: "How many recent lines (default 200)" },
  },
  run: ({ args }) =>
    guarded(() => {
      const lines = Number(args.lines ?? "200");
      if (!Number.isInteger(lines) || lines < 1) throw new CliExit("--lines must be a whole number of 1 or more");
      const { context: ctx } = context(args);
      process.exitCode = runPlan(logsPlan(ctx, args.follow === true, lines), args["dry-run"] === true);
    }),
});

export default defineCommand({
  meta: { name: "service", description: "Run hermes-mcp as a systemd user service or LaunchAgent (install, uninstall, status, logs)" },
  subCommands: { install, uninstall, status, logs },
});
