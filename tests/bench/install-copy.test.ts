// bench/servers.ts installCopy: the copy every idle reading measures is the same executable, made by cp as install.sh makes it.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installCopy } from "../../bench/servers.ts";

const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-install-copy-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("copies byte for byte into the folder, keeps the name and the execute bit", async () => {
  const source = join(dir, "tool");
  writeFileSync(source, "#!/bin/sh\necho copied\n");
  chmodSync(source, 0o755);
  const copy = installCopy(source, join(dir, "bin"));
  expect(copy).toBe(join(dir, "bin", "tool"));
  expect(await Bun.file(copy).text()).toBe("#!/bin/sh\necho copied\n");
  expect(statSync(copy).mode & 0o111).not.toBe(0);
  expect(Bun.spawnSync([copy]).stdout.toString()).toBe("copied\n");
});

test("a source that is not there stops with cp's reason", () => {
  expect(() => installCopy(join(dir, "missing"), join(dir, "bin"))).toThrow(/cp .*missing.* failed/);
});
