// How a name nobody has is answered: the one meant (a typo), else the names there are, sorted and at most ten.
import { editDistance } from "./config/names.ts";

const LISTED = 10;

/** " — did you mean t1?", " (known: a, b, …, and 6 more)" or " (there are none)": the text after `no token named "x"`. */
export function nameHint(given: string, known: readonly string[]): string {
  if (known.length === 0) return " (there are none)";
  const meant = known.find((name) => name.toLowerCase() === given.toLowerCase()) ?? nearest(given, known);
  if (meant) return ` — did you mean "${meant}"?`;
  const sorted = [...known].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  const more = sorted.length > LISTED ? `, and ${sorted.length - LISTED} more` : "";
  return ` (known: ${sorted.slice(0, LISTED).join(", ")}${more})`;
}

/** The one known name within two edits of `given`, when exactly one is (two candidates would be a guess). */
function nearest(given: string, known: readonly string[]): string | undefined {
  const close = known.filter((name) => editDistance(name, given) <= Math.min(2, Math.floor(given.length / 3)));
  return close.length === 1 ? close[0] : undefined;
}
