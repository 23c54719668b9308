// Names a mistaken setting: the real variable closest to an unknown one (HERMES_MCP_PORT, --port → BIND_PORT), and warnings for unknown variables.
import { RUNTIME_VARIABLE } from "./runtime-variables.ts";
import { EnvSchema } from "./schema.ts";

/** Every variable hermes-mcp reads, straight from the schema. */
export const SETTING_NAMES: readonly string[] = Object.keys(EnvSchema.shape);

/** Prefixes that mark a variable as probably meant for us (longest first, so HERMES_MCP_ wins over HERMES_). */
const PREFIXES = ["HERMES_MCP_", "OAUTH_", "BIND_", "MCP_", "HERMES_"] as const;
/** Prefixes nobody else is likely to use: an unknown name with one of these is always reported. */
const OURS = new Set(["HERMES_MCP_", "BIND_"]);

/**
 * Variables Hermes Agent itself (or its installer) reads; a user's shell may set them for Hermes, so they are never
 * reported. Besides these, in the real environment a plain HERMES_ or MCP_ name is reported only when it is a typo
 * of one of ours (edit distance ≤ 2): those prefixes are shared with Hermes and with MCP clients (MCP_TIMEOUT); and
 * an OAUTH_ name only when it suggests one of ours (other programs have OAUTH_ variables too).
 */
const FOREIGN = new Set([
  "HERMES_HOME",
  "HERMES_PROFILE",
  "HERMES_CONFIG",
  "HERMES_ENV",
  "HERMES_INSTALL_DIR",
  "HERMES_YOLO_MODE",
  "HERMES_QUIET",
  "HERMES_TUI",
]);

/** What people type for a setting, minus any prefix → the real name. */
const ALIASES: Record<string, string> = {
  PORT: "BIND_PORT",
  HOST: "BIND_HOST",
  LISTEN: "BIND_HOST",
  ADDRESS: "BIND_HOST",
  BIND: "BIND_HOST",
  ISSUER: "OAUTH_ISSUER_URL",
  ISSUER_URL: "OAUTH_ISSUER_URL",
  PUBLIC_URL: "OAUTH_ISSUER_URL",
  BASE_URL: "OAUTH_ISSUER_URL",
  DB: "HERMES_MCP_DB_PATH",
  DB_PATH: "HERMES_MCP_DB_PATH",
  DATABASE: "HERMES_MCP_DB_PATH",
  DATABASE_PATH: "HERMES_MCP_DB_PATH",
  KEY: "HERMES_API_KEY",
  API_KEY: "HERMES_API_KEY",
  API_SERVER_KEY: "HERMES_API_KEY",
  GATEWAY: "HERMES_API_URL",
  GATEWAY_URL: "HERMES_API_URL",
  API_URL: "HERMES_API_URL",
  MODEL: "HERMES_MODEL",
  CLIENT_ID: "OAUTH_CLIENT_ID",
  CLIENT_SECRET: "OAUTH_CLIENT_SECRET",
  SECRET: "OAUTH_CLIENT_SECRET",
  ALLOWED_HOSTS: "MCP_ALLOWED_HOSTS",
  HOSTS: "MCP_ALLOWED_HOSTS",
  VERBOSE: "LOG_LEVEL",
  DEBUG: "LOG_LEVEL",
  TIMEOUT: "HERMES_REQUEST_TIMEOUT_SECONDS",
};

const prefixOf = (name: string): string | undefined => PREFIXES.find((p) => name.startsWith(p));
const withoutPrefix = (name: string): string => name.slice(prefixOf(name)?.length ?? 0);

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** The nearest real name by edit distance, if near enough to be a typo. */
function nearest(name: string, limit: number): string | null {
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const known of SETTING_NAMES) {
    const distance = editDistance(name, known);
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best;
}

/**
 * The setting someone most likely meant by `name` (an unknown variable, or a flag upper-cased: --issuer → ISSUER):
 * an alias of what follows its prefix, a real name that ends the same way, else the closest name by edit distance.
 */
export function closestSetting(name: string): string | null {
  const upper = name.toUpperCase().replace(/-/g, "_");
  if (SETTING_NAMES.includes(upper)) return upper;
  const rest = withoutPrefix(upper);
  const alias = ALIASES[rest] ?? ALIASES[upper];
  if (alias) return alias;
  const sameEnding = SETTING_NAMES.find((known) => known === rest || withoutPrefix(known) === rest);
  if (sameEnding) return sameEnding;
  return nearest(upper, Math.max(2, Math.floor(upper.length / 5)));
}

export interface VariableSource {
  /** Where the values came from, as shown to the user: "the environment", or a file path. */
  label: string;
  values: Record<string, string | undefined>;
  /** The real environment is shared with other programs: only clear typos are reported from it. */
  shared: boolean;
  /**
   * hermes-mcp's own env file: nothing else reads it, so every name in it that is no setting (nor a runtime variable
   * it carries) is reported, whatever its prefix or case (`LOG_LEVLE`, `bind_port`, `PORT`).
   */
  own?: boolean;
}

/**
 * One warning per unknown variable that looks like ours, naming where it is set and the setting probably meant.
 * `passedOn`: the names HERMES_MCP_HERMES_ENV hands to the Hermes child by name — read from these very sources, so
 * they are used, whatever they are called.
 */
export function unknownVariableWarnings(sources: VariableSource[], passedOn: ReadonlySet<string> = new Set()): string[] {
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const source of sources) {
    for (const name of Object.keys(source.values)) {
      const prefix = prefixOf(name);
      if (SETTING_NAMES.includes(name) || FOREIGN.has(name) || passedOn.has(name) || seen.has(name)) continue;
      if (source.own ? RUNTIME_VARIABLE.test(name) : !prefix) continue;
      // Always reported: our own prefixes anywhere, OAUTH_ in our files, anything in our own file. Otherwise only with
      // a setting to suggest.
      const always = source.own === true || (prefix !== undefined && (OURS.has(prefix) || (!source.shared && prefix === "OAUTH_")));
      const typoOnly = source.shared && (prefix === "HERMES_" || prefix === "MCP_");
      const meant = typoOnly ? nearest(name, 2) : closestSetting(name);
      if (!always && meant === null) continue;
      seen.add(name);
      warnings.push(
        `${name} (in ${source.label}) is not a hermes-mcp setting and is ignored${meant ? ` — did you mean ${meant}?` : "; the settings are listed in the README's Configuration table"}`,
      );
    }
  }
  return warnings;
}
