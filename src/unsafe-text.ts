// Characters that split a line or reorder what a reader sees, and invisible ones that hide text: escaped in logs, stripped from gateway labels.

/** C0 controls, DEL, C1 controls (NEL U+0085 among them), and the line and paragraph separators U+2028/U+2029 (log injection). */
export const LINE_BREAKING = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029";
/** Bidirectional controls: U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069 ("Trojan Source" reordering). */
export const BIDI = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";
/** Zero-width space, word joiner and invisible operators, BOM, interlinear annotations, Unicode tag characters (text hidden from a reader but not from a model). */
const INVISIBLE = "\\u200b\\u2060-\\u2064\\ufeff\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}";

const BREAKING_ONE = new RegExp(`[${LINE_BREAKING}${BIDI}]`, "u");
const BREAKING_ALL = new RegExp(`[${LINE_BREAKING}${BIDI}]`, "gu");
const LINE_BREAKING_ALL = new RegExp(`[${LINE_BREAKING}]`, "gu");
const HIDDEN_ALL = new RegExp(`[${BIDI}${INVISIBLE}]`, "gu");
const UNSAFE_ALL = new RegExp(`[${LINE_BREAKING}${BIDI}${INVISIBLE}]`, "gu");

/** Does the text hold a character that could split a line or reorder it? */
export function hasBreakingChar(text: string): boolean {
  return BREAKING_ONE.test(text);
}

const escaped = (char: string): string => `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, "0")}`;

/** Each line-splitting or reordering character as a visible `\uXXXX` escape; everything else unchanged. */
export function escapeBreakingChars(text: string): string {
  return text.replace(BREAKING_ALL, escaped);
}

/** The same for a block of text shown as such (an answer on a terminal): its line breaks and tabs are kept. */
export function escapeBreakingCharsInBlock(text: string): string {
  return text.replace(BREAKING_ALL, (char) => (char === "\n" || char === "\t" ? char : escaped(char)));
}

/** The text without any line-splitting, reordering or invisible character (for names an attacker chose). */
export function stripUnsafeChars(text: string): string {
  return text.toWellFormed().replace(UNSAFE_ALL, "");
}

/**
 * Text safe to show as one line: well-formed UTF-16, controls and separators turned into spaces, bidi controls and
 * invisible characters removed, runs of spaces collapsed, trimmed.
 */
export function toOneVisibleLine(text: string): string {
  return text.toWellFormed().replace(LINE_BREAKING_ALL, " ").replace(HIDDEN_ALL, "").replace(/\s+/g, " ").trim();
}
