// startDaemon's onFirstMcpRequest hook (serve turns the JIT eager with it): once, on the first /mcp request, not before.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningDaemon, startDaemon } from "../../src/daemon.ts";
import { silentLogger } from "../../src/log.ts";

const homes: string[] = [];
const daemons: RunningDaemon[] = [];
afterEach(async () => {
  for (const daemon of daemons.splice(0)) await daemon.stop();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

test("is called once, by the first request to /mcp (whoever sends it), and by nothing else", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-mcp-first-call-"));
  homes.push(home);
  const loaded = loadConfig({
    env: { HOME: home, BIND_HOST: "127.0.0.1", BIND_PORT: "0", OAUTH_CLIENT_ID: "claude-static", OAUTH_CLIENT_SECRET: "s".repeat(40) },
    cwd: home,
  });
  let calls = 0;
  const daemon = startDaemon(loaded, silentLogger, { onFirstMcpRequest: () => calls++ });
  daemons.push(daemon);
  expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${daemon.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
  expect(calls).toBe(0);
  // An unauthenticated call counts: it is still the daemon being called (the hook only tunes the JIT).
  expect((await fetch(`${daemon.url}/mcp`, { method: "POST" })).status).toBe(401);
  expect(calls).toBe(1);
  expect((await fetch(`${daemon.url}/mcp`, { method: "POST" })).status).toBe(401);
  expect(calls).toBe(1);
});
