// The idle collector: nothing without requests, one collection once quiet, none while requests keep coming or are in flight.
import { expect, test } from "bun:test";
import { idleCollector } from "../src/idle-collector.ts";

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

test("stop cancels an armed collection", async () => {
  let collections = 0;
  const collector = idleCollector({ pendingRequests: 0 }, () => collections++, QUIET);
  collector.touch();
  collector.stop();
  await settle(4);
  expect(collections).toBe(0);
});
