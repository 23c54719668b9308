// The idle-RSS floor (bench/baselines/features-floor.ts) builds with the release flags and does the steps it claims to, as `serve` would be started, and gives memory back alike once quiet.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFeaturesFloor, rssMiB, rssSplit, startBinary } from "../../bench/servers.ts";
import { QUIET_MS, RELEASE_AFTER_MS } from "../../src/idle-collector.ts";
import { type FakeGateway, startFakeGateway } from "../support/fake-gateway.ts";
import { SERVE_RUNTIME_OPTIONS } from "../../src/cli/relaunch.ts";

let dir: string;
let gateway: FakeGateway;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hermes-mcp-floor-test-"));
  gateway = await startFakeGateway();
});

afterAll(async () => {
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("compiles, serves /healthz from Hono, keeps its WAL database and lock, asks the gateway once, hands its code pages back once quiet, and stops on SIGTERM", async () => {
  const binary = await buildFeaturesFloor(dir);
  const home = join(dir, "home");
  const healthBefore = gateway.requests.filter((r) => r.path === "/health").length;
  const floor = await startBinary(binary, home, { BENCH_GATEWAY_URL: gateway.url, ...SERVE_RUNTIME_OPTIONS });
  try {
    const health = await fetch(`${floor.url}/healthz`);
    expect(health.status).toBe(200);
    // The probe's hash (43 base64url characters) went into SQLite and came back out through a prepared statement.
    expect(await health.json()).toEqual({ status: "ok", probe: 43 });
    expect(existsSync(join(home, "floor-data", "floor.db-wal"))).toBe(true);
    expect(existsSync(join(home, "floor-data", "holder.json"))).toBe(true);
    for (let i = 0; i < 200 && gateway.requests.filter((r) => r.path === "/health").length === healthBefore; i++) await Bun.sleep(10);
    expect(gateway.requests.filter((r) => r.path === "/health").length).toBe(healthBefore + 1);
    expect(rssMiB(floor.pid)).toBeGreaterThan(0);
    // Once quiet it gives memory back as serve does, code pages included (Linux): what the daemon hands back, the
    // floor does not keep.
    if (process.platform === "linux") {
      const mapped = rssSplit(floor.pid).fileBacked;
      await Bun.sleep(QUIET_MS + RELEASE_AFTER_MS + 1500);
      expect(rssSplit(floor.pid).fileBacked).toBeLessThan(mapped - 5);
    }
  } finally {
    await floor.stop();
  }
  // stop() sent SIGTERM and waited for the exit: the process is gone (signal 0 only asks whether it exists).
  expect(() => process.kill(floor.pid, 0)).toThrow();
}, 60_000);
