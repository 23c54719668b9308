// `hermes-mcp mint-client --write`: creates the private config folder and env file, keeps other lines, never clobbers a client without --force.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { envValues, setEnvLines } from "../../src/config/env-file.ts";
import { runCli, tempHomes } from "../support/daemon.ts";

const home = tempHomes();
const mode = (path: string): number => statSync(path).mode & 0o777;
const envFile = (h: string): string => join(h, ".config", "hermes-mcp", "env");

describe("setEnvLines", () => {
  test("replaces assignments in place, drops repeats, appends missing keys, leaves every other line alone", () => {
    const before = "# mine\nOAUTH_ISSUER_URL=https://x.example\nexport OAUTH_CLIENT_ID=old\nOAUTH_CLIENT_ID=older\n\nOAUTH_CLIENT_IDX=keep";
    const after = setEnvLines(before, { OAUTH_CLIENT_ID: "new", OAUTH_CLIENT_SECRET: "s" });
    expect(after).toBe("# mine\nOAUTH_ISSUER_URL=https://x.example\nOAUTH_CLIENT_ID=new\n\nOAUTH_CLIENT_IDX=keep\nOAUTH_CLIENT_SECRET=s\n");
    expect(envValues(after)).toMatchObject({ OAUTH_CLIENT_ID: "new", OAUTH_CLIENT_SECRET: "s", OAUTH_CLIENT_IDX: "keep" });
    expect(setEnvLines("", { A: "1" })).toBe("A=1\n");
  });
});

describe("hermes-mcp mint-client --write", () => {
  test("on a fresh HOME creates ~/.config/hermes-mcp at 0700 and env at 0600, and never prints the secret", async () => {
    const h = home();
    const result = await runCli(["mint-client", "--write"], { home: h });
    expect(result.code).toBe(0);
    const path = envFile(h);
    expect(mode(join(h, ".config", "hermes-mcp"))).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    const values = envValues(readFileSync(path, "utf8"));
    expect(values.OAUTH_CLIENT_ID).toMatch(/^hermes-[0-9a-f]{16}$/);
    expect(Buffer.from(values.OAUTH_CLIENT_SECRET ?? "", "base64url").length).toBe(32);
    expect(result.stdout + result.stderr).not.toContain(values.OAUTH_CLIENT_SECRET as string);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toContain(values.OAUTH_CLIENT_ID as string);
  });

  test("honours XDG_CONFIG_HOME, like the daemon reading the file", async () => {
    const h = home();
    const result = await runCli(["mint-client", "--write"], { home: h, env: { XDG_CONFIG_HOME: join(h, "xdg") } });
    expect(result.code).toBe(0);
    expect(existsSync(join(h, "xdg", "hermes-mcp", "env"))).toBe(true);
    expect(existsSync(envFile(h))).toBe(false);
  });

  test("keeps the file's other lines, fills the empty placeholders of env.example, and tightens a loose file and folder", async () => {
    const h = home();
    const folder = join(h, ".config", "hermes-mcp");
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    chmodSync(folder, 0o755);
    const example = readFileSync(join(import.meta.dir, "..", "..", "packaging", "env.example"), "utf8");
    writeFileSync(envFile(h), example, { mode: 0o644 });
    const result = await runCli(["mint-client", "--write"], { home: h });
    expect(result.code).toBe(0);
    const text = readFileSync(envFile(h), "utf8");
    expect(text).toContain("OAUTH_ISSUER_URL=https://hermes.example.com");
    expect(text).toContain("# The tunnel's host name");
    expect(text.match(/^OAUTH_CLIENT_ID=/gm)).toHaveLength(1);
    expect(envValues(text).OAUTH_CLIENT_ID).toMatch(/^hermes-/);
    expect(mode(envFile(h))).toBe(0o600);
    expect(mode(folder)).toBe(0o700);
  });

  test("refuses to replace an existing static client, says how, and changes nothing; --force replaces it", async () => {
    const h = home();
    expect((await runCli(["mint-client", "--write"], { home: h })).code).toBe(0);
    const first = readFileSync(envFile(h), "utf8");
    const refused = await runCli(["mint-client", "--write"], { home: h });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("already has a static client");
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(envFile(h), "utf8")).toBe(first);
    const forced = await runCli(["mint-client", "--write", "--force"], { home: h });
    expect(forced.code).toBe(0);
    const second = envValues(readFileSync(envFile(h), "utf8"));
    expect(second.OAUTH_CLIENT_ID).not.toBe(envValues(first).OAUTH_CLIENT_ID);
    expect(second.OAUTH_CLIENT_SECRET).not.toBe(envValues(first).OAUTH_CLIENT_SECRET);
  });

  test("what it writes is the static client the daemon then loads (doctor reports it)", async () => {
    const h = home();
    await runCli(["mint-client", "--write"], { home: h });
    const id = envValues(readFileSync(envFile(h), "utf8")).OAUTH_CLIENT_ID as string;
    const doctor = await runCli(["doctor"], { home: h });
    expect(doctor.stdout + doctor.stderr).toContain(id);
  });

  test("warns when the environment holds a client that would win over the file", async () => {
    const h = home();
    const result = await runCli(["mint-client", "--write"], { home: h, env: { OAUTH_CLIENT_ID: "from-env" } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("wins over the file");
    expect((await runCli(["mint-client", "--write", "--force"], { home: h })).stderr).not.toContain("wins over the file");
  });

  test("without --write it still prints the two lines and writes nothing", async () => {
    const h = home();
    const result = await runCli(["mint-client"], { home: h });
    expect(result.stdout).toMatch(/^OAUTH_CLIENT_ID=hermes-[0-9a-f]{16}\nOAUTH_CLIENT_SECRET=\S+\n$/);
    expect(existsSync(envFile(h))).toBe(false);
  });
});
