// The bench's after-quiet row puts a bridge's cold-start cost on the first call after a silence, not on the calls after it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { measureAfterQuiet } from "../../bench/after-quiet.ts";
import { askGateway } from "../../bench/latency.ts";
import { type FakeGateway, startFakeGateway } from "../support/fake-gateway.ts";

const COLD_MS = 30;
const QUIET_WAIT_MS = 80;
let gateway: FakeGateway;
let bridge: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  gateway = await startFakeGateway();
  // A stand-in for hermes-mcp: COLD_MS slower on a request that follows a silence of more than half the wait.
  let lastAnswered = 0;
  bridge = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const cold = performance.now() - lastAnswered > QUIET_WAIT_MS / 2;
      const { params } = (await request.json()) as { params: { arguments: { prompt: string } } };
      if (cold) await Bun.sleep(COLD_MS);
      await askGateway(gateway, params.arguments.prompt);
      lastAnswered = performance.now();
      return Response.json({ status: "completed" });
    },
  });
});

afterAll(async () => {
  bridge.stop(true);
  await gateway.stop();
});

test("the first call after a quiet spell carries the cold start, the calls right after it do not", async () => {
  const [row] = await measureAfterQuiet(`http://127.0.0.1:${bridge.port}`, "unused", gateway, 3, QUIET_WAIT_MS);
  expect(row?.met).toBeNull();
  expect(Number(row?.ours)).toBeGreaterThanOrEqual(COLD_MS - 2);
  const next = /the 3 calls right after it add ([\d.-]+); gateway direct [\d.]+$/.exec(row?.baseline ?? "");
  expect(next).not.toBeNull();
  expect(Number(next?.[1])).toBeLessThan(COLD_MS / 2);
});

test("a bridge whose answer is not a completed job stops the measurement", async () => {
  const failing = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ status: "failed" }) });
  try {
    await expect(measureAfterQuiet(`http://127.0.0.1:${failing.port}`, "unused", gateway, 1, 1)).rejects.toThrow(
      "unexpected answer through the bridge",
    );
  } finally {
    failing.stop(true);
  }
});
