// The fuzz's CI version: 1,500 seeded malformed requests against every endpoint; no 5xx, no crash, no hang, memory stable.
import { expect, test } from "bun:test";
import { runStressScript } from "./script.ts";

test("bun run fuzz (1,500 requests): no 5xx from hermes-mcp, no crash, no hang, memory stable", async () => {
  const run = await runStressScript("fuzz", ["--requests", "1500", "--seed", "20261123"]);
  expect(run.result.first).toEqual([]);
  expect(run.result.violations).toBe(0);
  expect(run.result.requests).toBe(1500);
  expect(run.code).toBe(0);
}, 60_000);
