// How the bench folds its alternating wrk runs into one figure per server.
import { describe, expect, test } from "bun:test";
import { combine, cpuPerCall } from "../../bench/throughput.ts";

const run = (rps: number, p50: number, p99: number, requests = rps * 5) => ({ rps, requests, p50, p99 });

describe("combine", () => {
  test("one run is itself", () => {
    expect(combine([run(1000, 0.5, 2)])).toEqual(run(1000, 0.5, 2));
  });

  test("averages requests per second and takes the percentiles of the run with the median p99", () => {
    expect(combine([run(900, 0.4, 1.5), run(1200, 0.9, 9), run(1200, 0.6, 2.5)])).toEqual(run(1100, 0.6, 2.5, 16_500));
  });

  test("of two runs, reports the worse p99, never the kinder one", () => {
    expect(combine([run(1000, 0.7, 11.4), run(1000, 0.5, 1.6)])).toEqual(run(1000, 0.7, 11.4, 10_000));
    expect(combine([run(1000, 0.5, 1.6), run(1000, 0.7, 11.4)])).toEqual(run(1000, 0.7, 11.4, 10_000));
  });

  test("refuses no runs at all", () => {
    expect(() => combine([])).toThrow("at least one run");
  });
});

describe("cpuPerCall", () => {
  test("divides the CPU spent by the calls completed, in microseconds, and says how much of it was the kernel's", () => {
    expect(cpuPerCall({ calls: 250_000, userMs: 5_000, systemMs: 4_000 })).toBe("36.0 µs (16.0 in the kernel)");
  });

  test("says so when no call completed, rather than dividing by zero", () => {
    expect(cpuPerCall({ calls: 0, userMs: 10, systemMs: 0 })).toBe("— (no call completed)");
  });
});
