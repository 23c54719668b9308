// The soak's CI version: 40 clients × 8 s mixing every tool, long-polls, cancels and OAuth; no unexpected error, RSS and fds flat.
import { expect, test } from "bun:test";
import { runStressScript } from "./script.ts";

test("bun run soak (40 clients × 8 s): zero unexpected errors, daemon RSS and descriptors flat after it", async () => {
  const run = await runStressScript("soak", ["--clients", "40", "--seconds", "8", "--seed", "11"]);
  expect(run.result.first).toEqual([]);
  expect(run.result.violations).toBe(0);
  expect(run.result.operations as number).toBeGreaterThan(500);
  expect(run.code).toBe(0);
}, 60_000);
