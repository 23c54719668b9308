// The bench's start-up steps: the median of each step the daemon logged, in its order; a log without the line is named.
import { expect, test } from "bun:test";
import { medianSteps } from "../../bench/start-steps.ts";

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
