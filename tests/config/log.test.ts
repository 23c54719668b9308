import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";

describe("createLogger", () => {
  test("LOG_FORMAT=json writes one parseable object per line with level and fields", () => {
    const lines: string[] = [];
    const log = createLogger("INFO", "json", (l) => lines.push(l));
    log.info("job completed", { job: "j1", duration_ms: 12, session: undefined });
    const entry = JSON.parse(lines[0] as string);
    expect(entry).toMatchObject({ level: "info", msg: "job completed", job: "j1", duration_ms: 12 });
    expect(typeof entry.time).toBe("string");
  });

  test("drops lines below the level; WARNING keeps warnings and errors", () => {
    const lines: string[] = [];
    const log = createLogger("WARNING", "text", (l) => lines.push(l));
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    expect(lines.map((l) => l.split(/\s+/)[1])).toEqual(["WARNING", "ERROR"]);
  });

  test("text lines quote values with spaces so they stay one field", () => {
    const lines: string[] = [];
    createLogger("DEBUG", "text", (l) => lines.push(l)).info("http", { path: "/mcp", note: "two words", n: 3 });
    expect(lines[0]).toEndWith('http path=/mcp note="two words" n=3');
  });
});
