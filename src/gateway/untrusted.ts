// The one gate for strings the gateway sends: codes pass a strict allow-list or become a fixed phrase, labels are one bounded visible line, ids are checked.
import { hasBreakingChar, toOneVisibleLine } from "../unsafe-text.ts";

/** finish_reason, error codes, tool names and statuses: short lower-case identifiers only (prompt injection / log injection). */
const CODE = /^[a-z0-9_.-]{1,64}$/;
/** Tool call ids, which are opaque and may use upper case ("call_AbC1"); never shown, only used as keys. */
const CALL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Model ids as routes name them ("hermes-agent", "anthropic/claude-sonnet-4.5", "qwen3:32b"). */
const MODEL_ID = /^[A-Za-z0-9_.:/@+-]{1,128}$/;
const MAX_SESSION_ID = 256;

/** What replaces a code that fails the allow-list. */
export const UNRECOGNISED_REASON = "unrecognised reason";
export const UNNAMED_TOOL = "tool";
export const UNKNOWN_STATUS = "unknown";

/** The value when it is a short lower-case identifier; otherwise null. */
export function gatewayCode(value: unknown): string | null {
  return typeof value === "string" && CODE.test(value) ? value : null;
}

/** The first candidate that passes the allow-list; the fixed phrase when some were sent but none passes; `absent` when none was sent. */
export function firstCode(candidates: readonly unknown[], absent: string): string {
  const sent = candidates.filter((value) => typeof value === "string" && value !== "");
  if (sent.length === 0) return absent;
  for (const value of sent) {
    const code = gatewayCode(value);
    if (code) return code;
  }
  return UNRECOGNISED_REASON;
}

/** Text the client is shown by design (tool labels, emoji): one line, no controls, bidi or invisible characters, at most `maxChars` code points. */
export function gatewayLabel(value: unknown, maxChars: number): string | undefined {
  if (typeof value !== "string") return undefined;
  const line = toOneVisibleLine(value);
  if (line === "") return undefined;
  const chars = Array.from(line);
  return chars.length > maxChars ? `${chars.slice(0, maxChars - 1).join("")}…` : line;
}

export function gatewayCallId(value: unknown): string | undefined {
  return typeof value === "string" && CALL_ID.test(value) ? value : undefined;
}

export function gatewayModelId(value: string): boolean {
  return MODEL_ID.test(value);
}

/**
 * The X-Hermes-Session-Id the gateway returned, if it is one we may store and send back: the gateway's own rule
 * (≤ 256 chars, no CR/LF/NUL, not path-like) plus no other control or bidi character. Otherwise null.
 */
export function gatewaySessionId(value: string | null | undefined): string | null {
  if (!value || value.length > MAX_SESSION_ID) return null;
  if (hasBreakingChar(value) || value.includes("/") || value.includes("\\") || value.includes("..")) return null;
  return value;
}
