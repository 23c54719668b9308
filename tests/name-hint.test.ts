// A name nobody has: the one meant when a single known name is a typo away, else the names there are, sorted and capped.
import { expect, test } from "bun:test";
import { nameHint } from "../src/name-hint.ts";

test("a typo or a case slip names the one meant", () => {
  expect(nameHint("cursor-lapotp", ["cursor-laptop", "phone"])).toBe(' — did you mean "cursor-laptop"?');
  expect(nameHint("Phone", ["cursor-laptop", "phone"])).toBe(' — did you mean "phone"?');
});

test("two names equally near, or none near, list the names there are (sorted, numbers in order, at most ten)", () => {
  expect(nameHint("t17", ["t1", "t7"])).toBe(" (known: t1, t7)");
  const many = Array.from({ length: 16 }, (_, i) => `laptop${16 - i}`);
  expect(nameHint("ghost", many)).toBe(
    " (known: laptop1, laptop2, laptop3, laptop4, laptop5, laptop6, laptop7, laptop8, laptop9, laptop10, and 6 more)",
  );
  expect(nameHint("ghost", [])).toBe(" (there are none)");
  // A short name is not "near" everything short: no edit under three characters, one under six, else two.
  expect(nameHint("ab", ["xy", "cd"])).toBe(" (known: cd, xy)");
});
