// Characters that split a line or reorder what a reader sees, and invisible ones that hide text: escaped in logs, stripped from gateway labels.

/**
 * C0 controls, DEL, C1 controls (NEL U+0085 among them), the line and paragraph separators U+2028/U+2029, and the
 * bidirectional controls U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069 (log injection, "Trojan Source" reordering).
 */
const BREAKING = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";
/** Zero-width space, word joiner and invisible operators, BOM, interlinear annotations, and Unicode tag characters (hidden text for a model). */
const INVISIBLE = "\\u200b\\u2060-\\u2064\\ufeff\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}";

const BREAKING_CHAR = new RegExp(`[${BREAKING}]`, "gu");
const CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu;
const HIDDEN_CHAR = new RegExp(`[\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069${INVISIBLE}]`, "gu");

/** Does the text hold a character that could split a line or reorder it? */
export function hasBreakingChar(text: string): boolean {
  BREAKING_CHAR.lastIndex = 0;
  return BREAKING_CHAR.test(text);
}

/** Each line-splitting or reordering character as a visible `\uXXXX` escape; everything else unchanged. */
export function escapeBreakingChars(text: string): string {
  return text.replace(BREAKING_CHAR, (char) => `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, "0")}`);
}

/**
 * Text safe to show as one line: well-formed UTF-16, controls and separators turned into spaces, bidi controls and
 * invisible characters removed, runs of spaces collapsed, trimmed.
 */
export function toOneVisibleLine(text: string): string {
  return text.toWellFormed().replace(CONTROL_CHAR, " ").replace(HIDDEN_CHAR, "").replace(/\s+/g, " ").trim();
}
