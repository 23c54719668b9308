// The one logger shape every layer takes: levelled, structured fields, never secrets (callers pass ids and sizes only).
import { escapeBreakingChars, hasBreakingChar } from "./unsafe-text.ts";

export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** A duration as log lines give it: milliseconds to the tenth. */
export const logMs = (ms: number): number => Math.round(ms * 10) / 10;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A logger that drops everything: the default for library code and unit tests. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

const RANK = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40 } as const;
export type LogLevelName = keyof typeof RANK;

/** One event as logged: made into a line only when it is written. */
interface LogRecord {
  ms: number;
  level: LogLevelName;
  message: string;
  fields: LogFields | undefined;
}

/**
 * The daemon's logger: one line per event on stderr, human text or JSON (LOG_FORMAT=json). `write`, when given, gets
 * each line at once (tests); by default lines are written in batches, and an INFO or DEBUG line is formatted only then,
 * off the request it describes (measured on a sync hermes_ask, whose way out logs three INFO lines: ≈ 0.02 ms less
 * added latency, as much as with INFO lines off).
 */
export function createLogger(level: LogLevelName, format: "text" | "json", write?: (line: string, urgent: boolean) => void): Logger {
  const threshold = RANK[level];
  const toLine = format === "json" ? jsonLine : textLine;
  const sink = write ? (record: LogRecord, urgent: boolean) => write(toLine(record), urgent) : bufferedStderr(toLine);
  const emit = (name: LogLevelName, message: string, fields?: LogFields): void => {
    if (RANK[name] < threshold) return;
    // Warnings and errors go out at once (a crash right after must not swallow them); the rest within 50 ms. The fields
    // are copied: a caller may reuse its object before the line is written.
    sink({ ms: Date.now(), level: name, message, fields: fields && { ...fields } }, RANK[name] >= RANK.WARNING);
  };
  return {
    debug: (m, f) => emit("DEBUG", m, f),
    info: (m, f) => emit("INFO", m, f),
    warn: (m, f) => emit("WARNING", m, f),
    error: (m, f) => emit("ERROR", m, f),
  };
}

// Log injection: no message or field may split the line or reorder it on screen (controls, U+2028/9, bidi) — escaped in both formats.
function jsonLine({ ms, level, message, fields }: LogRecord): string {
  return escapeBreakingChars(JSON.stringify({ time: isoOf(ms), level: level.toLowerCase(), msg: message, ...fields }));
}

/** Built by concatenation, escaping only what needs it. */
function textLine({ ms, level, message, fields }: LogRecord): string {
  let line = `${isoOf(ms)} ${LEVEL_COLUMN[level]} ${safe(message)}`;
  if (fields) {
    for (const key in fields) {
      const value = fields[key];
      if (value !== undefined) line += ` ${safe(key)}=${textValue(value)}`;
    }
  }
  return line;
}

const LEVEL_COLUMN: Record<LogLevelName, string> = { DEBUG: "DEBUG  ", INFO: "INFO   ", WARNING: "WARNING", ERROR: "ERROR  " };

const safe = (text: string): string => (hasBreakingChar(text) ? escapeBreakingChars(text) : text);

/** A time as ISO 8601, formatted once per millisecond (many lines share one). */
let lastMs = 0;
let lastIso = "";
function isoOf(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

const NEEDS_QUOTES = /[\s"=\\]/;

/** A field value in the text format: quoted when it has spaces, quotes, '=', backslashes or breaking characters, so it stays one field. */
function textValue(value: string | number | boolean | null | undefined): string {
  if (typeof value !== "string") return String(value);
  return NEEDS_QUOTES.test(value) || hasBreakingChar(value) ? escapeBreakingChars(JSON.stringify(value)) : value;
}

/**
 * Lines to stderr, gathered in memory and handed to the stream 50 ms after the first one waiting, at about 64 KiB, at
 * exit, and at once for a warning or error (after the lines before it): Bun's stream writer makes one write(2) per call,
 * and a system call per request cost a fifth of the hot path's throughput. At most 50 ms of INFO lines can be lost to
 * a kill -9. The timer runs only while lines wait: an idle daemon is not woken 20 times a second to find nothing to write.
 */
function bufferedStderr(toLine: (record: LogRecord) => string): (record: LogRecord, urgent: boolean) => void {
  const sink = Bun.stderr.writer();
  // Formatted in a timer now, not in its caller: a field that cannot be written (a value whose toString throws) must
  // not take the daemon down with it; its line says so instead.
  const lineOf = (record: LogRecord): string => {
    try {
      return toLine(record);
    } catch (error) {
      return toLine({ ...record, fields: { log_error: `this line's fields could not be written: ${(error as Error).message}` } });
    }
  };
  let pending: LogRecord[] = [];
  // What the waiting lines will weigh, roughly: their text, plus a line's usual overhead.
  let weight = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0) return;
    const records = pending;
    pending = [];
    weight = 0;
    let text = "";
    for (const record of records) text += `${lineOf(record)}\n`;
    sink.write(text);
    sink.flush();
  };
  process.on("exit", flush);
  return (record, urgent) => {
    pending.push(record);
    weight += 64 + record.message.length;
    for (const key in record.fields) {
      const value = record.fields[key];
      if (typeof value === "string") weight += value.length;
    }
    if (urgent || weight >= 65_536) flush();
    else if (!timer) {
      timer = setTimeout(flush, 50);
      timer.unref?.();
    }
  };
}
