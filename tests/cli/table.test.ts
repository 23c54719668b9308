// The CLI's list layout: aligned columns and UTC times, as `clients list`, `token list` and `jobs list` print them.
import { describe, expect, test } from "bun:test";
import { formatTable, utcTime } from "../../src/cli/table.ts";

describe("formatTable", () => {
  test("pads each column to its widest cell, two spaces apart, with no trailing spaces", () => {
    expect(
      formatTable(
        ["NAME", "LAST USED"],
        [
          ["laptop", "never"],
          ["ci", "2026-11-24 21:41:25Z"],
        ],
      ),
    ).toBe("NAME    LAST USED\nlaptop  never\nci      2026-11-24 21:41:25Z\n");
  });

  test("a header alone is one line; a short row leaves its missing cells empty", () => {
    expect(formatTable(["ID", "KIND"], [])).toBe("ID  KIND\n");
    expect(formatTable(["ID", "KIND", "NAME"], [["abc"]])).toBe("ID   KIND  NAME\nabc\n");
  });
});

describe("utcTime", () => {
  test("a time to the second in UTC, whatever the machine's zone", () => {
    expect(utcTime(Date.UTC(2026, 10, 24, 21, 41, 25, 987))).toBe("2026-11-24 21:41:25Z");
  });

  test("no time reads as '-' unless the caller names its own word", () => {
    expect(utcTime(null)).toBe("-");
    expect(utcTime(null, "never")).toBe("never");
  });
});
