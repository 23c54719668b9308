// The README's quick start, run literally in an empty HOME: the gateway key, hermes-mcp on PATH, the daemon, a token and curl, the env file.
import { afterAll, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { parseDotenv } from "../src/config/dotenv.ts";
import { freePort, makeHome, removeHome } from "./support/daemon.ts";
import { startFakeGateway, type FakeGateway } from "./support/fake-gateway.ts";

const ROOT = join(import.meta.dir, "..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("<!-- quickstart:start -->"), readme.indexOf("<!-- quickstart:end -->"));
/** Every ```sh block between the markers, in order, as the reader copies it (list indentation removed). */
const blocks = [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent = "", body = ""]) =>
  body.replace(new RegExp(`^${indent}`, "gm"), ""),
);

const home = makeHome();
const port = freePort();
let gateway: FakeGateway | null = null;
let daemon: Subprocess | null = null;

/**
 * The environment of a fresh machine: only HOME and PATH (no XDG_* variables, so the defaults under HOME are used).
 * Substitutions, each only because CI cannot do the real thing:
 * - BIND_PORT: a free port instead of 8765 (tests run in parallel); `127.0.0.1:8765` in commands is rewritten to it.
 * - HERMES_API_URL: the fake gateway (tests/support/fake-gateway.ts) on a free port stands in for Hermes on 8642;
 *   `127.0.0.1:8642` in commands is rewritten to it.
 * The `npm install -g bun@…` set-up lines sit above the markers (Bun is already here); tests/readme.test.ts runs `bun run start`.
 */
const env = (): Record<string, string> => ({
  HOME: home,
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  BIND_PORT: String(port),
  ...(gateway ? { HERMES_API_URL: gateway.url } : {}),
});
const rewrite = (command: string): string =>
  command
    .replaceAll("127.0.0.1:8765", `127.0.0.1:${port}`)
    .replaceAll("127.0.0.1:8642", gateway ? new URL(gateway.url).host : "127.0.0.1:8642");

/** Runs shell text with bash in the clone, as a reader pasting it would (asynchronously: the fake gateway lives in this process). */
async function sh(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(["bash", "-c", rewrite(command)], {
    cwd: ROOT,
    env: env(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 20_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** `hermes-mcp serve` runs in a terminal of its own: here, in the background until the test stops it. */
async function startServe(exportLine: string, command: string): Promise<void> {
  // `exec`: the daemon replaces the shell, so SIGTERM reaches it as Ctrl-C would in a terminal.
  daemon = Bun.spawn(["bash", "-c", rewrite(`${exportLine}\nexec ${command}`)], {
    cwd: ROOT,
    env: env(),
    stdout: "ignore",
    stderr: "ignore",
  });
  for (let i = 0; i < 200; i++) {
    if ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok) return;
    await Bun.sleep(50);
  }
  throw new Error("hermes-mcp serve did not answer /healthz within 10 s");
}

async function stopServe(): Promise<void> {
  if (!daemon) return;
  daemon.kill("SIGTERM");
  const exited = await Promise.race([daemon.exited, Bun.sleep(5_000).then(() => null)]);
  if (exited === null) daemon.kill("SIGKILL");
  daemon = null;
}

afterAll(async () => {
  await stopServe();
  await gateway?.stop();
  removeHome(home);
});

const mode = (path: string): number => statSync(path).mode & 0o777;

test("the quick start works as written on a fresh machine", async () => {
  for (const tool of ["bash", "curl", "openssl"]) expect({ tool, found: Bun.which(tool) !== null }).toEqual({ tool, found: true });
  const [hermesSide, onPath, serve, tryIt, envFile, ...rest] = blocks;
  expect(rest).toEqual([]);
  expect([hermesSide, onPath, serve, tryIt, envFile].every((b) => b !== undefined)).toBe(true);

  // 1. The Hermes side. `systemctl --user restart hermes-gateway` is the one line CI cannot run: in its place the fake
  // gateway starts, with the API_SERVER_KEY the line before wrote into the temporary ~/.hermes/.env (what a restarted
  // gateway would read). ~/.hermes exists on a machine with Hermes installed; here it is created for it.
  await sh("mkdir -p ~/.hermes");
  const [beforeRestart, afterRestart] = (hermesSide as string).split(/^systemctl --user restart hermes-gateway.*$/m);
  expect(afterRestart).toBeDefined();
  expect((await sh(beforeRestart as string)).code).toBe(0);
  const key = parseDotenv(readFileSync(join(home, ".hermes", ".env"), "utf8")).values.API_SERVER_KEY ?? "";
  expect(key.length).toBeGreaterThanOrEqual(16);
  gateway = await startFakeGateway({ apiKey: key });
  expect((await sh(afterRestart as string)).stdout).toContain('"platform":"hermes-agent"');
  // Running it again keeps the key: it adds one only when none is there.
  await sh(beforeRestart as string);
  expect(readFileSync(join(home, ".hermes", ".env"), "utf8").match(/API_SERVER_KEY=/g)).toHaveLength(1);

  // 2. hermes-mcp on PATH (the `export` lasts for the block, as in the reader's shell; later blocks get it the same way).
  const linked = await sh(onPath as string);
  expect(linked.code, linked.stderr).toBe(0);
  // Linked to the clone, it runs from source and says so (a release build names its commit and target instead).
  expect(linked.stdout.trim().split("\n").at(-1)).toMatch(/^\d+\.\d+\.\d+ \(from source\)$/);
  const exportLine = /^export PATH=.*$/m.exec(onPath as string)?.[0] ?? "";
  expect(exportLine).not.toBe("");
  expect((await sh(`${exportLine}\ncommand -v hermes-mcp`)).stdout.trim()).toBe(join(home, ".bun", "bin", "hermes-mcp"));

  // 3. The daemon.
  expect((serve as string).trim()).toBe("hermes-mcp serve");
  await startServe(exportLine, serve as string);

  // 4. doctor, a token, and curl listing the tools through the daemon; the gateway key came from ~/.hermes/.env.
  const tried = await sh(`${exportLine}\n${tryIt}`);
  expect(tried.code, tried.stderr).toBe(0);
  expect(tried.stdout).toContain("configuration valid");
  expect(tried.stdout).toContain("gateway accepts HERMES_API_KEY");
  for (const tool of ["hermes_ask", "hermes_check", "hermes_cancel", "hermes_reset"]) expect(tried.stdout).toContain(tool);
  expect(gateway.requests.some((r) => r.authOk)).toBe(true);

  // Set-up for Claude, step 2: the env file, created private, with the client and the public URL; doctor accepts it.
  const configured = await sh(`${exportLine}\n${envFile}`);
  expect(configured.code, configured.stderr + configured.stdout).toBe(0);
  const folder = join(home, ".config", "hermes-mcp");
  expect(mode(folder)).toBe(0o700);
  expect(mode(join(folder, "env"))).toBe(0o600);
  const values = parseDotenv(readFileSync(join(folder, "env"), "utf8")).values;
  expect(values.OAUTH_CLIENT_ID).toMatch(/^hermes-/);
  expect(configured.stdout + configured.stderr).not.toContain(values.OAUTH_CLIENT_SECRET as string);
  expect(configured.stdout).toContain(`static OAuth client ${values.OAUTH_CLIENT_ID} configured`);
  expect(configured.stdout).not.toContain("✖");

  // Step 3: restarted, the daemon serves as the issuer the file names.
  await stopServe();
  await startServe(exportLine, serve as string);
  const metadata = (await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
  expect(metadata.issuer).toBe(values.OAUTH_ISSUER_URL as string);
}, 30_000);
