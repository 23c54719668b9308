// The bench's added-latency split puts a bridge's delay on the side of the gateway where the bridge spent it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { askGateway, measureLatency } from "../../bench/latency.ts";
import { type FakeGateway, startFakeGateway } from "../support/fake-gateway.ts";

const IN_MS = 20;
const OUT_MS = 8;
let gateway: FakeGateway;
let bridge: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  gateway = await startFakeGateway();
  // A stand-in for hermes-mcp: waits IN_MS before asking the gateway, and OUT_MS after its answer ends.
  bridge = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const { params } = (await request.json()) as { params: { arguments: { prompt: string } } };
      await Bun.sleep(IN_MS);
      await askGateway(gateway, params.arguments.prompt);
      await Bun.sleep(OUT_MS);
      return Response.json({ status: "completed" });
    },
  });
});

afterAll(async () => {
  bridge.stop(true);
  await gateway.stop();
});

test("the way in carries the delay spent before the gateway, the way out the delay after it", async () => {
  const { rows, notes } = await measureLatency(`http://127.0.0.1:${bridge.port}`, "unused", gateway, 10, 3);
  const split = /ours ([\d.]+) ms on the way in .* and ([\d.]+) ms on the way out/.exec(notes[0] ?? "");
  expect(split).not.toBeNull();
  const [wayIn, wayOut] = [Number(split?.[1]), Number(split?.[2])];
  expect(wayIn).toBeGreaterThanOrEqual(IN_MS - 1);
  expect(wayIn).toBeLessThan(IN_MS + 30);
  expect(wayOut).toBeGreaterThanOrEqual(OUT_MS - 1);
  expect(wayOut).toBeLessThan(wayIn - 5);
  // The three bare proxies ran beside it: each has its own split, and each row names what each added.
  expect(notes[0]).toMatch(
    /a bare Bun proxy [\d.-]+ and [\d.-]+ ms with fetch, [\d.-]+ and [\d.-]+ ms on a raw socket, [\d.-]+ and [\d.-]+ ms on a raw socket storing each call as hermes-mcp does$/,
  );
  for (const row of rows) {
    expect(row.baseline).toMatch(
      /a bare Bun proxy adds [\d.-]+ \(with fetch\), [\d.-]+ \(on a raw socket\), [\d.-]+ \(on a raw socket, storing each call\)$/,
    );
  }
  // The whole added time is both parts, and the target verdict follows it.
  const p50 = rows.find((row) => row.metric.includes("p50"));
  expect(Number(p50?.ours)).toBeGreaterThanOrEqual(IN_MS + OUT_MS - 2);
  expect(p50?.met).toBe(false);
});
