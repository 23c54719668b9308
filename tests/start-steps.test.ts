// serve's start-up steps: each step's time is the time since the previous one ended, and the total is where the last ended.
import { expect, test } from "bun:test";
import { StartSteps } from "../src/start-steps.ts";

test("times each step from the end of the one before, from the runtime's zero by default", () => {
  const steps = new StartSteps();
  steps.done("runtime", 12.34);
  steps.done("modules", 30);
  steps.done("config", 36.06);
  expect(steps.fields()).toEqual({ runtime_ms: 12.3, modules_ms: 17.7, config_ms: 6.1, total_ms: 36.1 });
  expect(steps.totalMs).toBe(36.1);
});

test("starts where it is told, and keys keep the order the steps ran in", () => {
  const steps = new StartSteps(100);
  steps.done("lock", 102);
  steps.done("database", 115.5);
  expect(Object.keys(steps.fields())).toEqual(["lock_ms", "database_ms", "total_ms"]);
  expect(steps.fields()).toEqual({ lock_ms: 2, database_ms: 13.5, total_ms: 115.5 });
});

test("a step reported as ending before the previous one counts as 0 ms and does not move the clock back", () => {
  const steps = new StartSteps();
  steps.done("runtime", 20);
  steps.done("modules", 15);
  steps.done("config", 26);
  expect(steps.fields()).toEqual({ runtime_ms: 20, modules_ms: 0, config_ms: 6, total_ms: 26 });
});

test("a step without a time ends now", () => {
  const before = performance.now();
  const steps = new StartSteps(before);
  steps.done("work");
  const { work_ms, total_ms } = steps.fields() as { work_ms: number; total_ms: number };
  expect(work_ms).toBeGreaterThanOrEqual(0);
  expect(total_ms).toBeGreaterThanOrEqual(Math.round(before * 10) / 10);
  expect(total_ms).toBeLessThanOrEqual(performance.now() + 0.1);
});
