// The character classes behind log escaping and label cleaning: what counts as breaking, how it is escaped, what a visible line keeps.
import { describe, expect, test } from "bun:test";
import { escapeBreakingChars, hasBreakingChar, toOneVisibleLine } from "../src/unsafe-text.ts";

const BREAKING = [
  "\u0000",
  "\t",
  "\n",
  "\r",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u009f",
  "\u2028",
  "\u2029",
  "\u061c",
  "\u200e",
  "\u200f",
  "\u202a",
  "\u202e",
  "\u2066",
  "\u2069",
];

describe("unsafe-text", () => {
  test("every control, separator and bidi control is breaking; ordinary text, emoji and joiners are not", () => {
    for (const char of BREAKING) expect(hasBreakingChar(`a${char}b`)).toBe(true);
    for (const text of ["plain text", "émoji 🔎 👨‍👩‍👧", "中文", "a\u00a0b"]) expect(hasBreakingChar(text)).toBe(false);
  });

  test("escapes are visible \\uXXXX and leave the rest alone", () => {
    expect(escapeBreakingChars("ok\u202eko\nnext\u0085")).toBe("ok\\u202eko\\u000anext\\u0085");
    expect(escapeBreakingChars("é 🔎")).toBe("é 🔎");
  });

  test("a visible line: controls become spaces, bidi and invisible characters go", () => {
    expect(toOneVisibleLine(" a\n\tb\u2028c\u202ed\u200be\u{e0041}f\ufeff ")).toBe("a b cdef");
  });
});
