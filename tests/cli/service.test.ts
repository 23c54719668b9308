// `hermes-mcp service`: --dry-run shows valid units for this very command (paths, ExecStart, the env file named, tunnel ordering); a real install writes them and drives systemctl.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderPackagedUnits } from "../../src/cli/service-units.ts";
import { runCli, startTestDaemon, tempHomes } from "../support/daemon.ts";

const ROOT = join(import.meta.dir, "..", "..");
const newHome = tempHomes();
const SOURCE_EXEC = `${realpathSync(process.execPath)} --no-env-file ${join(ROOT, "src", "cli", "index.ts")} serve`;

interface DryRun {
  files: Map<string, { mode: string; text: string }>;
  commands: string[];
}

/** Reads --dry-run output: `--- PATH (mode NNNN)` … `--- end` blocks, `rm PATH` lines and `$ command` lines. */
export function parseDryRun(stdout: string): DryRun {
  const files = new Map<string, { mode: string; text: string }>();
  const commands: string[] = [];
  const lines = stdout.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const header = line.match(/^--- (.+) \(mode (\d{4})\)$/);
    if (header) {
      const body: string[] = [];
      for (i++; lines[i] !== "--- end"; i++) body.push(lines[i] as string);
      files.set(header[1] as string, { mode: header[2] as string, text: `${body.join("\n")}\n` });
    } else if (line.startsWith("$ ")) commands.push(line.slice(2).replace(/ {2}# .*$/, ""));
    else if (line.startsWith("rm ")) commands.push(line);
  }
  return { files, commands };
}

/** `Key=value` lines of one [Section] of a unit (repeated keys kept in order). */
function section(unit: string, name: string): [string, string][] {
  const body = unit.split(/^\[/m).find((part) => part.startsWith(`${name}]`)) ?? "";
  return body
    .split("\n")
    .slice(1)
    .filter((line) => /^\w+=/.test(line))
    .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]);
}
const value = (unit: string, name: string, key: string): string[] =>
  section(unit, name)
    .filter(([k]) => k === key)
    .map(([, v]) => v);

