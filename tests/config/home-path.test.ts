// ~/ in a path written in an env file: the home folder, as a shell would read it.
import { expect, test } from "bun:test";
import { expandHome } from "../../src/config/home-path.ts";

test("a leading ~ or ~/ is the home folder; anything else, or no home, is left as written", () => {
  expect(expandHome("~/data/hermes.db", "/home/ann")).toBe("/home/ann/data/hermes.db");
  expect(expandHome("~", "/home/ann")).toBe("/home/ann");
  expect(expandHome("~bob/x", "/home/ann")).toBe("~bob/x");
  expect(expandHome("/srv/~/x", "/home/ann")).toBe("/srv/~/x");
  expect(expandHome("~/x", undefined)).toBe("~/x");
});
