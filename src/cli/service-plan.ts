// What `hermes-mcp service install|uninstall|status|logs` does, as a plan of files and commands: printed by --dry-run, carried out otherwise.
import { dirname, join } from "node:path";
import { shellCommand } from "../shell-word.ts";
import {
  daemonSystemdUnit,
  LAUNCHD_LABEL,
  launchAgentPlist,
  SERVICE_NAME,
  systemdCommand,
  type TunnelKind,
  type TunnelOptions,
  tunnelCommand,
  tunnelLaunchdLabel,
  tunnelServiceName,
  tunnelSystemdUnit,
} from "./service-units.ts";

export type ServiceOs = "linux" | "macos";

export interface PlannedFile {
  path: string;
  mode: number;
  text: string;
  /** What --dry-run shows instead of `text` (the env file's new secret is never printed). */
  shown?: string;
  /** Written through writePrivateFile (folder 0700, file 0600, atomic rename). */
  secret?: boolean;
}

export interface PlannedCommand {
  argv: string[];
  /** Failure is expected and harmless (stopping a service that is not loaded). */
  mayFail?: boolean;
}

export interface ServicePlan {
  files: PlannedFile[];
  remove: string[];
  commands: PlannedCommand[];
}

export interface ServiceContext {
  os: ServiceOs;
  home: string;
  /** $XDG_CONFIG_HOME or ~/.config: systemd's user units live under it. */
  configHome: string;
  uid: number;
  /** The command that runs the daemon: the binary's real path, or bun and src/cli/index.ts from source. */
  daemonArgv: string[];
  envFile: string;
  /** Variables the service must see as this shell does (XDG folders that move the env file and database). */
  environment: Record<string, string>;
  tunnel: TunnelOptions | null;
}

const TUNNELS: TunnelKind[] = ["cloudflared", "ngrok"];

export function unitDir(context: Pick<ServiceContext, "os" | "home" | "configHome">): string {
  return context.os === "linux" ? join(context.configHome, "systemd", "user") : join(context.home, "Library", "LaunchAgents");
}

/** Every unit file this command may have written: the daemon's and each tunnel's. */
export function unitFiles(context: Pick<ServiceContext, "os" | "home" | "configHome">): {
  daemon: string;
  tunnels: Record<TunnelKind, string>;
} {
  const dir = unitDir(context);
  const file = (name: string) => join(dir, context.os === "linux" ? `${name}.service` : `${name}.plist`);
  return {
    daemon: file(context.os === "linux" ? SERVICE_NAME : LAUNCHD_LABEL),
    tunnels: {
      cloudflared: file(context.os === "linux" ? tunnelServiceName("cloudflared") : tunnelLaunchdLabel("cloudflared")),
      ngrok: file(context.os === "linux" ? tunnelServiceName("ngrok") : tunnelLaunchdLabel("ngrok")),
    },
  };
}

const logFile = (home: string, name: string): string => join(home, "Library", "Logs", `${name}.log`);
const domain = (uid: number): string => `gui/${uid}`;

/** Files and commands that install (or reinstall: a new binary path, a restart) the service. `envFile` is the env file to write, if any. */
export function installPlan(context: ServiceContext, envFile: PlannedFile | null): ServicePlan {
  const units = unitFiles(context);
  const files: PlannedFile[] = envFile ? [envFile] : [];
  const commands: PlannedCommand[] = [];
  if (context.os === "linux") {
    files.push({
      path: units.daemon,
      mode: 0o644,
      text: daemonSystemdUnit({
        execStart: systemdCommand(context.daemonArgv),
        settingsFile: context.envFile,
        workingDirectory: dirname(context.envFile).replace(/%/g, "%%"),
        environment: context.environment,
      }),
    });
    const services = [`${SERVICE_NAME}.service`];
    if (context.tunnel) {
      files.push({ path: units.tunnels[context.tunnel.kind], mode: 0o644, text: tunnelSystemdUnit(context.tunnel) });
      services.push(`${tunnelServiceName(context.tunnel.kind)}.service`);
    }
    commands.push({ argv: ["systemctl", "--user", "daemon-reload"] });
    commands.push({ argv: ["systemctl", "--user", "enable", ...services] });
    // restart, not start: a reinstall (a new binary, a changed unit) takes effect now.
    commands.push({ argv: ["systemctl", "--user", "restart", ...services] });
    return { files, remove: [], commands };
  }
  const agents: { label: string; path: string }[] = [{ label: LAUNCHD_LABEL, path: units.daemon }];
  files.push({
    path: units.daemon,
    mode: 0o644,
    text: launchAgentPlist({
      label: LAUNCHD_LABEL,
      argv: context.daemonArgv,
      logFile: logFile(context.home, SERVICE_NAME),
      environment: context.environment,
    }),
  });
  if (context.tunnel) {
    const label = tunnelLaunchdLabel(context.tunnel.kind);
    const path = units.tunnels[context.tunnel.kind];
    files.push({
      path,
      mode: 0o644,
      text: launchAgentPlist({
        label,
        argv: tunnelCommand(context.tunnel),
        logFile: logFile(context.home, tunnelServiceName(context.tunnel.kind)),
      }),
    });
    agents.push({ label, path });
  }
  // launchd has no ordering between agents: hermes-mcp is loaded first, and KeepAlive restarts a tunnel that exits early.
  for (const agent of agents) {
    commands.push({ argv: ["launchctl", "bootout", `${domain(context.uid)}/${agent.label}`], mayFail: true });
    commands.push({ argv: ["launchctl", "bootstrap", domain(context.uid), agent.path] });
  }
  return { files, remove: [], commands };
}

