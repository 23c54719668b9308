// The validated configuration: every environment variable, its default, and the message a bad value gets.
import { z } from "zod";
import { isDangerousScheme, isSchemeName, parseRedirectUri } from "../web/redirect-uri.ts";

export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Python's and uvicorn's names for a level, read as the nearest of ours (there is nothing above ERROR or below DEBUG). */
const LEVEL_ALIASES: Readonly<Record<string, LogLevel>> = { WARN: "WARNING", CRITICAL: "ERROR", FATAL: "ERROR", TRACE: "DEBUG" };

export { isLoopbackHost } from "../web/loopback.ts";

/** How far messaging reaches: nothing, reading chats, or reading and sending (each level includes the one before). */
export const MESSAGING_LEVELS = ["off", "read", "send"] as const;
export type MessagingLevel = (typeof MESSAGING_LEVELS)[number];

/** Hermes's messaging tools that may be re-exposed (never permissions_*: they do not work outside Hermes's own process). */
export const MESSAGING_READ_TOOLS = [
  "conversations_list",
  "conversation_get",
  "messages_read",
  "attachments_fetch",
  "channels_list",
  "events_poll",
  "events_wait",
] as const;
export const MESSAGING_SEND_TOOLS = ["messages_send"] as const;
const MESSAGING_TOOL_NAMES: readonly string[] = [...MESSAGING_READ_TOOLS, ...MESSAGING_SEND_TOOLS];

/** The daemon's own secrets: never handed to the Hermes child, even when named in HERMES_MCP_HERMES_ENV. */
const DAEMON_SECRETS = ["HERMES_API_KEY", "OAUTH_CLIENT_SECRET"];

const level = (name: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const value = (raw ?? "").trim().toLowerCase();
      if (value === "") return "off" as MessagingLevel;
      if (!(MESSAGING_LEVELS as readonly string[]).includes(value)) {
        ctx.addIssue({ code: "custom", message: `${name} must be off, read or send (got "${raw}")` });
        return z.NEVER;
      }
      return value as MessagingLevel;
    });

const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

/** "[::1]" as written in a URL is the address ::1. */
/**
 * A URL as text to repeat in a refusal, without what may be a user name and password: everything before the last "@"
 * after its scheme (a password may hold "/", "@" or spaces, and a text that is no URL may have no "//"). Threat: a
 * secret repeated into the log (journald) by the message refusing it.
 */
export function withoutCredentials(text: string): string {
  const at = text.lastIndexOf("@");
  if (at < 0) return text;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(text)?.[0] ?? "";
  return `${scheme}…@${text.slice(at + 1)}`;
}

const unbracketed = (host: string): string => host.replace(/^\[(.*)\]$/, "$1");

/**
 * What is wrong with a BIND_HOST value, or null. People paste a URL or a host:port pair, which Bun would look up as a
 * host name and fail on with a resolver error; each gets the settings to write instead.
 */
function bindHostProblem(value: string): string | null {
  if (value.includes("://")) {
    const url = URL.parse(value);
    const port = url?.port ? ` and BIND_PORT=${url.port}` : "";
    return `an address, not a URL: write BIND_HOST=${unbracketed(url?.hostname ?? "") || "127.0.0.1"}${port}`;
  }
  const withPort = /^(\[[0-9a-f:.]+\]|[^:]+):(\d+)$/i.exec(value);
  if (withPort) return `an address without a port: set BIND_HOST=${unbracketed(withPort[1] as string)} and BIND_PORT=${withPort[2]}`;
  // A host name or IPv4 address, or an IPv6 address (bracketed or not, with a zone such as %eth0).
  const address = /^[a-z0-9.-]+$|^\[?[0-9a-f:.]*:[0-9a-f:.]*(%[a-z0-9]+)?\]?$/i;
  return address.test(value) ? null : `an IP address or a host name of this machine, such as 127.0.0.1 (got "${value}")`;
}

