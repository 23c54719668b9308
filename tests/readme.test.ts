// The README is the contract: every variable and command it must document is there, and its set-up commands run as written.
import { describe, expect, test } from "bun:test";
import type { ArgsDef, CommandDef } from "citty";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RELEASE_TARGETS } from "../scripts/targets.ts";
import { CONNECT_CLIENTS } from "../src/cli/connect-formats.ts";
import { EnvSchema } from "../src/config/schema.ts";
import { openDatabase } from "../src/store/database.ts";
import { matchRegisteredRedirect, staticClientAllows } from "../src/oauth/redirects.ts";
import { parseRedirectUri } from "../src/web/redirect-uri.ts";
import { createToken, freePort, makeHome, removeHome, startTestDaemon } from "./support/daemon.ts";

const ROOT = join(import.meta.dir, "..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8");
/** The README between one `## ` heading and the next. */
const section = (heading: string): string => {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start).toBeGreaterThan(0);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
};

type Command = CommandDef<ArgsDef>;
const resolved = async <T>(value: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> =>
  typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;

/**
 * Every command line the CLI offers, read from src/cli/main.ts's lazy subcommands and their own subcommands: the
 * usage as the README writes it (`jobs show ID`: positionals upper-cased) and the command's options.
 */
async function cliCommands(): Promise<{ usage: string; options: string[] }[]> {
  const index = readFileSync(join(ROOT, "src/cli/main.ts"), "utf8");
  const entries = [...index.matchAll(/^\s+"?([a-z][a-z-]*)"?: \(\) => import\("\.\/([a-z-]+\.ts)"\)/gm)];
  expect(entries.length).toBeGreaterThanOrEqual(7);
  const commands: { usage: string; options: string[] }[] = [];
  const visit = async (path: string, command: Command): Promise<void> => {
    const subCommands = await resolved(command.subCommands);
    if (subCommands && Object.keys(subCommands).length > 0) {
      for (const [name, sub] of Object.entries(subCommands)) await visit(`${path} ${name}`, (await resolved(sub)) as Command);
      return;
    }
    const args = Object.entries((await resolved(command.args)) ?? {});
    const positionals = args.filter(([, arg]) => arg.type === "positional").map(([name]) => name.toUpperCase());
    commands.push({
      usage: [path, ...positionals].join(" "),
      options: args.filter(([, arg]) => arg.type !== "positional").map(([name]) => `--${name}`),
    });
  };
  for (const [, name, file] of entries) {
    const module = (await import(join(ROOT, "src/cli", file as string))) as { default: Command };
    await visit(`hermes-mcp ${name}`, module.default);
  }
  return commands;
}

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

describe("README", () => {
  test("documents every environment variable the daemon reads, in the Configuration table", () => {
    const configuration = section("Configuration");
    const names = Object.keys(EnvSchema.shape);
    expect(names).toContain("HERMES_MCP_MAX_STORED_JOBS");
    for (const name of names) expect({ name, documented: configuration.includes(`\`${name}\``) }).toEqual({ name, documented: true });
  });

  test("documents every command, subcommand and option src/cli/main.ts offers, in the Commands table", async () => {
    const commands = section("Commands");
    const offered = await cliCommands();
    // The jobs commands are there (a regex that stopped matching main.ts would otherwise pass on an empty list).
    expect(offered.map((c) => c.usage)).toEqual(
      expect.arrayContaining(["hermes-mcp jobs list", "hermes-mcp jobs show ID", "hermes-mcp jobs cancel ID"]),
    );
    for (const { usage, options } of offered) {
      expect({ usage, documented: commands.includes(`\`${usage}`) }).toEqual({ usage, documented: true });
      const row = commands
        .split("\n")
        .filter((line) => line.startsWith(`| \`${usage}`))
        .join("\n");
      for (const option of options)
        expect({ usage, option, documented: row.includes(option) }).toEqual({ usage, option, documented: true });
    }
  });

  test("documents every command", () => {
    for (const command of [
      "serve",
      "doctor",
      "mint-client",
      "mint-client --write",
      "token create --name NAME",
      "token list",
      "token revoke NAME",
      "set-password",
      "clients list",
      "clients revoke ID",
      "jobs list",
      "jobs show ID",
      "jobs cancel ID",
    ]) {
      expect(readme).toContain(`hermes-mcp ${command}`);
    }
  });

  test("documents messaging: the feature, its risk, who gets it, the scopes, the bounds, and approvals that stall", () => {
    const section = readme.slice(
      readme.indexOf("## Messaging (read and answer your chats remotely)"),
      readme.indexOf("## Run it as a service"),
    );
    expect(section.length).toBeGreaterThan(1000);
    for (const promise of [
      "**The risk.**",
      "**off** unless you turn it on",
      "hermes:messages.read",
      "hermes:messages.send",
      "OAUTH_STATIC_CLIENT_MESSAGING",
      "hermes-mcp token create --name NAME --messaging read",
      "calling another is an unknown tool",
      "at most 4 MiB",
      "after 5 failures in a row",
      "**Approvals that stall.**",
      "never `--yolo`",
    ]) {
      expect(section).toContain(promise);
    }
    expect(readme).toContain("hermes-mcp token create --name NAME --messaging read\\|send");
  });

  test("its test command is the one .ci/run runs, and its run command is a package script", () => {
    expect(readme).toContain("npm install -g bun@1.4.5 && bun install --frozen-lockfile && bun run test");
    expect(readme).toContain("npm install -g bun@1.4.5 && bun install --frozen-lockfile && bun run start");
    expect(ci).toContain("npm install -g bun@1.4.5");
    expect(ci).toContain("bun install --frozen-lockfile");
    expect(ci).toMatch(/^bun run test$/m);
    // Every test and hook bounded at 30 s: bun reads no timeout from bunfig.toml, so the flag carries it.
    expect(pkg.scripts.test).toBe("bun test --timeout 30000");
    expect(pkg.scripts.start).toContain("serve");
    expect(pkg.bin["hermes-mcp"]).toBe("src/cli/index.ts");
    expect(existsSync(join(ROOT, pkg.bin["hermes-mcp"] as string))).toBe(true);
  });

  test("the quick start says what Hermes needs, names Node.js ≥ 22 wherever it runs an npx tool, and tries it locally before any tunnel", () => {
    const quickstart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Configuration"));
    expect(quickstart).toContain("API_SERVER_KEY");
    expect(quickstart).toContain("~/.hermes/.env");
    expect(quickstart).toContain("hermes-gateway");
    for (const at of [...readme.matchAll(/npx @/g)].map((m) => m.index ?? 0)) expect(readme.slice(at, at + 60)).toContain("Node.js ≥ 22");
    expect(readme.indexOf("Try it locally")).toBeGreaterThan(0);
    expect(readme.indexOf("Try it locally")).toBeLessThan(readme.indexOf("cloudflared tunnel"));
    // Nothing writes into ~/.config/hermes-mcp before mint-client --write has created it privately.
    expect(quickstart.indexOf("mint-client --write")).toBeLessThan(quickstart.indexOf(">> ~/.config/hermes-mcp/env"));
  });

  test("explains tasks beside hermes_check and hermes_cancel, and how job statuses map onto task statuses", () => {
    const tools = readme.slice(readme.indexOf("## The tools"), readme.indexOf("## Connecting clients"));
    for (const text of ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "taskSupport", "ttl", "pollInterval", "nextCursor"]) {
      expect(tools).toContain(text);
    }
    expect(tools).toContain("| `pending`, `running` | `working`");
    expect(tools).toContain("its `taskId` is the `job_id`");
  });

  test("the release path: download by hand or install.sh, the service in one command, connect, tunnels, upgrading, restarts", () => {
    for (const command of ["service install", "service uninstall", "service status", "service logs", "connect CLIENT", "doctor --json"])
      expect(readme).toContain(`hermes-mcp ${command}`);
    for (const client of CONNECT_CLIENTS) expect(readme).toContain(`\`${client}\``);
    for (const target of RELEASE_TARGETS) expect(readme).toContain(`\`${target.file.replace("hermes-mcp-", "")}\``);
    for (const text of ["sh install.sh", "sh install.sh --from FOLDER", "SHA256SUMS", "sha256sum -c --ignore-missing SHA256SUMS"])
      expect(readme).toContain(text);
    for (const section of [
      "## From download to a Claude connector in five steps",
      "## Tunnels",
      "## Upgrading from the Python hermes-mcp",
      "## What survives a restart",
      "## Design notes",
    ])
      expect(readme).toContain(section);
    // Every tunnel the issue names, and what doctor warns about.
    for (const text of [
      "cloudflared tunnel --url",
      "cloudflared tunnel create",
      "config.yml",
      "--tunnel ngrok",
      "tailscale funnel",
      "Block AI bots",
    ])
      expect(readme).toContain(text);
    expect(readme).toContain("`@modelcontextprotocol/server`");
    for (const file of ["LICENSE", "SECURITY.md", "CONTRIBUTING.md", "CHANGELOG.md", "packaging/install.sh"])
      expect(existsSync(join(ROOT, file))).toBe(true);
  });

  test("its Reliability section lists soak, crash loop and fuzz: package scripts with a short version in CI", () => {
    const development = section("Development");
    expect(development).toContain("### Reliability");
    for (const script of ["soak", "crashloop", "fuzz"]) {
      expect(development).toContain(`bun run ${script}`);
      expect(pkg.scripts[script]).toBe(`bun stress/${script}.ts`);
      expect(existsSync(join(ROOT, "stress", `${script}.ts`))).toBe(true);
      expect(existsSync(join(ROOT, "tests", "stress", `${script}.test.ts`))).toBe(true);
    }
  });

  test("the files it points at exist", () => {
    for (const path of [
      "packaging/systemd/hermes-mcp.service",
      "packaging/launchd/com.hermes-mcp.plist",
      "packaging/env.example",
      "THREAT_MODEL.md",
      "tests/support/fake-gateway.ts",
    ]) {
      expect(existsSync(join(ROOT, path))).toBe(true);
    }
    const unit = readFileSync(join(ROOT, "packaging/systemd/hermes-mcp.service"), "utf8");
    expect(readme).toContain("install -Dm755 dist/hermes-mcp ~/.local/bin/hermes-mcp");
    expect(unit).toContain("ExecStart=%h/.local/bin/hermes-mcp serve");
    // `bun run build` is the release script for this machine only; it writes dist/hermes-mcp (tests/cli/binary.test.ts runs it).
    expect(pkg.scripts.build).toBe("bun scripts/release.ts --host");
  });

  test("`bun run start` serves on loopback with no configuration, and `bun run hermes-mcp doctor` runs", async () => {
    const home = makeHome();
    const port = freePort();
    const env = { HOME: home, PATH: process.env.PATH ?? "", BIND_PORT: String(port) };
    const proc = Bun.spawn([process.execPath, "run", "start"], { cwd: ROOT, env, stdout: "ignore", stderr: "pipe" });
    try {
      let ok = false;
      for (let i = 0; i < 200 && !ok; i++) {
        ok = (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok ?? false;
        if (!ok) await Bun.sleep(25);
      }
      expect(ok).toBe(true);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    const doctor = Bun.spawnSync([process.execPath, "run", "hermes-mcp", "doctor"], {
      cwd: ROOT,
      env: { ...env, BIND_PORT: String(freePort()) },
      stdout: "pipe",
    });
    expect(doctor.stdout.toString()).toContain("configuration valid");
    removeHome(home);
  });

  test("plain `hermes-mcp mint-client` prints only env lines on stdout (safe to append to a file with >>)", async () => {
    const home = makeHome();
    const result = Bun.spawnSync([process.execPath, "run", "hermes-mcp", "mint-client"], {
      cwd: ROOT,
      env: { HOME: home, PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const lines = result.stdout.toString().trim().split("\n");
    expect(lines.every((line) => /^OAUTH_CLIENT_(ID|SECRET)=\S+$/.test(line))).toBe(true);
    removeHome(home);
  });

  describe("client matrix", () => {
    const section = readme.slice(readme.indexOf("<!-- clients:start -->"), readme.indexOf("<!-- clients:end -->"));
    const rows = section
      .split("\n")
      .filter((line) => line.startsWith("| ") && !line.startsWith("| client") && !line.startsWith("|---"))
      .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| |\|$/g, "").trim()));
    const STATIC_POLICY = { schemes: ["claude", "claudeai", "cursor"], uris: [] };

    test("names every client the design promises", () => {
      const names = rows.map((row) => row[0]).join(" ");
      for (const client of [
        "Claude.ai",
        "Claude Desktop",
        "Claude mobile",
        "Claude Code",
        "Codex",
        "Cursor",
        "VS Code",
        "MCP Inspector",
        "scripts",
      ])
        expect(names).toContain(client);
    });

    test("every redirect URI it lists is accepted by the path it names (static policy, or registered with loopback on any port)", () => {
      let checked = 0;
      for (const [client, , redirects = ""] of rows) {
        const uris = [...redirects.matchAll(/`([a-z][a-z0-9+.-]*:\/\/[^`]+)`/g)]
          .map((m) => m[1] as string)
          .filter((uri) => !uri.includes("metadata"));
        const registered = uris.map((uri) => uri.replace("<any port>", "1234"));
        for (const uri of uris) {
          const requested = uri.replace("<any port>", "54321");
          expect({ client, uri, valid: parseRedirectUri(requested).ok }).toEqual({ client, uri, valid: true });
          if (redirects.includes("static client")) {
            expect({ client, uri, static: staticClientAllows(requested, STATIC_POLICY) }).toEqual({ client, uri, static: true });
          }
          if (redirects.includes("registration") || redirects.includes("metadata document")) {
            expect({ client, uri, registered: matchRegisteredRedirect(requested, registered) }).toEqual({ client, uri, registered: true });
          }
          checked++;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(10);
    });

    test("its curl example lists the tools with a personal access token", async () => {
      const home = makeHome();
      const daemon = await startTestDaemon({ home });
      try {
        const token = await createToken(home, "readme");
        const example = /```sh\n(curl [\s\S]*?)```/.exec(section)?.[1] ?? "";
        const url = /curl -s (\S+)/.exec(example)?.[1] ?? "";
        const headers = [...example.matchAll(/-H (?:'([^']*)'|"([^"]*)")/g)].map((m) => (m[1] ?? m[2] ?? "").replace("$TOKEN", token));
        const body = /-d '([^']*)'/.exec(example)?.[1] ?? "";
        expect(url).toBe("https://hermes.example.com/mcp");
        const response = await fetch(url.replace("https://hermes.example.com", daemon.url), {
          method: "POST",
          headers: headers.map((h) => [h.slice(0, h.indexOf(":")), h.slice(h.indexOf(":") + 1).trim()] as [string, string]),
          body,
        });
        expect(response.status).toBe(200);
        expect(await response.text()).toContain("hermes_ask");
      } finally {
        await daemon.stop();
        removeHome(home);
      }
    });
  });
});

describe("the Durability section", () => {
  test("names the journal and sync mode the database really opens with, and what each kind of crash can lose", () => {
    const durability = section("Durability");
    expect(durability).toContain("WAL mode with `synchronous=NORMAL`");
    expect(durability).toContain("`kill -9`");
    expect(durability).toMatch(/power cut[\s\S]*can lose the last transactions/);
    const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-readme-"));
    const { db } = openDatabase(join(dir, "hermes-mcp.db"));
    try {
      expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
      // 1 = NORMAL (0 OFF, 2 FULL, 3 EXTRA).
      expect(db.query<{ synchronous: number }, []>("PRAGMA synchronous").get()?.synchronous).toBe(1);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("points at the benchmark that proves it", () => {
    expect(section("Durability")).toContain("bench/RESULTS.md");
    expect(readFileSync(join(ROOT, "bench", "durable.ts"), "utf8")).toContain("kill -9");
  });
});

describe("the Memory and start-up section", () => {
  test("names the build flags and profile the release really uses, and the script that records it", async () => {
    const memory = section("Memory and start-up");
    const release = readFileSync(join(ROOT, "scripts", "release.ts"), "utf8");
    const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    const { BUILD_FLAGS } = await import("../scripts/build-flags.ts");
    expect(release).toContain("...BUILD_FLAGS");
    expect(memory).toContain("`scripts/build-flags.ts`");
    const jitFlag = BUILD_FLAGS.find((flag) => flag.startsWith("--compile-jit-policy="));
    expect(jitFlag).toBeDefined();
    expect(memory).toContain(`\`${jitFlag}\``);
    expect(memory).toContain("--bytecode-order=packaging/bytecode-order.txt");
    expect(release).toContain('"packaging", "bytecode-order.txt"');
    expect(existsSync(join(ROOT, "packaging", "bytecode-order.txt"))).toBe(true);
    expect(memory).toContain("`bun run build:profile`");
    expect(scripts["build:profile"]).toBeDefined();
    expect(readFileSync(join(ROOT, "src", "cli", "serve.ts"), "utf8")).toContain("Bun.unsafe.setJITPolicy(1)");
  });

  test("its quiet period is the daemon's, and what it says loads lazily is loaded with import()", async () => {
    const { QUIET_MS } = await import("../src/idle-collector.ts");
    expect(section("Memory and start-up")).toContain(`arrived for ${QUIET_MS / 1000} s`);
    expect(readFileSync(join(ROOT, "src", "mcp", "server.ts"), "utf8")).toContain('import("./sdk-server.ts")');
    expect(readFileSync(join(ROOT, "src", "messaging", "child.ts"), "utf8")).toContain('import("@modelcontextprotocol/client")');
  });
});
