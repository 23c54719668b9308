// The release path on this machine: a dist/ built for the host, install.sh checks and installs it, and the installed binary alone serves an MCP call.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostTarget } from "../../scripts/targets.ts";
import { FAKE_GATEWAY_KEY, type FakeGateway, startFakeGateway } from "../support/fake-gateway.ts";
import { connectClient, structuredOf } from "../support/mcp-client.ts";
import { freePort, tempHomes } from "../support/daemon.ts";

const ROOT = join(import.meta.dir, "..", "..");
const INSTALL = join(ROOT, "packaging", "install.sh");
const newHome = tempHomes();
const target = hostTarget();
const work = newHome();
const dist = join(work, "dist");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  license: string;
  scripts: Record<string, string>;
};
const sha256 = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

function sh(args: string[], options: { home: string; env?: Record<string, string> }) {
  const proc = Bun.spawnSync(["sh", INSTALL, ...args], {
    cwd: options.home,
    env: { PATH: "/usr/bin:/bin", HOME: options.home, ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

beforeAll(() => {
  if (!target) throw new Error(`no release target for ${process.platform}-${process.arch}`);
  // Only this machine's target: all seven take a few seconds more each, and are built by `bun run release`.
  const build = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "release.ts"), "--only", target.name, "--out", dist], {
    cwd: ROOT,
    stderr: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(build.stderr.toString());
});

describe("the release build", () => {
  test("dist/ holds the binary, SHA256SUMS in sha256sum's format, the unit, install.sh and LICENSE", () => {
    const name = target?.file as string;
    expect(readFileSync(join(dist, "SHA256SUMS"), "utf8")).toBe(`${sha256(join(dist, name))}  ${name}\n`);
    for (const file of ["hermes-mcp.service", "install.sh", "LICENSE"]) expect(existsSync(join(dist, file))).toBe(true);
    expect(readFileSync(join(dist, "LICENSE"), "utf8")).toContain("Apache License\n                        Version 2.0, January 2004");
    expect(pkg.license).toBe("Apache-2.0");
    expect(pkg.scripts.release).toBe("bun scripts/release.ts");
  });

  test("--version names the version, the commit it was built from and the target; from source it says so", () => {
    const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
    const built = Bun.spawnSync([join(dist, target?.file as string), "--version"], { cwd: work, env: { HOME: work } });
    expect(built.stdout.toString().trim()).toMatch(
      new RegExp(`^${pkg.version.replace(/\./g, "\\.")} \\(commit ${head}(-dirty)?, ${target?.name}\\)$`),
    );
    const source = Bun.spawnSync([process.execPath, join(ROOT, "src", "cli", "index.ts"), "--version"], { cwd: work, env: { HOME: work } });
    expect(source.stdout.toString().trim()).toBe(`${pkg.version} (from source)`);
  });
});

describe("install.sh", () => {
  test("is shellcheck-clean POSIX sh", () => {
    if (!Bun.which("shellcheck")) return; // CI installs shellcheck; elsewhere this check is skipped
    const result = Bun.spawnSync(["shellcheck", "-s", "sh", INSTALL], { stdout: "pipe" });
    expect(result.exitCode, result.stdout.toString()).toBe(0);
  });

  test("--from DIR installs this machine's binary into ~/.local/bin after checking it, and says what to do next", () => {
    const home = newHome();
    const result = sh(["--from", dist], { home });
    expect(result.code, result.stderr).toBe(0);
    const installed = join(home, ".local", "bin", "hermes-mcp");
    expect(sha256(installed)).toBe(sha256(join(dist, target?.file as string)));
    expect(statSync(installed).mode & 0o777).toBe(0o755);
    expect(result.stdout).toContain("checksum verified");
    expect(result.stdout).toContain(`export PATH="${join(home, ".local", "bin")}:$PATH"`);
    expect(result.stdout).toContain("service install");
  });

  test("--prefix installs into PREFIX/bin", () => {
    const home = newHome();
    const result = sh(["--from", dist, "--prefix", join(home, "opt")], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(home, "opt", "bin", "hermes-mcp"))).toBe(true);
  });

  test("a tampered binary is refused and nothing is installed", () => {
    const home = newHome();
    const bad = join(home, "dist");
    cpSync(dist, bad, { recursive: true });
    const file = join(bad, target?.file as string);
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    writeFileSync(file, bytes);
    const result = sh(["--from", bad], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("checksum mismatch");
    expect(existsSync(join(home, ".local", "bin", "hermes-mcp"))).toBe(false);
  });

  test("a SHA256SUMS that does not list the file is refused", () => {
    const home = newHome();
    const bad = join(home, "dist");
    cpSync(dist, bad, { recursive: true });
    writeFileSync(join(bad, "SHA256SUMS"), `${"0".repeat(64)}  hermes-mcp-something-else\n`);
    const result = sh(["--from", bad], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`SHA256SUMS lists no ${target?.file}`);
    expect(existsSync(join(home, ".local", "bin", "hermes-mcp"))).toBe(false);
  });

  test("picks the musl build when the system's loader is musl's, the glibc one otherwise", () => {
    if (process.platform !== "linux") return;
    const home = newHome();
    const arch = process.arch === "arm64" ? "aarch64" : "x86_64";
    const glibcRoot = join(home, "glibc");
    mkdirSync(join(glibcRoot, "lib"), { recursive: true });
    writeFileSync(join(glibcRoot, "lib", `ld-linux-${arch}.so.2`), "");
    const muslRoot = join(home, "musl");
    mkdirSync(join(muslRoot, "lib"), { recursive: true });
    writeFileSync(join(muslRoot, "lib", `ld-musl-${arch}.so.1`), "");
    const glibcName = `hermes-mcp-linux-${process.arch}`;
    expect(sh(["--print-target"], { home, env: { HERMES_MCP_INSTALL_SYSROOT: glibcRoot } }).stdout.trim()).toBe(glibcName);
    expect(sh(["--print-target"], { home, env: { HERMES_MCP_INSTALL_SYSROOT: muslRoot } }).stdout.trim()).toBe(`${glibcName}-musl`);
    expect(
      sh(["--print-target"], { home, env: { HERMES_MCP_INSTALL_LIBC: "musl", HERMES_MCP_INSTALL_SYSROOT: glibcRoot } }).stdout.trim(),
    ).toBe(`${glibcName}-musl`);
    // A folder without the musl build: install says which file is missing rather than installing the wrong one.
    const result = sh(["--from", dist], { home, env: { HERMES_MCP_INSTALL_SYSROOT: muslRoot } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`has no ${glibcName}-musl`);
  });
});

describe("the installed binary, alone", () => {
  const home = newHome();
  const bin = join(home, ".local", "bin", "hermes-mcp");
  let gateway: FakeGateway;
  beforeAll(async () => {
    expect(sh(["--from", dist], { home }).code).toBe(0);
    gateway = await startFakeGateway();
  });
  afterAll(() => gateway.stop());
  // No bun, no node_modules: only the system's folders on PATH, started from an empty HOME.
  const env = (extra: Record<string, string> = {}) => ({ HOME: home, PATH: "/usr/bin:/bin", ...extra });

  test("service install --dry-run runs exactly the installed path", () => {
    const result = Bun.spawnSync([bin, "service", "install", "--dry-run"], { cwd: home, env: env(), stdout: "pipe", stderr: "pipe" });
    expect(result.exitCode, result.stderr.toString()).toBe(0);
    expect(result.stdout.toString()).toContain(`\nExecStart=${bin} serve\n`);
  });

  test("serves a real MCP call through to the gateway", async () => {
    const port = freePort();
    const serveEnv = env({ BIND_PORT: String(port), HERMES_API_URL: gateway.url, HERMES_API_KEY: FAKE_GATEWAY_KEY });
    const token = Bun.spawnSync([bin, "token", "create", "--name", "e2e"], { cwd: home, env: serveEnv, stdout: "pipe" })
      .stdout.toString()
      .trim()
      .split("\n")
      .at(-1) as string;
    const proc = Bun.spawn([bin, "serve"], { cwd: home, env: serveEnv, stdout: "ignore", stderr: "ignore" });
    try {
      for (let i = 0; i < 200; i++) {
        if (
          await fetch(`http://127.0.0.1:${port}/healthz`)
            .then((r) => r.ok)
            .catch(() => false)
        )
          break;
        await Bun.sleep(25);
      }
      const client = await connectClient(`http://127.0.0.1:${port}`, token);
      try {
        const result = await client.callTool({ name: "hermes_ask", arguments: { prompt: "say hi" } });
        expect(structuredOf(result).status).toBe("completed");
      } finally {
        await client.close();
      }
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });
});
