// The bench's one percentile: nearest rank on a sorted copy, the median as its 50th.
import { expect, test } from "bun:test";
import { median, percentile } from "../../bench/stats.ts";

test("nearest rank without interpolation, the last value at 100, the input left as it was", () => {
  const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  expect([percentile(xs, 0), percentile(xs, 50), percentile(xs, 90), percentile(xs, 99), percentile(xs, 100)]).toEqual([1, 6, 10, 10, 10]);
  expect(xs).toEqual([5, 1, 4, 2, 3, 10, 9, 8, 7, 6]);
});

test("the median is the middle value, the upper middle one of an even count", () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(3);
});

test("no values is an error, not undefined passed on as a figure", () => {
  expect(() => percentile([], 50)).toThrow("percentile of no values");
});
