// The idle collector: nothing without requests, one collection once quiet (then the code pages), none while requests keep coming or are in flight.
import { expect, test } from "bun:test";
import { idleCollector, QUIET_MS, RELEASE_AFTER_MS } from "../src/idle-collector.ts";
import { baseEnv, createToken, freePort, makeHome, removeHome, startTestDaemon } from "./support/daemon.ts";
import { FAKE_GATEWAY_KEY, startFakeGateway } from "./support/fake-gateway.ts";
import { connectClient, structuredOf } from "./support/mcp-client.ts";

const QUIET = 20;
const settle = (periods: number) => Bun.sleep(QUIET * periods);

test("a daemon nobody called never collects", async () => {
  let collections = 0;
  const collector = idleCollector({ pendingRequests: 0 }, { collect: () => collections++, quietMs: QUIET });
  await settle(5);
  expect(collections).toBe(0);
  collector.stop();
});

test("after a burst, one collection once quiet, and none after it until the next request", async () => {
  let collections = 0;
  const collector = idleCollector({ pendingRequests: 0 }, { collect: () => collections++, quietMs: QUIET });
  for (let i = 0; i < 100; i++) collector.touch();
  await settle(6);
  expect(collections).toBe(1);
  await settle(5);
  expect(collections).toBe(1);
  collector.touch();
  await settle(6);
  expect(collections).toBe(2);
  collector.stop();
});

test("requests still in flight (held calls, long-polls) defer the collection until they end", async () => {
  let collections = 0;
  const server = { pendingRequests: 3 };
  const collector = idleCollector(server, { collect: () => collections++, quietMs: QUIET });
  collector.touch();
  await settle(6);
  expect(collections).toBe(0);
  server.pendingRequests = 0;
  await settle(4);
  expect(collections).toBe(1);
  collector.stop();
});

test("the collection comes one quiet period after the last request, not after the timer's second round", async () => {
  // Long enough that late timers on a busy machine cannot decide it: the check falls 150 ms from either answer.
  const quiet = 600;
  let collections = 0;
  const collector = idleCollector({ pendingRequests: 0 }, { collect: () => collections++, quietMs: quiet });
  collector.touch();
  await Bun.sleep(quiet / 2);
  collector.touch();
  // Now 1.75 periods after the first request, 1.25 after the last: due at 1.0 after the last (1.5 after the first); a
  // second timer round would only come at 2.0 after the first.
  await Bun.sleep(quiet * 1.25);
  expect(collections).toBe(1);
  collector.stop();
});

test("stop cancels an armed collection", async () => {
  let collections = 0;
  const collector = idleCollector({ pendingRequests: 0 }, { collect: () => collections++, quietMs: QUIET });
  collector.touch();
  collector.stop();
  await settle(4);
  expect(collections).toBe(0);
});

test("the release follows the collection once the daemon is still quiet a moment later", async () => {
  const steps: string[] = [];
  const collector = idleCollector(
    { pendingRequests: 0 },
    { collect: () => steps.push("collect"), release: () => steps.push("release"), quietMs: QUIET, releaseAfterMs: QUIET },
  );
  collector.touch();
  await settle(8);
  expect(steps).toEqual(["collect", "release"]);
  await settle(5);
  expect(steps).toEqual(["collect", "release"]);
  collector.stop();
});

test("a request between the collection and the release calls the release off, and the round starts over from it", async () => {
  // Long enough that late timers on a busy machine cannot decide it: each check falls 150 ms or more from either answer.
  const quiet = 600;
  const steps: string[] = [];
  const collector = idleCollector(
    { pendingRequests: 0 },
    { collect: () => steps.push("collect"), release: () => steps.push("release"), quietMs: quiet, releaseAfterMs: quiet },
  );
  collector.touch();
  await Bun.sleep(quiet * 1.5);
  expect(steps).toEqual(["collect"]);
  // Half-way to the release (due at 2.0): the request uses the pages again.
  collector.touch();
  // At 2.25: the release was called off at 2.0; the next collection is due at 2.5 (one quiet period after the request).
  await Bun.sleep(quiet * 0.75);
  expect(steps).toEqual(["collect"]);
  // At 4.25: quiet again since that request, so collected once more (2.5), then released (3.5).
  await Bun.sleep(quiet * 2);
  expect(steps).toEqual(["collect", "collect", "release"]);
  collector.stop();
});

