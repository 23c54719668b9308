// While busy, one asynchronous collection per period; none once quiet, and none at all while Bun's own GC timer is on.
import { expect, test } from "bun:test";
import { BUSY_COLLECT_EVERY_MS, gcPacing, gcPacingFor } from "../src/gc-pacing.ts";

test("collects once per period while requests keep arriving, and stops after a period without one or when quiet", async () => {
  let collections = 0;
  const pacing = gcPacing(() => collections++, 20);
  await Bun.sleep(60);
  expect(collections).toBe(0);
  // Requests every 5 ms for 150 ms (many per period, as under load): one collection per period, not one per request.
  const arriving = setInterval(() => pacing.touch(), 5);
  pacing.touch();
  await Bun.sleep(150);
  clearInterval(arriving);
  // (Loose below: a loaded machine delays timers; it cannot add ticks.)
  expect(collections).toBeGreaterThanOrEqual(2);
  expect(collections).toBeLessThanOrEqual(9);
  // No request since: at most the period already touched collects, then nothing (a held call alone wakes nobody).
  const afterLast = collections;
  await Bun.sleep(120);
  expect(collections - afterLast).toBeLessThanOrEqual(1);
  const settled = collections;
  await Bun.sleep(60);
  expect(collections).toBe(settled);
  // The next request starts it again; quiet() stops it at once.
  pacing.touch();
  const deadline = Date.now() + 2_000;
  while (collections === settled && Date.now() < deadline) await Bun.sleep(5);
  expect(collections).toBe(settled + 1);
  pacing.touch();
  pacing.quiet();
  await Bun.sleep(60);
  expect(collections).toBe(settled + 1);
});

test("paces only when Bun's own timer is off (BUN_GC_TIMER_DISABLE, whatever its value)", async () => {
  const collected: string[] = [];
  const realGc = Bun.gc;
  Bun.gc = ((force: boolean) => {
    collected.push(force ? "sync" : "async");
    return 0;
  }) as typeof Bun.gc;
  try {
    const on = gcPacingFor({ BUN_GC_TIMER_DISABLE: "0" });
    const off = gcPacingFor({});
    off.touch();
    await Bun.sleep(BUSY_COLLECT_EVERY_MS * 2.5);
    expect(collected).toEqual([]);
    on.touch();
    await Bun.sleep(BUSY_COLLECT_EVERY_MS * 2.5);
    on.quiet();
    // Bun.gc(false): a collection that runs alongside the daemon, never one that stops it.
    expect(collected.length).toBeGreaterThanOrEqual(1);
    expect(new Set(collected)).toEqual(new Set(["async"]));
  } finally {
    Bun.gc = realGc;
  }
});
