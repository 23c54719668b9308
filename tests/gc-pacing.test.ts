// While busy, one asynchronous collection per period; none once quiet, and none at all while Bun's own GC timer is on.
import { expect, test } from "bun:test";
import { BUSY_COLLECT_EVERY_MS, gcPacing, gcPacingFor } from "../src/gc-pacing.ts";

test("collects each period from the first touch until quiet, then not until the next touch", async () => {
  let collections = 0;
  const pacing = gcPacing(() => collections++, 20);
  await Bun.sleep(60);
  expect(collections).toBe(0);
  pacing.touch();
  // Touched again and again, as every request does: still one collection per period, not one per touch.
  for (let i = 0; i < 50; i++) pacing.touch();
  await Bun.sleep(110);
  expect(collections).toBeGreaterThanOrEqual(3);
  expect(collections).toBeLessThanOrEqual(6);
  pacing.quiet();
  const atQuiet = collections;
  await Bun.sleep(80);
  expect(collections).toBe(atQuiet);
  pacing.touch();
  await Bun.sleep(50);
  expect(collections).toBeGreaterThan(atQuiet);
  pacing.quiet();
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
