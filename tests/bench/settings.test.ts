// The bench's BENCH_* settings: defaults when unset, whole numbers when set, a clear stop otherwise.
import { afterEach, describe, expect, test } from "bun:test";
import { benchParts, benchSetting } from "../../bench/settings.ts";

const NAME = "BENCH_TEST_SETTING";
afterEach(() => {
  delete process.env[NAME];
});

describe("benchSetting", () => {
  test("unset, empty or blank gives the default", () => {
    expect(benchSetting(NAME, 5, 1, 100)).toBe(5);
    process.env[NAME] = "";
    expect(benchSetting(NAME, 5, 1, 100)).toBe(5);
    process.env[NAME] = "  ";
    expect(benchSetting(NAME, 5, 1, 100)).toBe(5);
  });

  test("a whole number at or above the minimum is taken", () => {
    process.env[NAME] = "3";
    expect(benchSetting(NAME, 5, 1, 100)).toBe(3);
    process.env[NAME] = "0";
    expect(benchSetting(NAME, 2000, 0, 60_000)).toBe(0);
  });

  test.each(["abc", "2.5", "0", "-1", "1e400"])("%p stops the bench, naming the variable, its range and the default", (raw) => {
    process.env[NAME] = raw;
    expect(() => benchSetting(NAME, 5, 1, 100)).toThrow(
      `${NAME} must be a whole number from 1 to 100 (got "${raw}"); unset it for the default, 5`,
    );
  });
});

describe("benchSetting's maximum", () => {
  test("above it stops the bench, giving the range", () => {
    process.env[NAME] = "10001";
    expect(() => benchSetting(NAME, 10_000, 1, 10_000)).toThrow(`${NAME} must be a whole number from 1 to 10000 (got "10001")`);
    process.env[NAME] = "10000";
    expect(benchSetting(NAME, 10_000, 1, 10_000)).toBe(10_000);
  });
});

describe("benchParts", () => {
  const PARTS = ["throughput", "latency", "memory"];

  test("unset or blank runs every part", () => {
    expect([...benchParts(PARTS, undefined)]).toEqual(PARTS);
    expect([...benchParts(PARTS, " ")]).toEqual(PARTS);
  });

  test("a list runs those parts, spaces around names allowed", () => {
    expect([...benchParts(PARTS, "memory, latency")]).toEqual(["memory", "latency"]);
  });

  test("a misspelt part stops the bench and lists the real ones", () => {
    expect(() => benchParts(PARTS, "latncy")).toThrow('BENCH_ONLY names no part called "latncy"; choose from throughput,latency,memory');
    expect(() => benchParts(PARTS, ",")).toThrow("BENCH_ONLY names no part called anything; choose from throughput,latency,memory");
  });
});
