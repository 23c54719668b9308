// Names a setting that a stronger source overrides with a different value, and one a file sets twice: "I changed the file and nothing happened".
import { SETTING_NAMES } from "./names.ts";

export interface SettingSource {
  /** How the message names it: "the environment" or the file's path. */
  label: string;
  values: Record<string, string | undefined>;
  /** Keys the file assigns on several lines with different values, and those lines. */
  repeated?: Record<string, number[]>;
  /** Each key's value as written after `=` (files only). */
  verbatim?: Record<string, string>;
}

export interface OverrideWarning {
  setting: string;
  message: string;
}

/** One warning per setting whose strongest source differs from a weaker one, and per setting a file repeats. Values are never named: they may be secrets. */
export function overrideWarnings(strongestFirst: SettingSource[]): OverrideWarning[] {
  const warnings: OverrideWarning[] = [];
  for (const source of strongestFirst)
    for (const [name, lines] of Object.entries(source.repeated ?? {}))
      if (SETTING_NAMES.includes(name))
        warnings.push({
          setting: name,
          message: `${source.label} sets ${name} on lines ${lines.join(", ")} with different values: line ${lines.at(-1)}'s is used`,
        });
  for (const name of SETTING_NAMES) {
    const setBy = strongestFirst.filter((source) => source.values[name] !== undefined);
    const [winner, ...weaker] = setBy;
    const overridden = weaker.find((source) => source.values[name] !== winner?.values[name]);
    if (!winner || !overridden) continue;
    // An old unit's EnvironmentFile= (the Python hermes-mcp's habit) reads `X=1 # note` as "1 # note" and puts that in the environment.
    const systemdRead = winner.label === "the environment" && overridden.verbatim?.[name] === winner.values[name];
    // An empty value counts as unset when read: what applies is what applies with no value at all (the default; for
    // HERMES_API_KEY, API_SERVER_KEY from ~/.hermes/.env), not the file's value nor "the environment's".
    if (winner.values[name]?.trim() === "") {
      warnings.push({
        setting: name,
        message: `${name} is set but empty in ${winner.label}, which comes before ${overridden.label}: it counts as unset, so the value in ${overridden.label} is not used — ${
          winner.label === "the environment" ? `unset ${name}` : `remove that line`
        } to use it`,
      });
      continue;
    }
    warnings.push({
      setting: name,
      message: `${name} is set in ${winner.label} and, differently, in ${overridden.label}: ${winner.label === "the environment" ? "the environment's" : "that file's"} value is used${
        systemdRead
          ? ` — a systemd unit's EnvironmentFile= read the file's "# …" comment as part of the value: run \`hermes-mcp service install\` again (its unit lets hermes-mcp read the file itself)`
          : ""
      }`,
    });
  }
  return warnings;
}
