// Terminal colour for human output: on for a terminal, off when piped; NO_COLOR and FORCE_COLOR respected (FORCE_COLOR wins).

export interface Style {
  enabled: boolean;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

/** Whether to colour what goes to `stream`. FORCE_COLOR=0/false forces it off; see https://no-color.org and https://force-color.org. */
export function colourWanted(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  const force = env.FORCE_COLOR;
  // Empty means unset (force-color.org); 0 and false mean off, as Node and chalk read them.
  if (force) return !["0", "false"].includes(force.toLowerCase());
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && env.TERM !== "dumb";
}

export function styleFor(stream: { isTTY?: boolean }, env?: Record<string, string | undefined>): Style {
  const enabled = colourWanted(stream, env);
  const paint = (open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { enabled, green: paint(32, 39), yellow: paint(33, 39), red: paint(31, 39), bold: paint(1, 22), dim: paint(2, 22) };
}

/** Text as `stream` should show it: citty's usage screens carry ANSI codes, removed here when colour is off. */
export function forStream(text: string, stream: { isTTY?: boolean }): string {
  return colourWanted(stream) ? text : Bun.stripANSI(text);
}
