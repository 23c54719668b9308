import { describe, expect, test } from "bun:test";
import { parseDotenv } from "../../src/config/dotenv.ts";

describe("parseDotenv", () => {
  test("reads KEY=VALUE lines, skipping blanks and comments", () => {
    const { values, badLines } = parseDotenv("# comment\n\nA=1\nB = two words \n");
    expect(values).toEqual({ A: "1", B: "two words" });
    expect(badLines).toEqual([]);
  });

  test("accepts `export`, quotes, and inline comments on unquoted values", () => {
    const { values } = parseDotenv(`export A="x # not a comment"\nB='single'\nC=value # comment\nD="line\\nbreak"\n`);
    expect(values).toEqual({ A: "x # not a comment", B: "single", C: "value", D: "line\nbreak" });
  });

  test("an empty value with a comment after it is empty, as in bash (the comment was the value: a 401 for HERMES_API_KEY)", () => {
    const { values } = parseDotenv(
      "HERMES_API_KEY=    # read from ~/.hermes/.env\nOAUTH_CLIENT_ID= # filled by mint-client\nE=\t# tab\nH=#kept\nP=a#b\n",
    );
    expect(values).toEqual({ HERMES_API_KEY: "", OAUTH_CLIENT_ID: "", E: "", H: "#kept", P: "a#b" });
  });

  test("double quotes end at the first unescaped quote and read each escape once", () => {
    const { values, badLines } = parseDotenv(
      [
        `M="my \\"special\\" model" # note`,
        `W="C:\\\\new"`,
        `N="a\\nb"`,
        `K="keep \\t as written"`,
        `O="open`,
        `D="C:\\data\\"`,
        `S='open`,
      ].join("\n"),
    );
    expect(values).toEqual({ M: 'my "special" model', W: "C:\\new", N: "a\nb", K: "keep \\t as written" });
    // A quote left open (the last one escaped) is reported, not read with its quote as part of the value.
    expect(badLines).toEqual([5, 6, 7]);
  });

  test("reports malformed lines by number instead of guessing", () => {
    const { values, badLines } = parseDotenv("GOOD=1\nnot a pair\n=novalue\n1BAD=2\r\nOK=3");
    expect(values).toEqual({ GOOD: "1", OK: "3" });
    expect(badLines).toEqual([2, 3, 4]);
  });

  test("names keys set on several lines with different values (the last wins), and keeps each value as written", () => {
    const { values, repeated, verbatim } = parseDotenv("A=1\nB=x\nA=2 # two\nB=x\nA='2'\n");
    expect(values).toEqual({ A: "2", B: "x" });
    expect(repeated).toEqual({ A: [1, 3, 5] });
    expect(verbatim).toEqual({ A: "'2'", B: "x" });
    expect(parseDotenv("A=1 # one\n").verbatim).toEqual({ A: "1 # one" });
  });

  test("keeps '=' inside values and handles CRLF and a BOM", () => {
    const { values } = parseDotenv("\uFEFFURL=http://x/?a=b\r\nK=v\r\n");
    expect(values).toEqual({ URL: "http://x/?a=b", K: "v" });
  });
});
