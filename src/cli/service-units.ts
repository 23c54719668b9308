// The service files `hermes-mcp service install` writes: a systemd user unit (Linux) or LaunchAgent (macOS), and optionally a tunnel's, as plain text.

export type TunnelKind = "cloudflared" | "ngrok";

export const SERVICE_NAME = "hermes-mcp";
export const LAUNCHD_LABEL = "com.hermes-mcp";
export const tunnelServiceName = (kind: TunnelKind): string => `hermes-mcp-${kind}`;
export const tunnelLaunchdLabel = (kind: TunnelKind): string => `com.hermes-mcp.${kind}`;

/** One word of an ExecStart= line: `%` and `$` doubled (specifiers, variables), quoted when it holds anything else unusual (systemd.syntax). */
export function systemdWord(word: string): string {
  const escaped = word.replace(/%/g, "%%").replace(/\$/g, "$$$$");
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped) ? escaped : `"${escaped.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** A whole ExecStart= command line from argv. */
export const systemdCommand = (argv: string[]): string => argv.map(systemdWord).join(" ");

/**
 * Hardening that works in a *user* unit: seccomp-based settings (a user manager applies them with NoNewPrivileges=)
 * and a private umask. Namespace-based ones (ProtectSystem=, ProtectHome=, PrivateTmp=) need privileges or
 * unprivileged user namespaces, which many distributions restrict, so a user unit using them may fail to start.
 * MemoryDenyWriteExecute= is left out: Bun's JavaScript JIT needs writable+executable memory.
 */
const USER_UNIT_HARDENING = [
  "NoNewPrivileges=yes",
  "LockPersonality=yes",
  "RestrictRealtime=yes",
  "RestrictSUIDSGID=yes",
  "RestrictNamespaces=yes",
  "SystemCallArchitectures=native",
  "UMask=0077",
];

export interface DaemonUnitOptions {
  /** The ExecStart= line, already in systemd syntax (systemdCommand for real paths; `%h/…` in the packaged unit). */
  execStart: string;
  /** The env file, as the comment above ExecStart= names it. */
  settingsFile: string;
  /**
   * The folder it runs in, as systemd takes a path (%h allowed): the env file's. A user unit otherwise runs in the home
   * folder, where a `~/.env` (another project's) would be read as `./.env` and beat the env file.
   */
  workingDirectory: string;
  /** Extra variables the daemon must see as the installing shell did (XDG_CONFIG_HOME, XDG_DATA_HOME). */
  environment?: Record<string, string>;
  /** The first comment line: who wrote the file. */
  origin?: string;
}

export function daemonSystemdUnit(options: DaemonUnitOptions): string {
  const environment = Object.entries(options.environment ?? {}).map(([key, value]) => `Environment=${systemdWord(`${key}=${value}`)}`);
  return [
    options.origin ??
      "# systemd user unit for hermes-mcp, written by `hermes-mcp service install` (run it again rather than editing this file).",
    "[Unit]",
    "Description=hermes-mcp — remote MCP bridge to Hermes Agent",
    "Documentation=https://github.com/mlennie/hermes-mcp",
    "After=network-online.target hermes-gateway.service",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    // No EnvironmentFile=: systemd's parser reads `BIND_PORT=8765 # note` as "8765 # note" (no inline comments), so the
    // service would see values `serve` and `doctor` never do. hermes-mcp reads the file itself, one parser for all.
    `# Settings: ${options.settingsFile}, read by hermes-mcp itself (also when you run it by hand).`,
    ...environment,
    // "-": a folder removed since is no reason not to start.
    `WorkingDirectory=-${options.workingDirectory}`,
    `ExecStart=${options.execStart}`,
    "Restart=on-failure",
    "RestartSec=2",
    "# Graceful stop: hermes-mcp interrupts active jobs and records them before exiting.",
    "KillSignal=SIGTERM",
    "TimeoutStopSec=15",
    ...USER_UNIT_HARDENING,
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

export interface TunnelOptions {
  kind: TunnelKind;
  /** Absolute path of cloudflared or ngrok. */
  binary: string;
  /** cloudflared: the named tunnel (its ~/.cloudflared/config.yml routes the host name to hermes-mcp). */
  tunnelName: string;
  /** ngrok: the reserved domain (OAUTH_ISSUER_URL's host). */
  domain: string;
  /** ngrok: where hermes-mcp listens. */
  upstream: string;
}

/** The tunnel's command line. */
export function tunnelCommand(options: TunnelOptions): string[] {
  return options.kind === "cloudflared"
    ? [options.binary, "tunnel", "run", options.tunnelName]
    : [options.binary, "http", "--domain", options.domain, options.upstream];
}

/** The tunnel's user unit: started after hermes-mcp (and pulling it in), so the public URL never answers 502 at boot. */
export function tunnelSystemdUnit(options: TunnelOptions): string {
  return [
    `# systemd user unit for the ${options.kind} tunnel in front of hermes-mcp, written by \`hermes-mcp service install --tunnel ${options.kind}\`.`,
    "[Unit]",
    `Description=${options.kind} tunnel to hermes-mcp`,
    `After=network-online.target ${SERVICE_NAME}.service`,
    `Wants=network-online.target ${SERVICE_NAME}.service`,
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${systemdCommand(tunnelCommand(options))}`,
    "Restart=on-failure",
    "RestartSec=5",
    ...USER_UNIT_HARDENING,
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

const xml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export interface LaunchAgentOptions {
  label: string;
  argv: string[];
  logFile: string;
  environment?: Record<string, string>;
}

/** A LaunchAgent plist: started at login, restarted when it fails, private umask, output to a log file. */
export function launchAgentPlist(options: LaunchAgentOptions): string {
  const environment = Object.entries(options.environment ?? {});
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    "<!-- Written by `hermes-mcp service install` (run it again rather than editing this file). hermes-mcp reads ~/.config/hermes-mcp/env itself: no secrets belong here. -->",
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  <string>${xml(options.label)}</string>`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...options.argv.map((arg) => `    <string>${xml(arg)}</string>`),
    "  </array>",
    ...(environment.length > 0
      ? [
          "  <key>EnvironmentVariables</key>",
          "  <dict>",
          ...environment.flatMap(([key, value]) => [`    <key>${xml(key)}</key>`, `    <string>${xml(value)}</string>`]),
          "  </dict>",
        ]
      : []),
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key>",
    "    <false/>",
    "  </dict>",
    "  <key>Umask</key>",
    "  <integer>63</integer>",
    "  <key>StandardOutPath</key>",
    `  <string>${xml(options.logFile)}</string>`,
    "  <key>StandardErrorPath</key>",
    `  <string>${xml(options.logFile)}</string>`,
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

/** The units shipped in dist/ and packaging/systemd/: for a binary installed by install.sh in ~/.local/bin. */
export function renderPackagedUnits(): Record<string, string> {
  return {
    "hermes-mcp.service": daemonSystemdUnit({
      execStart: "%h/.local/bin/hermes-mcp serve",
      settingsFile: "~/.config/hermes-mcp/env",
      workingDirectory: "%h/.config/hermes-mcp",
      origin:
        "# systemd user unit for hermes-mcp in ~/.local/bin (where install.sh puts it); `hermes-mcp service install` writes and loads it for you.",
    }),
  };
}
