// How the CLI's list commands print: columns padded to their widest cell, and times in UTC to the second.
import { writeStdout } from "./output.ts";

/** A time as `2026-11-24 21:41:25Z`, or `absent` when there is none ("never" for a last use, "-" otherwise). */
export const utcTime = (ms: number | null, absent = "-"): string =>
  ms === null ? absent : `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)}Z`;

/** The header and rows as aligned columns, two spaces apart, each line without trailing spaces and ending in a newline. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((row) => (row[i] ?? "").length)));
  return table
    .map(
      (row) =>
        `${row
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join("  ")
          .trimEnd()}\n`,
    )
    .join("");
}

/** formatTable on stdout. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  writeStdout(formatTable(header, rows));
}