/** Stops and removes the service and any tunnel unit written beside it; the env file and the database stay. */
export function uninstallPlan(context: ServiceContext, present: (path: string) => boolean): ServicePlan {
  const units = unitFiles(context);
  const tunnels = TUNNELS.filter((kind) => present(units.tunnels[kind]));
  const remove = [units.daemon, ...tunnels.map((kind) => units.tunnels[kind])].filter(present);
  if (context.os === "linux") {
    const services = [`${SERVICE_NAME}.service`, ...tunnels.map((kind) => `${tunnelServiceName(kind)}.service`)];
    return {
      files: [],
      remove,
      commands: [
        { argv: ["systemctl", "--user", "disable", "--now", ...services], mayFail: true },
        { argv: ["systemctl", "--user", "daemon-reload"] },
      ],
    };
  }
  const labels = [LAUNCHD_LABEL, ...tunnels.map(tunnelLaunchdLabel)];
  return {
    files: [],
    remove,
    commands: labels.map((label) => ({ argv: ["launchctl", "bootout", `${domain(context.uid)}/${label}`], mayFail: true })),
  };
}

export function statusPlan(context: ServiceContext, present: (path: string) => boolean): ServicePlan {
  const units = unitFiles(context);
  const tunnels = TUNNELS.filter((kind) => present(units.tunnels[kind]));
  if (context.os === "linux") {
    const services = [`${SERVICE_NAME}.service`, ...tunnels.map((kind) => `${tunnelServiceName(kind)}.service`)];
    return { files: [], remove: [], commands: [{ argv: ["systemctl", "--user", "status", "--no-pager", ...services] }] };
  }
  const labels = [LAUNCHD_LABEL, ...tunnels.map(tunnelLaunchdLabel)];
  return { files: [], remove: [], commands: labels.map((label) => ({ argv: ["launchctl", "print", `${domain(context.uid)}/${label}`] })) };
}

export function logsPlan(context: ServiceContext, follow: boolean, lines: number): ServicePlan {
  const argv =
    context.os === "linux"
      ? ["journalctl", "--user", "-u", `${SERVICE_NAME}.service`, "-n", String(lines), ...(follow ? ["-f"] : ["--no-pager"])]
      : ["tail", "-n", String(lines), ...(follow ? ["-f"] : []), logFile(context.home, SERVICE_NAME)];
  return { files: [], remove: [], commands: [{ argv }] };
}

/** The --dry-run text: each file between `--- PATH (mode NNNN)` and `--- end`, each removal, then each command after `$ `. */
export function describePlan(plan: ServicePlan): string {
  const out: string[] = [];
  for (const file of plan.files) {
    out.push(`--- ${file.path} (mode ${file.mode.toString(8).padStart(4, "0")})`, (file.shown ?? file.text).replace(/\n$/, ""), "--- end");
  }
  for (const path of plan.remove) out.push(`rm ${shellCommand([path])}`);
  for (const command of plan.commands) out.push(`$ ${shellCommand(command.argv)}${command.mayFail ? "  # may fail if not loaded" : ""}`);
  return `${out.join("\n")}\n`;
}
