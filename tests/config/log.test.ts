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

/** Every character that could split a log line or reorder it on screen. */
const BREAKING = [
  "\n",
  "\r",
  "\u0000",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u009b",
  "\u2028",
  "\u2029",
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
  "\u200e",
  "\u200f",
  "\u061c",
];
const RAW_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

describe("log injection", () => {
  const hostile = `stop${BREAKING.join("x")}evil`;

  test.each(["text", "json"] as const)("%s: messages, field values and field names never carry a breaking character raw", (format) => {
    const lines: string[] = [];
    const log = createLogger("DEBUG", format, (l) => lines.push(l));
    log.info(`gateway said ${hostile}`, { reason: hostile, [`key${"\u202e"}\n`]: "v", plain: "no-space\u202evalue", n: 1 });
    for (const char of BREAKING) log.warn("one", { value: `a${char}b` });
    expect(lines.length).toBe(1 + BREAKING.length);
    for (const line of lines) expect(RAW_BREAKING.test(line)).toBe(false);
    // Escaped, not dropped: the reader still sees what was there.
    expect(lines[0]).toContain("\\u202e");
    expect(lines[0]).toContain("\\u2028");
    expect(lines[0]).toContain("\\u0085");
  });

  test("json: the escaped line still parses back to the exact values", () => {
    const lines: string[] = [];
    createLogger("INFO", "json", (l) => lines.push(l)).info(`m${hostile}`, { reason: hostile });
    const entry = JSON.parse(lines[0] as string);
    expect(entry.msg).toBe(`m${hostile}`);
    expect(entry.reason).toBe(hostile);
  });

  test("text: a value with a backslash or a breaking character is quoted, so it cannot pose as an escape or a second field", () => {
    const lines: string[] = [];
    const log = createLogger("INFO", "text", (l) => lines.push(l));
    log.info("http", { a: "x\u202ey", b: "c:\\u202e", c: "plain" });
    expect(lines[0]).toEndWith('http a="x\\u202ey" b="c:\\\\u202e" c=plain');
  });
});

/**
 * Runs `body` in a child with the default logger as `log`, then keeps the child alive: returns its stderr once it holds
 * `last` (or after 10 s), how long that took, and when (ms after the start) each text first appeared in it.
 */
async function childStderr(body: string, last: string): Promise<{ text: string; ms: number; seenAt: (text: string) => number }> {
  const script = `
    import { createLogger } from ${JSON.stringify(`${import.meta.dir}/../../src/log.ts`)};
    const log = createLogger("INFO", "text");
    ${body}
    await Bun.sleep(30_000);`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "ignore", stderr: "pipe" });
  const reader = child.stderr.getReader();
  let text = "";
  const reads: { at: number; length: number }[] = [];
  const started = performance.now();
  try {
    while (!text.includes(last) && performance.now() - started < 10_000) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      reads.push({ at: performance.now() - started, length: text.length });
    }
  } finally {
    child.kill("SIGKILL");
    await child.exited;
  }
  const seenAt = (wanted: string): number => {
    const index = text.indexOf(wanted);
    if (index === -1) return Number.POSITIVE_INFINITY;
    return reads.find((read) => read.length >= index + wanted.length)?.at ?? Number.POSITIVE_INFINITY;
  };
  return { text, ms: performance.now() - started, seenAt };
}

describe("the buffered stderr writer", () => {
  test("INFO lines reach stderr while the process runs, a batch after a quiet spell too (the flush timer arms again)", async () => {
    // A child that logs, goes quiet, logs again, then stays alive: each line must arrive while it still runs.
    const { text, ms } = await childStderr(
      `log.info("first batch");
      await Bun.sleep(300);
      log.info("second batch");`,
      "second batch",
    );
    expect(text).toContain("first batch");
    expect(text).toContain("second batch");
    expect(ms).toBeLessThan(10_000);
  });

  test("lines keep their order and their content as logged: a warning goes out at once after the INFO lines before it", async () => {
    // The child never exits: what arrives came from the warning's flush, not the timer's or the exit's.
    const { text } = await childStderr(
      `const fields = { step: "one" };
      log.info("first", fields);
      fields.step = "changed after logging";
      log.debug("not at INFO");
      log.info("second", { n: 2 });
      log.warn("third");`,
      "third",
    );
    const lines = text.trimEnd().split("\n");
    expect(lines.map((line) => line.split(/\s+/).slice(1, 3).join(" "))).toEqual(["INFO first", "INFO second", "WARNING third"]);
    expect(lines[0]).toEndWith("first step=one");
    expect(lines[1]).toEndWith("second n=2");
  });

  test("about 64 KiB of waiting lines are written at once, without waiting for the timer", async () => {
    // The child's event loop is blocked for 1.5 s after the big line: only the size rule can write it before the warning.
    const { text, seenAt } = await childStderr(
      `log.info("small");
      log.info("big", { text: "x".repeat(70_000) });
      const until = Date.now() + 1500;
      while (Date.now() < until) {}
      log.warn("after the wait");`,
      "after the wait",
    );
    expect(text).toContain("INFO    small");
    expect(seenAt(`${"x".repeat(70_000)}\n`)).toBeLessThan(seenAt("after the wait") - 1000);
  });

  test("a field that cannot be written leaves a line that says so, and the process goes on logging", async () => {
    const { text } = await childStderr(
      `log.info("odd", { value: { toString() { throw new Error("boom"); } } });
      await Bun.sleep(100);
      log.warn("still here");`,
      "still here",
    );
    expect(text).toContain('odd log_error="this line\'s fields could not be written: boom"');
    expect(text).toContain("WARNING still here");
  });
});
