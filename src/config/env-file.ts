// Edits the user's env file in place: sets KEY=VALUE lines without touching the others, kept private (folder 0700, file 0600).
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseDotenv } from "./dotenv.ts";

const assignment = (key: string): RegExp => new RegExp(`^\\s*(?:export\\s+)?${key}\\s*=`);

/** The file's text, or "" when it does not exist yet. */
export function readEnvText(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** The values the text assigns (the same parser the daemon reads it with). */
export function envValues(text: string): Record<string, string> {
  return parseDotenv(text).values;
}

/** Replaces every line assigning one of `values`' keys (first one kept, repeats dropped), appends the missing ones; other lines stay byte for byte. */
export function setEnvLines(text: string, values: Record<string, string>): string {
  const lines = text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/);
  const written = new Set<string>();
  const out: string[] = [];
  for (const line of lines) {
    const key = Object.keys(values).find((k) => assignment(k).test(line));
    if (key === undefined) out.push(line);
    else if (!written.has(key)) {
      out.push(`${key}=${values[key]}`);
      written.add(key);
    }
  }
  for (const [key, value] of Object.entries(values)) if (!written.has(key)) out.push(`${key}=${value}`);
  return `${out.join("\n")}\n`;
}

/**
 * Writes a secret-bearing file: its folder created 0700 (and tightened to it), the file written to a 0600 temporary and
 * renamed over the old one, so no reader ever sees a half-written or world-readable secret (threat: local users).
 */
export function writePrivateFile(path: string, text: string): void {
  const target = existsSync(path) ? realpathSync(path) : path;
  const folder = dirname(target);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600, flag: "wx" });
  renameSync(temporary, target);
}
