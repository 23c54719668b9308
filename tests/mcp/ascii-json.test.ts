import { expect, test } from "bun:test";
import { asciiJson } from "../../src/mcp/server.ts";

// The cached tools/list is kept as ASCII-only JSON (cheaper for Bun to write): it must stay the very same value.
test("escapes every non-ASCII character and parses back to the same value", () => {
  const value = { dash: "a — b", accents: "café", emoji: "ok 🙂", cjk: "任务", plain: "x", nested: [{ ключ: "значение" }], n: 1.5 };
  const text = asciiJson(value);
  expect(text).toMatch(/^[\x00-\x7f]*$/);
  expect(JSON.parse(text)).toEqual(value);
  expect(text).toContain("\\u2014");
  // A character outside the BMP becomes its surrogate pair, which JSON parsers join again.
  expect(text).toContain("\\ud83d\\ude42");
});

test("leaves ASCII-only JSON exactly as JSON.stringify writes it", () => {
  const value = { a: 'quote " and backslash \\ and newline \n', b: [1, null, true] };
  expect(asciiJson(value)).toBe(JSON.stringify(value));
});
