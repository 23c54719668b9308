// The crash loop's CI version: 3 × (load, kill -9, restart); every acknowledged job answers, integrity_check ok, every issued token works.
import { expect, test } from "bun:test";
import { runStressScript } from "./script.ts";

test("bun run crashloop (3 rounds): acknowledged jobs answer, the database is intact, every token still works", async () => {
  const run = await runStressScript("crashloop", ["--rounds", "3", "--seed", "7"]);
  expect(run.result.first).toEqual([]);
  expect(run.result.violations).toBe(0);
  expect(run.result.jobs as number).toBeGreaterThan(20);
  expect(run.result.tokens as number).toBeGreaterThan(3);
  expect(run.code).toBe(0);
}, 60_000);
