// Unit tests for the SSE frame parser: arbitrary chunk splits, line endings, comments, multi-line data, unterminated frames.
import { describe, expect, test } from "bun:test";
import { parseSse, type SseMessage, SseParser } from "../../src/gateway/sse.ts";

/** A stream shaped like the gateway's: role chunk, keep-alive, named tool event, multi-line data, [DONE]. */
const STREAM = [
  'data: {"choices":[{"delta":{"role":"assistant"}}]}',
  "",
  ": keepalive",
  "",
  "event: hermes.tool.progress",
  'data: {"tool":"web_search","emoji":"🔎","status":"running"}',
  "",
  "data: first line",
  "data: second line",
  "",
  "data:no-space",
  "data:  two spaces",
  "",
  "data: [DONE]",
  "",
  "",
].join("\n");

const EXPECTED: SseMessage[] = [
  { type: "event", data: '{"choices":[{"delta":{"role":"assistant"}}]}' },
  { type: "comment", comment: "keepalive" },
  { type: "event", event: "hermes.tool.progress", data: '{"tool":"web_search","emoji":"🔎","status":"running"}' },
  { type: "event", data: "first line\nsecond line" },
  { type: "event", data: "no-space\n two spaces" },
  { type: "event", data: "[DONE]" },
];

function feed(chunks: string[]): SseMessage[] {
  const parser = new SseParser();
  const out = chunks.flatMap((chunk) => parser.push(chunk));
  parser.end();
  return out;
}

describe("SseParser", () => {
  test("parses a whole stream in one chunk", () => {
    expect(parseSse(STREAM)).toEqual(EXPECTED);
  });

  test("gives the same frames for a split at every position (LF)", () => {
    for (let i = 0; i <= STREAM.length; i++) {
      expect(feed([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(EXPECTED);
    }
  });

  test("gives the same frames for a split at every position (CRLF), including between \\r and \\n", () => {
    const crlf = STREAM.replaceAll("\n", "\r\n");
    for (let i = 0; i <= crlf.length; i++) {
      expect(feed([crlf.slice(0, i), crlf.slice(i)])).toEqual(EXPECTED);
    }
  });

  test("accepts bare CR line endings, even split across chunks", () => {
    const cr = STREAM.replaceAll("\n", "\r");
    for (let i = 0; i <= cr.length; i++) {
      expect(feed([cr.slice(0, i), cr.slice(i)])).toEqual(EXPECTED);
    }
  });

  test("gives the same frames fed one character at a time, with empty chunks in between", () => {
    const crlf = STREAM.replaceAll("\n", "\r\n");
    expect(feed([...crlf].flatMap((ch) => [ch, ""]))).toEqual(EXPECTED);
  });

  test("yields each frame as soon as its blank line arrives", () => {
    const parser = new SseParser();
    expect(parser.push("data: a")).toEqual([]);
    expect(parser.push("\n")).toEqual([]);
    expect(parser.push("\n")).toEqual([{ type: "event", data: "a" }]);
    expect(parser.push(": ping\n")).toEqual([{ type: "comment", comment: "ping" }]);
  });

  test("reports comments without the colon and one leading space", () => {
    expect(parseSse(": keepalive\n:raw\n:  two\n\n")).toEqual([
      { type: "comment", comment: "keepalive" },
      { type: "comment", comment: "raw" },
      { type: "comment", comment: " two" },
    ]);
  });

  test("drops an unterminated trailing frame and says so", () => {
    const parser = new SseParser();
    expect(parser.push('data: {"choices":[]}\n\ndata: {"partial')).toEqual([{ type: "event", data: '{"choices":[]}' }]);
    expect(parser.end()).toBe(true);
    const clean = new SseParser();
    clean.push("data: x\n\n");
    expect(clean.end()).toBe(false);
  });

  test("a frame with data lines only is complete; a frame without data is not dispatched", () => {
    expect(parseSse("event: lonely\n\nid: 7\n\ndata: x\n\n")).toEqual([{ type: "event", data: "x", id: "7" }]);
  });

  test("an empty data line counts; the event name resets between frames", () => {
    expect(parseSse("event: a\ndata:\n\ndata: b\n\n")).toEqual([
      { type: "event", event: "a", data: "" },
      { type: "event", data: "b" },
    ]);
  });

  test("ignores retry and unknown fields, and a leading BOM", () => {
    expect(parseSse("\uFEFFretry: 1000\nfoo: bar\nnocolon\ndata: ok\n\n")).toEqual([{ type: "event", data: "ok" }]);
  });

  test("keeps colons inside values", () => {
    expect(parseSse('data: {"a":"b: c"}\n\n')).toEqual([{ type: "event", data: '{"a":"b: c"}' }]);
  });
});
