// bench/page-cache.ts really empties the page cache of a file just written (the benchmark's start-from-disk reading relies on it).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cachedMiB, dropFromPageCache } from "../../bench/page-cache.ts";

const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-page-cache-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.skipIf(process.platform !== "linux")("a file just written is whole in the page cache; after the drop it is not", () => {
  // Without fincore every reading is null, and the second test would pass for the wrong reason: say what is missing.
  if (!Bun.which("fincore")) throw new Error("fincore is missing: apt-get install util-linux (.ci/run does)");
  const file = join(dir, "written.bin");
  writeFileSync(file, Buffer.alloc(8 * 1048576, 7));
  // Not yet flushed to disk: the drop must flush it first, or dirty pages would stay.
  expect(cachedMiB(file)).toBeGreaterThanOrEqual(7.9);
  const dropped = dropFromPageCache(file);
  if (typeof dropped === "string") throw new Error(dropped);
  expect(dropped.beforeMiB).toBeGreaterThanOrEqual(7.9);
  expect(dropped.afterMiB).toBeLessThan(0.5);
  expect(cachedMiB(file)).toBeLessThan(0.5);
});

test.skipIf(process.platform !== "linux")("a file that is not there is reported, not thrown", () => {
  expect(Bun.which("fincore")).not.toBeNull();
  const missing = join(dir, "missing.bin");
  expect(cachedMiB(missing)).toBeNull();
  expect(dropFromPageCache(missing)).toContain(missing);
});
