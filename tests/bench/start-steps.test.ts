// The bench's start-up steps: the median of each step the daemon logged, in its order; a log without the line is named; what the starts cost.
import { expect, test } from "bun:test";
import { describeStartCost, medianSteps } from "../../bench/start-steps.ts";

const log = (steps: Record<string, number>): string =>
  [
    JSON.stringify({ time: "t", level: "info", msg: "hermes-mcp listening", url: "http://127.0.0.1:1" }),
    JSON.stringify({ time: "t", level: "debug", msg: "start-up steps", ...steps }),
    "",
  ].join("\n");

test("takes each step's median over the starts, in the order the daemon listed them", () => {
  const logs = [
    log({ runtime_ms: 12, modules_ms: 20, database_ms: 3, total_ms: 35 }),
    log({ runtime_ms: 14, modules_ms: 18.25, database_ms: 13, total_ms: 45.25 }),
    log({ runtime_ms: 11, modules_ms: 30, database_ms: 2.5, total_ms: 43.5 }),
  ];
  expect(medianSteps(logs)).toBe("runtime 12.0, modules 20.0, database 3.0, = total 43.5");
});

test("a daemon log without the line is refused with the log shown", () => {
  expect(() => medianSteps([JSON.stringify({ msg: "hermes-mcp listening" })])).toThrow(/no "start-up steps" line.*listening/s);
});

test("a start's cost: median CPU and faults, the kernel's share of all the starts' ticks together", () => {
  const ours = [
    { cpuMs: 90.4, userMs: 60, systemMs: 30, faults: 3300 },
    { cpuMs: 101.2, userMs: 50, systemMs: 50, faults: 3250 },
    { cpuMs: 95.0, userMs: 60, systemMs: 40, faults: 3290 },
  ];
  const floor = [
    { cpuMs: 50, userMs: 30, systemMs: 20, faults: 1500 },
    { cpuMs: 52, userMs: 40, systemMs: 10, faults: 1520 },
    { cpuMs: 51, userMs: 30, systemMs: 0, faults: 1510 },
  ];
  const line = describeStartCost(ours, floor);
  // 120 of the 290 ms of ticks in the kernel: 41%; the floor's 30 of 130: 23%.
  expect(line).toContain("hermes-mcp 95.0 ms of CPU (41% of it in the kernel), 3,290 page faults");
  expect(line).toContain("the features floor 51.0 ms of CPU (23% of it in the kernel), 1,510 page faults");
  expect(line).toContain("medians of the 3 timed starts");
});

test("a start too short for one tick says so instead of a share of nothing", () => {
  const idle = [{ cpuMs: 4, userMs: 0, systemMs: 0, faults: 900 }];
  expect(describeStartCost(idle, idle)).toContain("4.0 ms of CPU (— of it in the kernel), 900 page faults");
});
