// The command line as a user runs it: mint-client, token, doctor, --version/--help, and serve's refusals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { addressBucket, CONSENT_BUCKET, LIMITS } from "../../src/oauth/limits.ts";
import { openStore } from "../../src/store/index.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { createToken, databaseOf, freePort, ipv6Loopback, runCli, startTestDaemon, tempHomes } from "../support/daemon.ts";
import { FAKE_GATEWAY_KEY, reserveClosedPort, startFakeGateway, type FakeGateway } from "../support/fake-gateway.ts";

let gateway: FakeGateway;
const home = tempHomes();
beforeAll(async () => {
  gateway = await startFakeGateway({ models: ["hermes-agent", "hermes-fast"] });
});
afterAll(async () => {
  await gateway.stop();
});

describe("hermes-mcp", () => {
  test("--version prints the version; --help lists every command", async () => {
    const h = home();
    const version = await runCli(["--version"], { home: h });
    // From source it says so; a release build names its commit and target instead (tests/packaging/install.test.ts).
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+ \(from source\)$/);
    const help = await runCli(["--help"], { home: h });
    expect(help.code).toBe(0);
    for (const command of ["serve", "doctor", "mint-client", "token", "service", "connect"])
      expect(help.stdout + help.stderr).toContain(command);
  });

  test("mint-client prints env-file lines with a 256-bit secret, and nothing else on stdout", async () => {
    const result = await runCli(["mint-client"], { home: home() });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines.length).toBe(2);
    expect(lines[0]).toMatch(/^OAUTH_CLIENT_ID=hermes-[0-9a-f]{16}$/);
    const secret = (lines[1] as string).replace("OAUTH_CLIENT_SECRET=", "");
    expect(Buffer.from(secret, "base64url").length).toBe(32);
  });

  test("token create prints the token as the last line; names are validated and unique", async () => {
    const h = home();
    const created = await runCli(["token", "create", "--name", "cursor-laptop"], { home: h });
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split("\n").at(-1)).toMatch(/^hmcp_pat_[A-Za-z0-9_-]{43}$/);
    const duplicate = await runCli(["token", "create", "--name", "cursor-laptop"], { home: h });
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain("already exists");
    const bad = await runCli(["token", "create", "--name", "no spaces!"], { home: h });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("not allowed");
    const missing = await runCli(["token", "revoke", "ghost"], { home: h });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no token named "ghost" (known: cursor-laptop)');
    const typo = await runCli(["token", "revoke", "cursor-lapotp"], { home: h });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('no token named "cursor-lapotp" — did you mean "cursor-laptop"?');
    const revoke = await runCli(["token", "revoke", "cursor-laptop"], { home: h });
    expect(revoke.code).toBe(0);
    const list = await runCli(["token", "list"], { home: h });
    expect(list.stdout).not.toContain("cursor-laptop");
  });

  test("says what it did whatever the shell's NODE_ENV, TEST or CI (consola would go quiet under a test runner's variables)", async () => {
    const h = home();
    const env = { NODE_ENV: "test", TEST: "1", CI: "true" };
    const empty = await runCli(["token", "list"], { home: h, env });
    expect({ code: empty.code, stderr: empty.stderr }).toEqual({ code: 0, stderr: expect.stringContaining("No personal access tokens") });
    const created = await runCli(["token", "create", "--name", "ci-box"], { home: h, env });
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: expect.stringContaining("ci-box") });
  });

  test("a bad configuration names every bad variable and exits 1 without a stack trace", async () => {
    const result = await runCli(["serve"], { home: home(), env: { BIND_PORT: "99999", OAUTH_CLIENT_SECRET: "short" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("BIND_PORT");
    expect(result.stderr).toContain("OAUTH_CLIENT_SECRET");
    expect(result.stderr).not.toContain("    at ");
  });

  test("serve on a busy port says so and exits 1", async () => {
    // Another database: on the same one the daemon lock answers first (tests/cli/daemon-lock.test.ts).
    const daemon = await startTestDaemon({ home: home(), env: { HERMES_API_URL: gateway.url } });
    try {
      const second = await runCli(["serve"], { home: home(), env: { BIND_PORT: String(daemon.port), HERMES_API_URL: gateway.url } });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain("already in use");
    } finally {
      await daemon.stop();
    }
  });

  test.if(ipv6Loopback())("serve on BIND_HOST=::1: the issuer a local client is given answers there, with a token", async () => {
    const h = home();
    const daemon = await startTestDaemon({ home: h, env: { BIND_HOST: "::1", HERMES_API_URL: gateway.url } });
    try {
      expect(daemon.url).toBe(`http://[::1]:${daemon.port}`);
      const metadata = (await (await fetch(`${daemon.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
      expect(metadata.issuer).toBe(daemon.url);
      const token = await createToken(h, "v6", { HERMES_API_URL: gateway.url });
      const list = await fetch(`${metadata.issuer}/mcp`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(list.status).toBe(200);
      expect(await list.text()).toContain("hermes_ask");
    } finally {
      await daemon.stop();
    }
  });

  test("serve on an address that is not this machine's, or a URL as BIND_HOST, says what to set and exits 1", async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    const foreign = await runCli(["serve"], { home: home(), env: { BIND_HOST: "192.0.2.1", BIND_PORT: "0" } });
    expect({
      code: foreign.code,
      said: foreign.stderr.includes("cannot listen on 192.0.2.1:0: BIND_HOST is not an address of this machine"),
    }).toEqual({
      code: 1,
      said: true,
    });
    expect(foreign.stderr).not.toContain("unexpected error");
    const pasted = await runCli(["serve"], { home: home(), env: { BIND_HOST: "http://127.0.0.1:8765" } });
    expect(pasted.code).toBe(1);
    expect(pasted.stderr).toContain("BIND_HOST takes an address, not a URL: write BIND_HOST=127.0.0.1 and BIND_PORT=8765");
  });
});

describe("hermes-mcp doctor", () => {
  const doctor = (env: Record<string, string>, h = home()) =>
    runCli(["doctor"], { home: h, env: { BIND_PORT: String(freePort()), ...env } });

  test("all good: every line ✔ (or ⚠ with a fix) and exit 0", async () => {
    // Doctor creates no database; any command that uses one does.
    const h = home();
    await runCli(["token", "list"], { home: h });
    const result = await doctor({ HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url }, h);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`✔ Hermes gateway reachable at ${gateway.url} — version`);
    expect(result.stdout).toContain("✔ gateway accepts HERMES_API_KEY");
    expect(result.stdout).toContain('✔ model "hermes-agent" offered by the gateway');
    expect(result.stdout).toContain("writable and private");
    expect(result.stdout).toContain("free");
    expect(result.stdout).toContain("⚠ issuer URL http://127.0.0.1:");
    expect(result.stdout).not.toContain("✖");
  });

  test("a database file that is another program's, or no database at all: ✖ with the way out, and the file left as it was", async () => {
    const h = home();
    const foreign = join(h, "state.db");
    const other = new Database(foreign);
    other.exec("CREATE TABLE sessions (id TEXT)");
    other.close();
    chmodSync(foreign, 0o600);
    const before = readFileSync(foreign);
    const refused = await doctor({ HERMES_MCP_DB_PATH: foreign }, h);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`✖ database ${foreign} usable — it holds another program's tables and no hermes-mcp schema`);
    expect(refused.stdout).toContain("fix: set HERMES_MCP_DB_PATH to a file of its own");
    expect(readFileSync(foreign).equals(before)).toBe(true);
    const text = join(h, "notes.db");
    writeFileSync(text, "x".repeat(200), { mode: 0o600 });
    const unreadable = await doctor({ HERMES_MCP_DB_PATH: text }, h);
    expect(unreadable.stdout).toContain(`✖ database ${text} usable — it is not a database hermes-mcp can read`);
    expect(unreadable.stdout).toContain("move this one aside to start afresh");
    // A database a newer hermes-mcp wrote: serve would refuse it, and doctor says so first.
    const newer = join(h, "newer.db");
    const later = new Database(newer);
    later.exec("PRAGMA user_version = 999");
    later.close();
    chmodSync(newer, 0o600);
    const upgrade = await doctor({ HERMES_MCP_DB_PATH: newer }, h);
    expect(upgrade.stdout).toContain(`✖ database ${newer} usable — it was written by a newer hermes-mcp (schema 999`);
    expect(upgrade.stdout).toContain("fix: upgrade hermes-mcp");
    // serve says the same and leaves it alone too.
    const serve = await runCli(["serve"], { home: h, env: { BIND_PORT: "0", HERMES_MCP_DB_PATH: foreign } });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(`the database ${foreign} holds another program's tables`);
    expect(readFileSync(foreign).equals(before)).toBe(true);
  });

  test("a database an older hermes-mcp wrote, loosely moded: doctor says so and leaves it exactly as it was", async () => {
    const h = home();
    const folder = join(h, "old-data");
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    const path = join(folder, "hermes-mcp.db");
    const old = new Database(path);
    old.exec("PRAGMA journal_mode = WAL");
    for (const sql of MIGRATIONS.slice(0, 3)) old.exec(sql);
    old.exec("PRAGMA user_version = 3");
    old.close();
    chmodSync(path, 0o644);
    const before = readFileSync(path);
    const result = await doctor({ HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url, HERMES_MCP_DB_PATH: path }, h);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✖ database ${path} writable and private — file mode 644, folder mode 755`);
    expect(result.stdout).toContain(`⚠ database ${path} from an older hermes-mcp (schema 3; this one writes ${MIGRATIONS.length})`);
    expect(result.stdout).toContain("fix: `hermes-mcp serve` upgrades it at start, keeping every connection");
    // The fix it printed is still the fix: nothing was tightened, upgraded or left beside it.
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(statSync(folder).mode & 0o777).toBe(0o755);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(folder)).toEqual(["hermes-mcp.db"]);
  });

  test("doctor reads the current database without changing it, even while serve is away", async () => {
    const h = home();
    const folder = join(h, "data");
    mkdirSync(folder, { mode: 0o700 });
    const path = join(folder, "hermes-mcp.db");
    const made = openStore(path);
    made.close();
    const before = readFileSync(path);
    const result = await doctor({ HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url, HERMES_MCP_DB_PATH: path }, h);
    expect(result.stdout).toContain(`✔ database ${path} writable and private`);
    expect(result.stdout).toContain("⚠ apps that register themselves (Claude Code, Codex, Cursor, VS Code) cannot connect yet");
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(folder)).toEqual(["hermes-mcp.db"]);
  });

  test("reads the key from ~/.hermes/.env and says so", async () => {
    const h = home();
    mkdirSync(join(h, ".hermes"));
    writeFileSync(join(h, ".hermes", ".env"), `API_SERVER_KEY=${FAKE_GATEWAY_KEY}\n`);
    const result = await doctor({ HERMES_API_URL: gateway.url }, h);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("API_SERVER_KEY from");
  });

  test("an address that is not this machine's → ✖ saying so (not 'another program listens there')", async () => {
    const result = await doctor({
      HERMES_API_KEY: FAKE_GATEWAY_KEY,
      HERMES_API_URL: gateway.url,
      BIND_HOST: "192.0.2.1",
      BIND_PORT: "8765",
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("✖ 192.0.2.1:8765 can be listened on — BIND_HOST is not an address of this machine");
    expect(result.stdout).not.toContain("another program listens there");
  });

  test("gateway down → ✖ with how to start it, exit 1", async () => {
    const result = await doctor({ HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: `http://127.0.0.1:${reserveClosedPort()}` });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("✖ Hermes gateway reachable");
    expect(result.stdout).toContain("fix: start it with `hermes gateway run`");
  });

  test("wrong key → ✖ naming API_SERVER_KEY", async () => {
    const result = await doctor({ HERMES_API_KEY: "not-the-key-0123456789", HERMES_API_URL: gateway.url });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("✖ gateway accepts HERMES_API_KEY");
    expect(result.stdout).toContain("API_SERVER_KEY");
  });

  test("unknown model → ✖ listing the models on offer", async () => {
    const result = await doctor({ HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url, HERMES_MODEL: "gpt-9" });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✖ model "gpt-9"');
    expect(result.stdout).toContain("hermes-fast");
  });

  test("a loose env file and a bad configuration → ✖ with fixes", async () => {
    const h = home();
    mkdirSync(join(h, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(join(h, ".config", "hermes-mcp", "env"), `HERMES_API_KEY=${FAKE_GATEWAY_KEY}\n`);
    chmodSync(join(h, ".config", "hermes-mcp", "env"), 0o644);
    const result = await doctor({ HERMES_API_URL: gateway.url, OAUTH_ISSUER_URL: "https://hermes.example.com" }, h);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("chmod 600");
    const bad = await doctor({ OAUTH_ISSUER_URL: "http://hermes.example.com" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("✖ configuration");
    expect(bad.stdout).toContain("https");
  });

  test("a hermes-mcp on another database holding the port is named as such (its /healthz answers behind the Host guard)", async () => {
    const env = { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url };
    const daemon = await startTestDaemon({ home: home(), env });
    try {
      const result = await runCli(["doctor"], { home: home(), env: { ...env, BIND_PORT: String(daemon.port) } });
      expect(result.stdout).toContain("a hermes-mcp using another database listens there");
      expect(result.code).toBe(1);
    } finally {
      await daemon.stop();
    }
  });

  test("a running hermes-mcp on the port is not a failure", async () => {
    const h = home();
    const env = { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url };
    const daemon = await startTestDaemon({ home: h, env });
    try {
      const result = await runCli(["doctor"], { home: h, env: { ...env, BIND_PORT: String(daemon.port) } });
      expect(result.stdout).toContain(
        `✔ hermes-mcp is running on this database (pid ${daemon.proc.pid}, port ${daemon.port} on 127.0.0.1)`,
      );
      expect(result.stdout).not.toContain("restart it");
      expect(result.code).toBe(0);
      // BIND_PORT changed in the env file since it started: doctor says the running one has not taken it up.
      const moved = freePort();
      const after = await runCli(["doctor"], { home: h, env: { ...env, BIND_PORT: String(moved) } });
      expect(after.stdout).toContain(
        `⚠ hermes-mcp is running on this database (pid ${daemon.proc.pid}, port ${daemon.port} on 127.0.0.1) — not on 127.0.0.1:${moved} as BIND_HOST and BIND_PORT say here: they changed since it started, or it was started with others`,
      );
      expect(after.stdout).toContain(
        `fix: if these are the ones you want, restart it to listen there (and point your tunnel at it): stop it (Ctrl-C in the terminal where it runs, or \`kill ${daemon.proc.pid}\`)`,
      );
      expect(after.code).toBe(0);
      // The env file edited since it started (a new key, a new model): said, with the restart, until it restarts.
      const envFile = join(h, ".config", "hermes-mcp", "env");
      mkdirSync(dirname(envFile), { recursive: true, mode: 0o700 });
      writeFileSync(envFile, "HERMES_MODEL=hermes-fast\n", { mode: 0o600 });
      const edited = await runCli(["doctor"], { home: h, env: { ...env, BIND_PORT: String(daemon.port) } });
      expect(edited.stdout).toContain(
        `⚠ ${envFile} changed after the running hermes-mcp (pid ${daemon.proc.pid}) started — it reads its settings only when it starts`,
      );
      expect(edited.stdout).toContain("fix: restart it to use them: stop it (Ctrl-C in the terminal where it runs");
    } finally {
      await daemon.stop();
    }
    // Restarted, it reads the edited file: nothing left to say.
    const restarted = await startTestDaemon({ home: h, env });
    try {
      const after = await runCli(["doctor"], { home: h, env: { ...env, BIND_PORT: String(restarted.port) } });
      expect(after.stdout).toContain(`✔ hermes-mcp is running on this database (pid ${restarted.proc.pid}`);
      expect(after.stdout).not.toContain("changed after");
    } finally {
      await restarted.stop();
    }
  });
});

describe("mistakes are named", () => {
  test("an unknown command: one line, the commands there are, exit 1 (no usage screen)", async () => {
    const result = await runCli(["bogus"], { home: home() });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines[0]).toBe('✖ unknown command "bogus" for hermes-mcp');
    for (const command of ["serve", "doctor", "mint-client", "token", "set-password", "clients"])
      expect(result.stderr).toContain(`  ${command}`);
    expect(result.stderr + result.stdout).not.toContain("USAGE");
    expect((await runCli(["doctr"], { home: home() })).stderr).toContain('did you mean "doctor"?');
  });

  test("serve with anything after it is read as a command line (a bare serve starts the daemon without the parser)", async () => {
    const stray = await runCli(["serve", "extra"], { home: home() });
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain('"hermes-mcp serve" does not take "extra"');
    const help = await runCli(["serve", "--help"], { home: home() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Run the MCP bridge (Streamable HTTP on BIND_HOST:BIND_PORT)");
    expect(await runCli(["help", "serve"], { home: home() })).toEqual(help);
  });

  test("an unknown flag is an error naming the setting meant", async () => {
    const port = await runCli(["serve", "--port", "9000"], { home: home() });
    expect(port.code).toBe(1);
    expect(port.stderr).toContain("has no option --port: settings are environment variables — set BIND_PORT=9000");
    expect((await runCli(["serve", "--host=0.0.0.0"], { home: home() })).stderr).toContain("set BIND_HOST=0.0.0.0");
    expect((await runCli(["doctor", "--issuer", "https://h.example.com"], { home: home() })).stderr).toContain(
      "set OAUTH_ISSUER_URL=https://h.example.com",
    );
    const typo = await runCli(["token", "create", "--nmae", "x"], { home: home() });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("has no option --nmae — did you mean --name?");
    const listed = await runCli(["mint-client", "--frobnicate"], { home: home() });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("has no option --frobnicate — its options: --write, --force");
    expect(listed.stdout).toBe("");
    const none = await runCli(["token", "list", "--frobnicate"], { home: home() });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("it takes no options");
  });

  test("an option without its value, or given twice with different values, is refused before anything runs", async () => {
    const h = home();
    const bare = await runCli(["token", "create", "--name"], { home: h });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("--name needs a value — write --name VALUE or --name=VALUE");
    const swallowed = await runCli(["token", "create", "--messaging", "--name", "z"], { home: h });
    expect(swallowed.code).toBe(1);
    expect(swallowed.stderr).toContain("--messaging needs a value before --name");
    const twice = await runCli(["token", "create", "--name", "a", "--name=b"], { home: h });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('--name is given twice ("a", then "b") — give it once');
    const negative = await runCli(["jobs", "list", "--limit", "-5"], { home: h });
    expect(negative.stderr).toContain('--limit must be a whole number from 1 to 100000 (got "-5")');
    expect((await runCli(["token", "list"], { home: h })).stdout).not.toMatch(/^(a|b|z)\s/m);
    const same = await runCli(["token", "create", "--name", "c", "--name", "c"], { home: h });
    expect(same.code).toBe(0);
  });

  test("a typo of --help or --version is named too", async () => {
    const version = await runCli(["--versoin"], { home: home() });
    expect(version.code).toBe(1);
    expect(version.stderr).toContain('"hermes-mcp" has no option --versoin — did you mean --version?');
    expect((await runCli(["token", "--hepl"], { home: home() })).stderr).toContain("did you mean --help?");
  });

  test("`help [COMMAND…]` is that command's --help; a second-level command's usage names the whole line to type", async () => {
    const h = home();
    const top = await runCli(["help"], { home: h });
    expect(top.code).toBe(0);
    expect(top.stdout).toBe((await runCli(["--help"], { home: h })).stdout);
    const show = await runCli(["help", "jobs", "show"], { home: h });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("USAGE hermes-mcp jobs show [OPTIONS] <ID>");
    expect(show.stdout).toContain("(hermes-mcp jobs show v");
    expect((await runCli(["jobs", "show", "--help"], { home: h })).stdout).toBe(show.stdout);
    const unknown = await runCli(["help", "nope"], { home: h });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown command "nope" for hermes-mcp');
  });

  test("an unknown variable with our prefix gets a warning with the closest real name; Hermes's own variables do not", async () => {
    const h = home();
    mkdirSync(join(h, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(join(h, ".config", "hermes-mcp", "env"), "HERMES_MCP_PORT=9000\n", { mode: 0o600 });
    const result = await runCli(["doctor"], {
      home: h,
      env: { BIND_PORT: String(freePort()), HERMES_HOME: join(h, ".hermes"), OAUTH_ISSUER: "https://x.example.com" },
    });
    expect(result.stdout).toContain(
      `⚠ HERMES_MCP_PORT (in ${join(h, ".config", "hermes-mcp", "env")}) is not a hermes-mcp setting and is ignored — did you mean BIND_PORT?`,
    );
    expect(result.stdout).toContain(
      "⚠ OAUTH_ISSUER (in the environment) is not a hermes-mcp setting and is ignored — did you mean OAUTH_ISSUER_URL?",
    );
    expect(result.stdout).not.toContain("HERMES_HOME");
  });
});

test("run through its own shebang, the CLI reads ./.env itself and never Bun's other env files, as the release binary does", async () => {
  const h = home();
  const cwd = join(h, "project");
  mkdirSync(cwd);
  writeFileSync(join(cwd, ".env"), "HERMES_MCP_FROM_DOTENV=1\n");
  writeFileSync(join(cwd, ".env.local"), "HERMES_MCP_FROM_LOCAL=1\n");
  const proc = Bun.spawn([join(import.meta.dir, "..", "..", "src", "cli", "index.ts"), "doctor"], {
    cwd,
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, HOME: h, BIND_PORT: String(freePort()) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  // Named with the file it is in: Bun did not put it in the environment first.
  expect(out).toContain(`⚠ HERMES_MCP_FROM_DOTENV (in ${join(cwd, ".env")}) is not a hermes-mcp setting`);
  expect(out).not.toContain("HERMES_MCP_FROM_LOCAL");
});

describe("doctor reads cleanly", () => {
  test("no start-up note repeated as a check, no sentence repeated in a line", async () => {
    const h = home();
    mkdirSync(join(h, ".hermes"));
    writeFileSync(join(h, ".hermes", ".env"), `API_SERVER_KEY=${FAKE_GATEWAY_KEY}\n`);
    const result = await runCli(["doctor"], {
      home: h,
      env: { BIND_PORT: String(freePort()), HERMES_API_URL: `http://127.0.0.1:${reserveClosedPort()}` },
    });
    expect(result.stdout).not.toContain("OAUTH_ISSUER_URL is not set");
    expect(result.stdout).not.toContain("HERMES_API_KEY is not set: using");
    expect(result.stdout).toContain("⚠ issuer URL http://127.0.0.1:");
    const gatewayLine = result.stdout.split("\n").find((line) => line.includes("Hermes gateway")) as string;
    expect(gatewayLine).toMatch(/^✖ Hermes gateway reachable at http:\/\/127\.0\.0\.1:\d+ — nothing answers there$/);
    for (const line of result.stdout.split("\n")) {
      const parts = line.split(" — ");
      expect(new Set(parts).size, line).toBe(parts.length);
    }
  });

  test("https:// to the gateway's plain port, and a path the gateway does not serve, are named as such, not as a stopped gateway or a wrong key", async () => {
    const doctorAt = (url: string) =>
      runCli(["doctor"], { home: home(), env: { BIND_PORT: String(freePort()), HERMES_API_URL: url, HERMES_API_KEY: FAKE_GATEWAY_KEY } });
    const plainUrl = new URL(gateway.url);
    const tls = await doctorAt(`https://${plainUrl.host}`);
    expect(tls.stdout).toContain(`✖ Hermes gateway reachable at https://${plainUrl.host} — it speaks plain http on that port, not https`);
    expect(tls.stdout).toContain(`set HERMES_API_URL=http://${plainUrl.host}`);
    expect(tls.stdout).not.toContain("hermes gateway run");
    const pathed = await doctorAt(`${gateway.url}/api`);
    expect(pathed.stdout).toMatch(
      /✖ Hermes gateway reachable at http:\/\/[^ ]+\/api — \/api\/v1\/health answered 40[14], though the gateway's health route asks no key/,
    );
    expect(pathed.stdout).toContain(`set HERMES_API_URL=${gateway.url}`);
    expect(pathed.stdout).not.toContain("hermes gateway run");
  });

  test("a missing key is one ✖ line, not a warning and a check", async () => {
    const result = await runCli(["doctor"], { home: home(), env: { BIND_PORT: String(freePort()), HERMES_API_URL: gateway.url } });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("✖ HERMES_API_KEY set");
    expect(result.stdout.match(/HERMES_API_KEY/g)?.length).toBe(2);
  });

  test("doctor creates no database", async () => {
    const h = home();
    const result = await runCli(["doctor"], {
      home: h,
      env: { BIND_PORT: String(freePort()), HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("will be created at first start");
    expect(existsSync(join(h, ".local", "share", "hermes-mcp"))).toBe(false);
  });

  test("a consent lockout is shown with its fix", async () => {
    const h = home();
    const env = { BIND_PORT: String(freePort()), HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url };
    expect((await runCli(["set-password"], { home: h, env, stdin: "correct horse battery\n" })).code).toBe(0);
    const store = openStore(databaseOf(h));
    // One address locked out: named as such, approvals from elsewhere still work.
    store.oauth.limits.put(addressBucket(CONSENT_BUCKET, "203.0.113.7"), {
      windowStart: Date.now(),
      count: LIMITS.consentPerAddress.limit,
    });
    const one = await runCli(["doctor"], { home: h, env });
    expect(one.stdout).toContain(
      "⚠ 1 address(es) locked out of approvals for up to 15 more minute(s) after 5 wrong passwords — approvals from other addresses work",
    );
    expect(one.stdout).toContain("run `hermes-mcp set-password` (a new password lifts every lock)");
    // The global ceiling reached: approvals are locked for everyone.
    store.oauth.limits.put(CONSENT_BUCKET, { windowStart: Date.now(), count: LIMITS.consentGlobal.limit });
    store.close();
    const result = await runCli(["doctor"], { home: h, env });
    expect(result.stdout).toContain(
      "⚠ approvals of new apps are locked everywhere for 60 more minute(s) after 30 wrong passwords within an hour — apps already connected keep working",
    );
    expect(result.stdout).toContain("fix: wait it out, or run `hermes-mcp set-password` (a new password lifts every lock)");
  });

  test("piped: no colour codes in doctor or --help", async () => {
    const h = home();
    const doctor = await runCli(["doctor"], {
      home: h,
      env: { BIND_PORT: String(freePort()), HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url },
    });
    expect(doctor.stdout).not.toContain("\u001b[");
    const help = await runCli(["--help"], { home: h });
    expect(help.stdout).toContain("USAGE");
    expect(help.stdout).not.toContain("\u001b[");
    const forced = await runCli(["doctor"], {
      home: h,
      env: { FORCE_COLOR: "1", BIND_PORT: String(freePort()), HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url },
    });
    expect(forced.stdout).toContain("\u001b[32m✔\u001b[39m");
  });
});

describe("a reader that stops early (`| head`, `| grep -q`, `| true`)", () => {
  const noCrash = (stderr: string): void => {
    expect(stderr).not.toContain("EPIPE");
    expect(stderr).not.toContain("unexpected error");
    expect(stderr).not.toContain("Bun v");
  };

  test("ends the output, not the command: each exits as it would have, without a trace", async () => {
    const h = home();
    await createToken(h, "kept");
    const env = { BIND_PORT: String(freePort()), HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url };
    for (const args of [["--help"], ["token", "list"], ["jobs", "list", "--json"], ["mint-client"], ["connect", "cursor"]]) {
      const result = await runCli(args, { home: h, env, readerGone: "stdout" });
      expect({ args, code: result.code }).toEqual({ args, code: 0 });
      noCrash(result.stderr);
    }
    // doctor keeps its verdict: a failed check is still exit 1 (a `doctor | head -3` under pipefail must not pass).
    const down = { ...env, HERMES_API_URL: `http://127.0.0.1:${reserveClosedPort()}` };
    const doctor = await runCli(["doctor"], { home: h, env: down, readerGone: "stdout" });
    expect(doctor.code).toBe(1);
    noCrash(doctor.stderr);
    // Messages on stderr whose reader has gone too (`2>&1 | true`): the same exits.
    expect((await runCli(["token", "list"], { home: h, readerGone: "stdout and stderr" })).code).toBe(0);
    expect((await runCli(["token", "revoke", "nobody"], { home: h, readerGone: "stdout and stderr" })).code).toBe(1);
    expect((await runCli(["doctor"], { home: h, env: down, readerGone: "stdout and stderr" })).code).toBe(1);
    // Nothing was lost on the way.
    expect((await runCli(["token", "list"], { home: h })).stdout).toContain("kept");
  });

  test.skipIf(!existsSync("/dev/full"))(
    "a full disk under `> file` is an error saying so, and a token that could not be written is revoked",
    async () => {
      const h = home();
      await createToken(h, "kept");
      const listed = await runCli(["token", "list"], { home: h, stdoutTo: "/dev/full" });
      expect(listed.code).toBe(1);
      expect(listed.stderr).toContain("could not write to standard output: ENOSPC");
      expect(listed.stderr).not.toContain("unexpected error");
      const created = await runCli(["token", "create", "--name", "lost"], { home: h, stdoutTo: "/dev/full" });
      expect(created.code).toBe(1);
      expect(created.stderr).toContain("the new token could not be written to standard output (ENOSPC");
      const names = (await runCli(["token", "list"], { home: h })).stdout;
      expect(names).toContain("kept");
      expect(names).not.toContain("lost");
    },
  );

  test.skipIf(!existsSync("/dev/full"))(
    "a new token that could not be written and whose revocation failed too is named with the command that ends it",
    async () => {
      // The same full disk may refuse the revocation: deliverNewToken itself, its output on /dev/full, revoke refused.
      const script = `import { deliverNewToken } from ${JSON.stringify(join(import.meta.dir, "../../src/cli/output.ts"))};
        const told = deliverNewToken("hmcp_pat_x\\n", "ci laptop", () => { throw new Error("database or disk is full"); });
        process.stderr.write(String(told));`;
      const child = Bun.spawn([process.execPath, "-e", script], { stdout: Bun.file("/dev/full"), stderr: "pipe" });
      const [told, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      expect(code).toBe(0);
      expect(told).toBe(
        "the new token could not be written to standard output (ENOSPC: no space left on device, write), and revoking it failed too (database or disk is full): nobody holds it, but it works until you run `hermes-mcp token revoke 'ci laptop'`.",
      );
    },
  );

  test("a new token nobody received is revoked at once, and its name is free for the retry", async () => {
    const h = home();
    const lost = await runCli(["token", "create", "--name", "ci"], { home: h, readerGone: "stdout" });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain("the new token could not be written to standard output (EPIPE), so it was revoked at once");
    expect(lost.stderr).toContain("Run hermes-mcp token create --name ci again");
    expect((await runCli(["token", "list"], { home: h })).stderr).toContain("No personal access tokens");
    const retry = await runCli(["token", "create", "--name", "ci"], { home: h });
    expect(retry.code).toBe(0);
    expect(retry.stdout.trim()).toMatch(/^hmcp_pat_/);
    // connect --token puts a new token in its snippet: the same holds there.
    const snippet = await runCli(["connect", "cursor", "--token", "laptop", "--name", "work"], { home: h, readerGone: "stdout" });
    expect(snippet.code).toBe(1);
    expect(snippet.stderr).toContain("Run hermes-mcp connect cursor --token laptop --name work again");
    // The retry keeps every argument: without --messaging it would make a token with other rights.
    const reader = await runCli(["token", "create", "--name", "reader", "--messaging", "read"], { home: h, readerGone: "stdout" });
    expect(reader.stderr).toContain("Run hermes-mcp token create --name reader --messaging read again");
    const names = (await runCli(["token", "list"], { home: h })).stdout;
    expect(names).toContain("ci");
    expect(names).not.toContain("laptop");
    expect(names).not.toContain("reader");
  });
});