/** A whole-number variable: `fallback` when unset or blank, else an integer in [min, max] (the bench checks its BENCH_* settings with it too). */
export const intIn = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === "") return fallback;
      // Digits only: Number() also reads 0x10, 1e3, 0b11, +8 and 8.0, which nobody means for a port or a count.
      const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `${name} must be a whole number from ${min} to ${max} (got "${raw}")` });
        return z.NEVER;
      }
      return n;
    });

const optionalText = z
  .string()
  .optional()
  .transform((raw) => (raw === undefined || raw.trim() === "" ? undefined : raw.trim()));

/** Splits a command line on spaces, honouring single and double quotes (no shell runs it); null on an unclosed quote. */
export function splitCommand(line: string): string[] | null {
  const argv: string[] = [];
  let current: string | null = null;
  let quote: string | null = null;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current ??= "";
    } else if (/\s/.test(ch)) {
      if (current !== null) argv.push(current);
      current = null;
    } else current = (current ?? "") + ch;
  }
  if (quote) return null;
  if (current !== null) argv.push(current);
  return argv.length > 0 ? argv : null;
}

/** Raw environment → typed settings. Cross-field rules (issuer default, secret pairing) live in load.ts. */
export const EnvSchema = z.object({
  OAUTH_CLIENT_ID: optionalText,
  OAUTH_CLIENT_SECRET: optionalText.refine((v) => v === undefined || v.length >= 32, {
    message: "OAUTH_CLIENT_SECRET must be at least 32 characters — run `hermes-mcp mint-client` for a strong one",
  }),
  OAUTH_ISSUER_URL: optionalText,
  HERMES_API_KEY: optionalText,
  HERMES_API_URL: optionalText.transform((v, ctx) => {
    const url = v ?? "http://127.0.0.1:8642";
    const parsed = URL.parse(url);
    // Threat: a password in the URL would reach every log line that names the gateway, and this refusal too; the key
    // has its own variable. Checked before the scheme, so a wrong scheme does not echo it either.
    if (parsed && (parsed.username || parsed.password)) {
      const scheme = parsed.protocol === "https:" ? "https:" : "http:";
      ctx.addIssue({
        code: "custom",
        message: `HERMES_API_URL must not contain a user name or password (the gateway's key goes in HERMES_API_KEY): use ${scheme}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`,
      });
      return z.NEVER;
    }
    if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") {
      // Unparsed text may still hold "user:password@": that part is not repeated.
      ctx.addIssue({
        code: "custom",
        message: `HERMES_API_URL must be an http(s) URL such as http://127.0.0.1:8642 (got "${withoutCredentials(v ?? "")}")${
          // localhost:8642 parses as a URL whose scheme is "localhost:".
          /^[a-z0-9.-]+:\d+\/?$/i.test(v ?? "") ? `: use http://${v}` : ""
        }`,
      });
      return z.NEVER;
    }
    if (parsed.search || parsed.hash) {
      ctx.addIssue({
        code: "custom",
        message: `HERMES_API_URL must be the gateway's base URL, with no ?query or #fragment: use ${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`,
      });
      return z.NEVER;
    }
    // As URL reads it, which is what requests use: a backslash is a slash, the host in lower case, a default port dropped.
    return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, "");
  }),
  HERMES_MODEL: optionalText.transform((v) => v ?? "hermes-agent"),
  HERMES_REQUEST_TIMEOUT_SECONDS: intIn("HERMES_REQUEST_TIMEOUT_SECONDS", 1, 86_400, 300),
  MCP_ALLOWED_HOSTS: optionalText.transform((v) => list(v)),
  BIND_HOST: optionalText.transform((v, ctx) => {
    if (v === undefined) return "127.0.0.1";
    const problem = bindHostProblem(v);
    if (problem) {
      ctx.addIssue({ code: "custom", message: `BIND_HOST takes ${problem}` });
      return z.NEVER;
    }
    return unbracketed(v);
  }),
  BIND_PORT: intIn("BIND_PORT", 0, 65_535, 8765),
  OAUTH_ALLOWED_REDIRECT_SCHEMES: optionalText.transform((v, ctx) => {
    // "cursor:" and "cursor://" mean the scheme too (people copy it from a redirect URI); kept as written, they matched nothing.
    const schemes = v === undefined ? ["claude", "claudeai", "cursor"] : list(v).map((s) => s.toLowerCase().replace(/:(\/\/)?$/, ""));
    const malformed = schemes.filter((s) => !isSchemeName(s));
    if (malformed.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `OAUTH_ALLOWED_REDIRECT_SCHEMES lists scheme names such as claude or cursor; ${malformed.map((m) => `"${m}"`).join(", ")} is not one`,
      });
      return z.NEVER;
    }
    // Browser-executable or local-file schemes can never be redirect targets (open redirect / XSS): the redirect parser's
    // own list, so no scheme is accepted here that every request would then be refused; http(s) have their own variable.
    const banned = schemes.filter((s) => isDangerousScheme(s) || s === "http" || s === "https");
    if (banned.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `OAUTH_ALLOWED_REDIRECT_SCHEMES lists custom app schemes only; remove ${banned.join(", ")} (use OAUTH_ALLOWED_REDIRECT_URIS for exact https URLs)`,
      });
      return z.NEVER;
    }
    return schemes;
  }),
  OAUTH_ALLOWED_REDIRECT_URIS: optionalText.transform((v, ctx) => {
    const uris = list(v);
    // The same refusals an authorization request meets: an entry it would refuse could only ever match nothing.
    for (const uri of uris) {
      const parsed = parseRedirectUri(uri);
      if (!parsed.ok) ctx.addIssue({ code: "custom", message: `OAUTH_ALLOWED_REDIRECT_URIS: "${uri}": ${parsed.reason}` });
    }
    return uris;
  }),
  LOG_LEVEL: optionalText.transform((v, ctx) => {
    const given = (v ?? "INFO").toUpperCase();
    // The 0.4 ran on Python's logging (FastMCP, uvicorn): its other names for these levels keep an upgrade starting.
    const level = LEVEL_ALIASES[given] ?? given;
    if (!(LOG_LEVELS as readonly string[]).includes(level)) {
      ctx.addIssue({ code: "custom", message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${v}")` });
      return z.NEVER;
    }
    return level as LogLevel;
  }),
  LOG_FORMAT: optionalText.transform((v, ctx) => {
    const format = (v ?? "text").toLowerCase();
    if (format !== "text" && format !== "json") {
      ctx.addIssue({ code: "custom", message: `LOG_FORMAT must be "text" or "json" (got "${v}")` });
      return z.NEVER;
    }
    return format;
  }),
  HERMES_MCP_DB_PATH: optionalText,
  HERMES_MCP_MAX_CONCURRENT_JOBS: intIn("HERMES_MCP_MAX_CONCURRENT_JOBS", 1, 64, 4),
  HERMES_MCP_MAX_QUEUED_JOBS: intIn("HERMES_MCP_MAX_QUEUED_JOBS", 0, 10_000, 64),
  HERMES_MCP_MAX_STORED_JOBS: intIn("HERMES_MCP_MAX_STORED_JOBS", 10, 1_000_000, 1000),
  HERMES_MCP_JOB_TIMEOUT_SECONDS: intIn("HERMES_MCP_JOB_TIMEOUT_SECONDS", 1, 7 * 86_400, 3600),
  HERMES_MCP_JOB_RETENTION_HOURS: intIn("HERMES_MCP_JOB_RETENTION_HOURS", 1, 24 * 365, 24),
  HERMES_MCP_SYNC_BUDGET_SECONDS: intIn("HERMES_MCP_SYNC_BUDGET_SECONDS", 0, 86_400, 45),
  HERMES_MCP_HEARTBEAT_SECONDS: intIn("HERMES_MCP_HEARTBEAT_SECONDS", 1, 60, 15),
  HERMES_MCP_MAX_WAIT_SECONDS: intIn("HERMES_MCP_MAX_WAIT_SECONDS", 0, 300, 50),
  HERMES_MCP_GATEWAY_RETRIES: intIn("HERMES_MCP_GATEWAY_RETRIES", 0, 20, 3),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: intIn("OAUTH_ACCESS_TOKEN_TTL_SECONDS", 60, 30 * 86_400, 86_400),
  OAUTH_REFRESH_TOKEN_TTL_DAYS: intIn("OAUTH_REFRESH_TOKEN_TTL_DAYS", 1, 3650, 90),
  OAUTH_DYNAMIC_CLIENTS: optionalText.transform((v, ctx) => {
    if (v === undefined) return true;
    const b = v.toLowerCase();
    if (["1", "true", "yes", "on"].includes(b)) return true;
    if (["0", "false", "no", "off"].includes(b)) return false;
    ctx.addIssue({ code: "custom", message: `OAUTH_DYNAMIC_CLIENTS must be true or false (got "${v}")` });
    return z.NEVER;
  }),
  HERMES_MCP_MESSAGING: level("HERMES_MCP_MESSAGING"),
  OAUTH_STATIC_CLIENT_MESSAGING: level("OAUTH_STATIC_CLIENT_MESSAGING"),
  HERMES_MCP_HERMES_COMMAND: optionalText.transform((v, ctx) => {
    if (v === undefined) return null;
    const argv = splitCommand(v);
    if (argv === null) {
      ctx.addIssue({
        code: "custom",
        message: `HERMES_MCP_HERMES_COMMAND has an unclosed quote (got "${v}"); e.g. /opt/hermes/bin/hermes mcp serve`,
      });
      return z.NEVER;
    }
    return argv;
  }),
  HERMES_MCP_HERMES_ENV: optionalText.transform((v, ctx) => {
    const entries: { name: string; value: string | null }[] = [];
    for (const item of list(v)) {
      const eq = item.indexOf("=");
      const name = eq < 0 ? item : item.slice(0, eq).trim();
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        ctx.addIssue({
          code: "custom",
          message: `HERMES_MCP_HERMES_ENV takes comma-separated NAME=value entries (or a bare NAME to pass on its value); "${item}" is not one`,
        });
        return z.NEVER;
      }
      // Threat: the daemon's secrets reaching the child (Hermes's own stdio-child convention passes none).
      if (DAEMON_SECRETS.includes(name)) {
        ctx.addIssue({
          code: "custom",
          message: `HERMES_MCP_HERMES_ENV must not pass ${name} to the Hermes child: it is hermes-mcp's own secret`,
        });
        return z.NEVER;
      }
      entries.push({ name, value: eq < 0 ? null : item.slice(eq + 1) });
    }
    return entries;
  }),
  HERMES_MCP_MESSAGING_TIMEOUT_SECONDS: intIn("HERMES_MCP_MESSAGING_TIMEOUT_SECONDS", 5, 3600, 120),
  HERMES_MCP_MESSAGING_TOOLS: optionalText.transform((v, ctx) => {
    const include: string[] = [];
    const exclude: string[] = [];
    for (const item of list(v)) {
      const excluded = item.startsWith("-") || item.startsWith("!");
      const name = (excluded ? item.slice(1) : item).trim().replace(/^hermes_/, "");
      if (!MESSAGING_TOOL_NAMES.includes(name)) {
        ctx.addIssue({
          code: "custom",
          message: `HERMES_MCP_MESSAGING_TOOLS names "${item}", which is not a messaging tool; use ${MESSAGING_TOOL_NAMES.join(", ")} (prefix one with - to exclude it)`,
        });
        return z.NEVER;
      }
      (excluded ? exclude : include).push(name);
    }
    return { include, exclude };
  }),
  // Test-only: lets client metadata documents be served over http from loopback (never set it in production: SSRF guard).
  HERMES_MCP_TEST_ALLOW_LOOPBACK_CIMD: optionalText.transform((v) => v === "1"),
});

export type EnvSettings = z.output<typeof EnvSchema>;
