// The one logger shape every layer takes: levelled, structured fields, never secrets (callers pass ids and sizes only).
import { escapeBreakingChars, hasBreakingChar } from "./unsafe-text.ts";

export type LogFields = Record<string, string | number | boolean | null | undefined>;

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

/** The daemon's logger: one line per event on stderr, human text or JSON (LOG_FORMAT=json). */
export function createLogger(
  level: LogLevelName,
  format: "text" | "json",
  write: (line: string, urgent: boolean) => void = bufferedStderr(),
): Logger {
  const threshold = RANK[level];
  const emit = (name: LogLevelName, message: string, fields?: LogFields): void => {
    if (RANK[name] < threshold) return;
    const time = isoNow();
    // Warnings and errors go out at once (a crash right after must not swallow them); the rest within 50 ms.
    const urgent = RANK[name] >= RANK.WARNING;
    // Log injection: no message or field may split the line or reorder it on screen (controls, U+2028/9, bidi) — escaped in both formats.
    if (format === "json") {
      write(escapeBreakingChars(JSON.stringify({ time, level: name.toLowerCase(), msg: message, ...fields })), urgent);
      return;
    }
    // One line per request on the hot path: built by concatenation, escaping only what needs it.
    let line = `${time} ${LEVEL_COLUMN[name]} ${safe(message)}`;
    if (fields) {
      for (const key in fields) {
        const value = fields[key];
        if (value !== undefined) line += ` ${safe(key)}=${textValue(value)}`;
      }
    }
    write(line, urgent);
  };
  return {
    debug: (m, f) => emit("DEBUG", m, f),
    info: (m, f) => emit("INFO", m, f),
    warn: (m, f) => emit("WARNING", m, f),
    error: (m, f) => emit("ERROR", m, f),
  };
}

const LEVEL_COLUMN: Record<LogLevelName, string> = { DEBUG: "DEBUG  ", INFO: "INFO   ", WARNING: "WARNING", ERROR: "ERROR  " };

const safe = (text: string): string => (hasBreakingChar(text) ? escapeBreakingChars(text) : text);

/** The current time as ISO 8601, formatted once per millisecond (many lines share one). */
let lastMs = 0;
let lastIso = "";
function isoNow(): string {
  const ms = Date.now();
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
 * Lines to stderr, gathered in memory and handed to the stream 50 ms after the first one waiting, at 64 KiB, at exit,
 * and at once for a warning or error: Bun's stream writer makes one write(2) per call, and a system call per request
 * cost a fifth of the hot path's throughput. At most 50 ms of INFO lines can be lost to a kill -9. The timer runs only
 * while lines wait: an idle daemon is not woken 20 times a second to find nothing to write.
 */
function bufferedStderr(): (line: string, urgent: boolean) => void {
  const sink = Bun.stderr.writer();
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending === "") return;
    sink.write(pending);
    pending = "";
    sink.flush();
  };
  process.on("exit", flush);
  return (line, urgent) => {
    pending += `${line}\n`;
    if (urgent || pending.length >= 65_536) flush();
    else if (!timer) {
      timer = setTimeout(flush, 50);
      timer.unref?.();
    }
  };
}
