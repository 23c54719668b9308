// bench/RESULTS.md as `bun run bench` writes it is already formatted: a fresh run never fails `bun run format:check` in CI.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeResults, type Row } from "../../bench/report.ts";

const ROOT = join(import.meta.dir, "..", "..");

test("the written results table is what the formatter would write (padded columns, escaped pipes)", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-bench-"));
  try {
    const rows: Row[] = [
      { metric: "a long metric name (ms)", ours: "0.5", baseline: "floor 1 | 2", ratio: "×0.50", target: "≤ 1 ms", met: true },
      { metric: "m", ours: "10000 / 10000", baseline: "—", ratio: "—", target: "all", met: false },
      { metric: "size", ours: "1", baseline: "x", ratio: "—", target: "reported", met: null },
    ];
    const machine = { date: "2026-11-23", commit: "abc", nproc: 2, memoryGiB: "1", cpu: "cpu", bun: "1.4.5", node: "v20" };
    const path = join(dir, "RESULTS.md");
    writeResults(path, machine, "wrk 2 × 50", rows, ["a note"]);
    const written = readFileSync(path, "utf8");
    const biome = Bun.spawnSync([join(ROOT, "node_modules", ".bin", "biome"), "format", "--stdin-file-path=RESULTS.md"], {
      cwd: ROOT,
      stdin: new TextEncoder().encode(written),
    });
    expect(biome.exitCode).toBe(0);
    expect(biome.stdout.toString()).toBe(written);
    expect(written).toContain("floor 1 \\| 2");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
