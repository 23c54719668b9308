// The idle collector: nothing without requests, one collection once quiet, none while requests keep coming or are in flight.
import { expect, test } from "bun:test";
import { idleCollector, QUIET_MS } from "../src/idle-collector.ts";
import { baseEnv, freePort, makeHome, removeHome } from "./support/daemon.ts";

const QUIET = 20;
const settle = (periods: number) => Bun.sleep(QUIET * periods);

test("a daemon nobody called never collects", async () => {
  let collections = 0;
  const collector = idleCollector({ pendingRequests: 0 }, () => collections++, QUIET);
  await settle(5);
  expect(collections).toBe(0);
  collector.stop();
});

test("after a burst, one collection once quiet, and none after it until the next request", async () => {
  let collections = 0;
  const collector = idleCollector({ pendingRequests: 0 }, () => collections++, QUIET);
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
  const collector = idleCollector(server, () => collections++, QUIET);
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
  const collector = idleCollector({ pendingRequests: 0 }, () => collections++, quiet);
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
  const collector = idleCollector({ pendingRequests: 0 }, () => collections++, QUIET);
  collector.touch();
  collector.stop();
  await settle(4);
  expect(collections).toBe(0);
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
    const deadline = Date.now() + QUIET_MS + 5000;
    while (!logs.includes("quiet: memory given back") && Date.now() < deadline) await Bun.sleep(100);
    expect(logs).toContain("hermes-mcp listening");
    expect(logs).toContain("quiet: memory given back");
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    removeHome(home);
  }
}, 20_000);