function withEnvFile(home: string, text: string): string {
  const path = join(home, ".config", "hermes-mcp", "env");
  mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true, mode: 0o700 });
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** A folder of stand-in programs (ngrok, cloudflared, systemctl…) that record their arguments in calls.log. */
function fakeBin(home: string, names: string[]): { path: string; calls: () => string[] } {
  const dir = join(home, "fakebin");
  mkdirSync(dir, { recursive: true });
  const log = join(home, "calls.log");
  for (const name of names) {
    writeFileSync(join(dir, name), `#!/bin/sh\necho "${name} $*" >> "${log}"\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return { path: `${dir}:${process.env.PATH}`, calls: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []) };
}

async function verifyUnits(home: string, paths: string[]): Promise<void> {
  if (!Bun.which("systemd-analyze")) return; // verified where systemd is installed (CI's Debian image has it)
  const runtime = join(home, "runtime");
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const proc = Bun.spawnSync(["systemd-analyze", "verify", "--user", ...paths], {
    env: { ...process.env, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: join(home, ".config") },
    stderr: "pipe",
  });
  const stderr = proc.stderr.toString();
  // Unknown or misplaced directives are only warnings to systemd: any "ignoring" counts as a failure here.
  expect(stderr).not.toMatch(/Unknown|ignoring|not executable|Failed/);
  expect(proc.exitCode, stderr).toBe(0);
}

describe("service install --dry-run on Linux", () => {
  test("shows the env file (secret hidden) and a systemd user unit for this command, and changes nothing", async () => {
    const home = newHome();
    const result = await runCli(["service", "install", "--dry-run"], { home });
    expect(result.code, result.stderr).toBe(0);
    const { files, commands } = parseDryRun(result.stdout);
    const envPath = join(home, ".config", "hermes-mcp", "env");
    const unitPath = join(home, ".config", "systemd", "user", "hermes-mcp.service");
    expect([...files.keys()]).toEqual([envPath, unitPath]);
    expect(files.get(envPath)?.mode).toBe("0600");
    expect(files.get(envPath)?.text).toMatch(/^OAUTH_CLIENT_ID=hermes-[0-9a-f]{16}\nOAUTH_CLIENT_SECRET=<a new 256-bit secret>\n$/);
    const unit = files.get(unitPath)?.text as string;
    expect(files.get(unitPath)?.mode).toBe("0644");
    expect(value(unit, "Service", "ExecStart")).toEqual([SOURCE_EXEC]);
    // hermes-mcp reads the env file itself: systemd's EnvironmentFile= would read `X=1 # note` as "1 # note".
    expect(value(unit, "Service", "EnvironmentFile")).toEqual([]);
    expect(unit).toContain(`# Settings: ${envPath}, read by hermes-mcp itself`);
    // It runs in the env file's folder, not the home folder, whose ~/.env (another project's) would beat the env file.
    expect(value(unit, "Service", "WorkingDirectory")).toEqual([`-${join(home, ".config", "hermes-mcp")}`]);
    // The test's XDG folders move the env file and database: the service must see them too.
    expect(value(unit, "Service", "Environment")).toEqual([
      `XDG_CONFIG_HOME=${join(home, ".config")}`,
      `XDG_DATA_HOME=${join(home, ".local", "share")}`,
    ]);
    expect(value(unit, "Install", "WantedBy")).toEqual(["default.target"]);
    expect(commands).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable hermes-mcp.service",
      "systemctl --user restart hermes-mcp.service",
    ]);
    // Run with no USER or LOGNAME (as under su): the advice still names the account, not Bun's "unknown".
    const account = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
    if (!existsSync(join("/var/lib/systemd/linger", account))) expect(result.stderr).toContain(`loginctl enable-linger ${account} `);
    expect(result.stderr).not.toContain("unknown");
    expect(existsSync(envPath)).toBe(false);
    expect(existsSync(unitPath)).toBe(false);
    writeFileSync(join(home, "hermes-mcp.service"), unit);
    await verifyUnits(home, [join(home, "hermes-mcp.service")]);
  });

  test("keeps an env file that already has a static client", async () => {
    const home = newHome();
    withEnvFile(home, "OAUTH_CLIENT_ID=hermes-mine\nOAUTH_CLIENT_SECRET=" + "x".repeat(43) + "\n");
    const { files } = parseDryRun((await runCli(["service", "install", "--dry-run"], { home })).stdout);
    expect([...files.keys()]).toEqual([join(home, ".config", "systemd", "user", "hermes-mcp.service")]);
  });

  test("--tunnel ngrok: a second unit for the reserved domain, ordered after hermes-mcp and pulling it in", async () => {
    const home = newHome();
    withEnvFile(home, "OAUTH_ISSUER_URL=https://hermes.example.com\nBIND_PORT=8799\n");
    const bin = fakeBin(home, ["ngrok"]);
    const result = await runCli(["service", "install", "--dry-run", "--tunnel", "ngrok"], { home, env: { PATH: bin.path } });
    expect(result.code, result.stderr).toBe(0);
    const { files, commands } = parseDryRun(result.stdout);
    const tunnelPath = join(home, ".config", "systemd", "user", "hermes-mcp-ngrok.service");
    const unit = files.get(tunnelPath)?.text as string;
    expect(value(unit, "Service", "ExecStart")).toEqual([
      `${join(home, "fakebin", "ngrok")} http --domain hermes.example.com http://127.0.0.1:8799`,
    ]);
    expect(value(unit, "Unit", "After")[0]?.split(" ")).toContain("hermes-mcp.service");
    expect(value(unit, "Unit", "Wants")[0]?.split(" ")).toContain("hermes-mcp.service");
    expect(commands).toContain("systemctl --user enable hermes-mcp.service hermes-mcp-ngrok.service");
    expect(commands).toContain("systemctl --user restart hermes-mcp.service hermes-mcp-ngrok.service");
    writeFileSync(join(home, "hermes-mcp-ngrok.service"), unit);
    await verifyUnits(home, [join(home, "hermes-mcp-ngrok.service")]);
  });

  test("--tunnel cloudflared runs the named tunnel, and says when its config.yml is missing", async () => {
    const home = newHome();
    withEnvFile(home, "OAUTH_ISSUER_URL=https://hermes.example.com\n");
    const bin = fakeBin(home, ["cloudflared"]);
    const result = await runCli(["service", "install", "--dry-run", "--tunnel", "cloudflared", "--tunnel-name", "home"], {
      home,
      env: { PATH: bin.path },
    });
    expect(result.code, result.stderr).toBe(0);
    const unit = parseDryRun(result.stdout).files.get(join(home, ".config", "systemd", "user", "hermes-mcp-cloudflared.service"))
      ?.text as string;
    expect(value(unit, "Service", "ExecStart")).toEqual([`${join(home, "fakebin", "cloudflared")} tunnel run home`]);
    expect(value(unit, "Unit", "After")[0]?.split(" ")).toContain("hermes-mcp.service");
    expect(result.stderr).toContain(".cloudflared/config.yml");
  });

  test("a tunnel needs the public URL it serves, and its program installed", async () => {
    const home = newHome();
    const bin = fakeBin(home, ["ngrok"]);
    const noIssuer = await runCli(["service", "install", "--dry-run", "--tunnel", "ngrok"], { home, env: { PATH: bin.path } });
    expect(noIssuer.code).toBe(1);
    expect(noIssuer.stderr).toContain("OAUTH_ISSUER_URL");
    const missing = await runCli(["service", "install", "--dry-run", "--tunnel", "cloudflared"], { home, env: { PATH: "/usr/bin:/bin" } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cloudflared is not on your PATH");
  });

  test("status and logs show the systemctl and journalctl commands", async () => {
    const home = newHome();
    expect(parseDryRun((await runCli(["service", "status", "--dry-run"], { home })).stdout).commands).toEqual([
      "systemctl --user status --no-pager hermes-mcp.service",
    ]);
    expect(parseDryRun((await runCli(["service", "logs", "--dry-run", "--lines", "50", "-f"], { home })).stdout).commands).toEqual([
      "journalctl --user -u hermes-mcp.service -n 50 -f",
    ]);
  });
});

