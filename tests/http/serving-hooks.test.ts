// startDaemon's onServing and onQuiet hooks (serve tunes the JIT with them): serving from the first /mcp request, quiet once it stops, serving again from the next; and its GC pacing, touched by every request.
import { afterEach, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningDaemon, startDaemon } from "../../src/daemon.ts";
import { QUIET_MS } from "../../src/idle-collector.ts";
import { silentLogger } from "../../src/log.ts";
import { baseEnv, makeHome, removeHome } from "../support/daemon.ts";

const homes: string[] = [];
const daemons: RunningDaemon[] = [];
afterEach(async () => {
  for (const daemon of daemons.splice(0)) await daemon.stop();
  for (const home of homes.splice(0)) removeHome(home);
});

// In this process (the hooks are functions), in a home of its own as every test daemon.
const startWith = (hooks: Parameters<typeof startDaemon>[2]): RunningDaemon => {
  const home = makeHome();
  homes.push(home);
  const env = baseEnv(home, {
    BIND_HOST: "127.0.0.1",
    BIND_PORT: "0",
    OAUTH_CLIENT_ID: "claude-static",
    OAUTH_CLIENT_SECRET: "s".repeat(40),
  });
  const loaded = loadConfig({ env, cwd: home });
  const daemon = startDaemon(loaded, silentLogger, hooks);
  daemons.push(daemon);
  return daemon;
};

test("onServing is called once, by the first request to /mcp (whoever sends it), and by nothing else", async () => {
  let calls = 0;
  const daemon = startWith({ onServing: () => calls++ });
  expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${daemon.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
  expect(calls).toBe(0);
  // An unauthenticated call counts: it is still the daemon being called (the hook only tunes the JIT).
  expect((await fetch(`${daemon.url}/mcp`, { method: "POST" })).status).toBe(401);
  expect(calls).toBe(1);
  expect((await fetch(`${daemon.url}/mcp`, { method: "POST" })).status).toBe(401);
  expect(calls).toBe(1);
});

test("onQuiet comes once the daemon is quiet; the next /mcp request calls onServing again, and only it", async () => {
  const events: string[] = [];
  const daemon = startWith({ onServing: () => events.push("serving"), onQuiet: () => events.push("quiet") });
  const waitFor = async (count: number): Promise<void> => {
    const deadline = Date.now() + QUIET_MS + 5000;
    while (events.length < count && Date.now() < deadline) await Bun.sleep(50);
  };
  expect((await fetch(`${daemon.url}/mcp`, { method: "POST" })).status).toBe(401);
  await waitFor(2);
  expect(events).toEqual(["serving", "quiet"]);
  // A probe wakes the collector but is not the daemon being called.
  expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
  expect(events).toEqual(["serving", "quiet"]);
  expect((await fetch(`${daemon.url}/mcp`, { method: "POST" })).status).toBe(401);
  expect((await fetch(`${daemon.url}/mcp`, { method: "POST" })).status).toBe(401);
  expect(events).toEqual(["serving", "quiet", "serving"]);
}, 20_000);

test("every request touches the GC pacing, /mcp and the rest alike; quiet ends it, and so does stopping", async () => {
  const events: string[] = [];
  const daemon = startWith({
    onQuiet: () => events.push("quiet"),
    pacing: { touch: () => events.push("touch"), quiet: () => events.push("pacing quiet") },
  });
  expect(events).toEqual([]);
  expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${daemon.url}/mcp`, { method: "POST" })).status).toBe(401);
  expect(events).toEqual(["touch", "touch"]);
  const deadline = Date.now() + QUIET_MS + 5000;
  while (!events.includes("quiet") && Date.now() < deadline) await Bun.sleep(50);
  // The pacing ends as the daemon goes quiet, before its full collection (the give-back's own work).
  expect(events).toEqual(["touch", "touch", "pacing quiet", "quiet"]);
  expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
  await daemon.stop();
  expect(events).toEqual(["touch", "touch", "pacing quiet", "quiet", "touch", "pacing quiet"]);
}, 20_000);
