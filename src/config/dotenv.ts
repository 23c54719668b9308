// Parses env-file text (KEY=VALUE lines, optional `export`, quotes, comments) into a plain record.
export interface DotenvResult {
  values: Record<string, string>;
  /** 1-based line numbers that were neither blank, comments, nor KEY=VALUE. */
  badLines: number[];
  /** Keys assigned on more than one line with different values, and those lines (the last one wins). */
  repeated: Record<string, number[]>;
  /** Each key's last value as written after `=`, quotes and ` # …` included (systemd's EnvironmentFile= keeps such a comment). */
  verbatim: Record<string, string>;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseDotenv(text: string): DotenvResult {
  const values: Record<string, string> = {};
  const verbatim: Record<string, string> = {};
  const lineOf: Record<string, number[]> = {};
  const differs = new Set<string>();
  const badLines: number[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const body = line.startsWith("export ") ? line.slice(7).trimStart() : line;
    const eq = body.indexOf("=");
    const key = eq > 0 ? body.slice(0, eq).trim() : "";
    if (!KEY.test(key)) {
      badLines.push(index + 1);
      return;
    }
    const value = valueOf(body.slice(eq + 1));
    // A quote left open (`"C:\dir\"`, whose last quote is escaped): no value to guess at.
    if (value === null) {
      badLines.push(index + 1);
      return;
    }
    if (key in values && values[key] !== value) differs.add(key);
    values[key] = value;
    verbatim[key] = body.slice(eq + 1).trim();
    lineOf[key] = [...(lineOf[key] ?? []), index + 1];
  });
  const repeated = Object.fromEntries([...differs].map((key) => [key, lineOf[key] as number[]]));
  return { values, badLines, repeated, verbatim };
}

/**
 * The value as bash and python-dotenv read it: single quotes literal; double quotes ending at the first unescaped `"`,
 * with `\"`, `\\` and `\n` read as one character each (in one pass: `"C:\\new"` keeps its backslash); unquoted, cut at
 * a `#` that follows whitespace, so `KEY=   # note` is empty and `KEY=a#b` keeps its `#`. Null for a quote left open.
 */
function valueOf(written: string): string | null {
  const value = written.trim();
  if (value[0] === "'") {
    const end = value.indexOf("'", 1);
    return end > 0 ? value.slice(1, end) : null;
  }
  if (value[0] === '"') {
    const end = /^"((?:[^"\\]|\\.)*)"/.exec(value);
    if (!end) return null;
    return (end[1] as string).replace(/\\(.)/g, (whole, next: string) =>
      next === "n" ? "\n" : next === '"' || next === "\\" ? next : whole,
    );
  }
  // Unquoted: an inline comment starts at a "#" after whitespace, the whitespace after "=" too.
  const hash = written.search(/\s#/);
  return (hash >= 0 ? written.slice(0, hash) : written).trim();
}