describe("service install --dry-run --os macos", () => {
  test("a LaunchAgent for this command in ~/Library/LaunchAgents, loaded with launchctl bootstrap", async () => {
    const home = newHome();
    const result = await runCli(["service", "install", "--dry-run", "--os", "macos"], { home });
    expect(result.code, result.stderr).toBe(0);
    const { files, commands } = parseDryRun(result.stdout);
    const plistPath = join(home, "Library", "LaunchAgents", "com.hermes-mcp.plist");
    const plist = files.get(plistPath)?.text as string;
    expect(plist).toContain("<key>Label</key>\n  <string>com.hermes-mcp</string>");
    const args = [
      ...(plist.match(/<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/)?.[1] ?? "").matchAll(/<string>(.*?)<\/string>/g),
    ].map((m) => m[1]);
    expect(args.join(" ")).toBe(SOURCE_EXEC);
    expect(plist).toContain(`<string>${join(home, "Library", "Logs", "hermes-mcp.log")}</string>`);
    const uid = process.getuid?.() ?? 0;
    expect(commands).toEqual([`launchctl bootout gui/${uid}/com.hermes-mcp`, `launchctl bootstrap gui/${uid} ${plistPath}`]);
  });

  test("another OS than this one is only ever a dry run", async () => {
    const result = await runCli(["service", "install", "--os", "macos"], { home: newHome() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--dry-run");
  });
});

describe("service install and uninstall for real (systemctl stood in for)", () => {
  test("writes the env file 0600 and the unit 0644, reloads, enables and restarts; uninstall removes the unit and keeps the env file", async () => {
    const home = newHome();
    const bin = fakeBin(home, ["systemctl"]);
    const installed = await runCli(["service", "install"], { home, env: { PATH: bin.path } });
    expect(installed.code, installed.stderr).toBe(0);
    const envPath = join(home, ".config", "hermes-mcp", "env");
    const unitPath = join(home, ".config", "systemd", "user", "hermes-mcp.service");
    expect(statSync(envPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, ".config", "hermes-mcp")).mode & 0o777).toBe(0o700);
    expect(readFileSync(envPath, "utf8")).toMatch(/^OAUTH_CLIENT_ID=hermes-[0-9a-f]{16}\nOAUTH_CLIENT_SECRET=[A-Za-z0-9_-]{43}\n$/);
    expect(statSync(unitPath).mode & 0o777).toBe(0o644);
    expect(value(readFileSync(unitPath, "utf8"), "Service", "ExecStart")).toEqual([SOURCE_EXEC]);
    expect(installed.stderr).not.toMatch(/OAUTH_CLIENT_SECRET=[A-Za-z0-9_-]{43}/);
    expect(bin.calls()).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable hermes-mcp.service",
      "systemctl --user restart hermes-mcp.service",
    ]);

    const envBefore = readFileSync(envPath, "utf8");
    const removed = await runCli(["service", "uninstall"], { home, env: { PATH: bin.path } });
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(unitPath)).toBe(false);
    expect(readFileSync(envPath, "utf8")).toBe(envBefore);
    expect(bin.calls().slice(3)).toEqual(["systemctl --user disable --now hermes-mcp.service", "systemctl --user daemon-reload"]);
  });

  test("beside a daemon started by hand it changes nothing and says how to stop that one; --dry-run only warns", async () => {
    const home = newHome();
    const bin = fakeBin(home, ["systemctl"]);
    const daemon = await startTestDaemon({ home });
    try {
      const refused = await runCli(["service", "install"], { home, env: { PATH: bin.path } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `a hermes-mcp is already running on this database (pid ${daemon.proc.pid}, port ${daemon.port}) and the service cannot start beside it. Nothing was changed: stop it first (Ctrl-C in the terminal where it runs, or kill ${daemon.proc.pid}), then run hermes-mcp service install again.`,
      );
      expect(bin.calls()).toEqual([]);
      expect(existsSync(join(home, ".config", "systemd", "user", "hermes-mcp.service"))).toBe(false);
      expect(existsSync(join(home, ".config", "hermes-mcp", "env"))).toBe(false);

      const dry = await runCli(["service", "install", "--dry-run"], { home, env: { PATH: bin.path } });
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stderr).toContain(
        `the service cannot start beside it: stop it first (Ctrl-C in the terminal where it runs, or kill ${daemon.proc.pid})`,
      );
      expect(parseDryRun(dry.stdout).commands).toContain("systemctl --user restart hermes-mcp.service");
    } finally {
      await daemon.stop();
    }
  });

  test("a failing systemctl is reported with the command", async () => {
    const home = newHome();
    const dir = join(home, "failbin");
    mkdirSync(dir);
    writeFileSync(join(dir, "systemctl"), "#!/bin/sh\necho 'Failed to connect to bus' >&2\nexit 1\n");
    chmodSync(join(dir, "systemctl"), 0o755);
    const result = await runCli(["service", "install"], { home, env: { PATH: `${dir}:${process.env.PATH}` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("systemctl --user daemon-reload failed");
    expect(result.stderr).toContain("log in as this user directly");
  });
});

test("packaging/systemd/hermes-mcp.service is the unit the code renders (one source)", () => {
  expect(readFileSync(join(ROOT, "packaging", "systemd", "hermes-mcp.service"), "utf8")).toBe(
    renderPackagedUnits()["hermes-mcp.service"] as string,
  );
});