test("stop cancels an armed release", async () => {
  const steps: string[] = [];
  const collector = idleCollector(
    { pendingRequests: 0 },
    { collect: () => steps.push("collect"), release: () => steps.push("release"), quietMs: QUIET, releaseAfterMs: QUIET * 3 },
  );
  collector.touch();
  await settle(2.5);
  expect(steps).toEqual(["collect"]);
  collector.stop();
  await settle(5);
  expect(steps).toEqual(["collect"]);
});

test("a daemon gives back what start-up left once it is quiet, with no request at all to arm it", async () => {
  const home = makeHome();
  const cli = `${import.meta.dir}/../src/cli/index.ts`;
  // Started without a readiness probe: nothing but start-up itself may arm the collector.
  const env = baseEnv(home, { BIND_HOST: "127.0.0.1", BIND_PORT: String(freePort()), LOG_LEVEL: "DEBUG" });
  const proc = Bun.spawn([process.execPath, cli, "serve"], { cwd: home, env, stdout: "pipe", stderr: "pipe" });
  let logs = "";
  const drain = async (stream: ReadableStream<Uint8Array>): Promise<void> => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) logs += decoder.decode(chunk, { stream: true });
  };
  void drain(proc.stdout);
  void drain(proc.stderr);
  try {
    const deadline = Date.now() + QUIET_MS + RELEASE_AFTER_MS + 5000;
    const released = /quiet: code pages handed back mib=([\d.]+)/;
    const releases = process.platform === "linux";
    while (!(releases ? released.test(logs) : logs.includes("quiet: memory given back")) && Date.now() < deadline) await Bun.sleep(100);
    expect(logs).toContain("hermes-mcp listening");
    expect(logs).toContain("quiet: memory given back");
    if (releases) {
      // Then the code pages (Linux), and the daemon answers as before.
      expect(Number(released.exec(logs)?.[1])).toBeGreaterThan(1);
      expect((await fetch(`http://127.0.0.1:${env.BIND_PORT}/healthz`)).status).toBe(200);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    removeHome(home);
  }
}, 20_000);

test("once quiet, the daemon closes its idle gateway connections: calls in a burst share one, the next call opens a fresh one", async () => {
  const gateway = await startFakeGateway();
  const home = makeHome();
  const env = { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url, LOG_LEVEL: "DEBUG" };
  const token = await createToken(home, "quiet", env);
  const daemon = await startTestDaemon({ home, env });
  const ask = async (prompt: string): Promise<void> => {
    const client = await connectClient(daemon.url, token);
    expect(structuredOf(await client.callTool({ name: "hermes_ask", arguments: { prompt } })).status).toBe("completed");
    await client.close();
  };
  const chatPorts = () => gateway.chats.map((chat) => chat.clientPort);
  try {
    await ask("first");
    await ask("second");
    // Kept alive within a burst.
    expect(chatPorts()[0]).not.toBeNull();
    expect(chatPorts()[1]).toBe(chatPorts()[0]);
    const deadline = Date.now() + QUIET_MS + RELEASE_AFTER_MS + 5000;
    while (!daemon.logs().includes("quiet: memory given back") && Date.now() < deadline) await Bun.sleep(100);
    // Every connection the daemon opened to the gateway is idle now and closed: the burst's, and the start-up check's
    // (/v1/health, /v1/models) when the first call came while that check still held its connection (a slow start).
    const opened = new Set(gateway.requests.map((r) => r.clientPort)).size;
    expect(opened).toBeGreaterThanOrEqual(1);
    expect(daemon.logs()).toMatch(new RegExp(`quiet: memory given back.*gateway_connections_closed=${opened}\\b`));
    // Long before the connection's own idle timeout (30 s), the call after the quiet spell needs a new one.
    await ask("after the quiet spell");
    expect(chatPorts()).toHaveLength(3);
    expect(chatPorts()[2]).not.toBe(chatPorts()[0]);
  } finally {
    await daemon.stop();
    await gateway.stop();
    removeHome(home);
  }
}, 30_000);
