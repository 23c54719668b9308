// Checks a command line before citty runs it: an unknown command or flag is an error that names what was meant (settings are variables, not flags).
import type { ArgDef, ArgsDef, CommandDef, SubCommandsDef } from "citty";
import { closestSetting, editDistance } from "../config/names.ts";

export interface CommandLineProblem {
  /** One line: what is wrong and what to type instead. */
  message: string;
  /** For an unknown command: the commands there are, with what each does. */
  commands?: { name: string; description: string }[];
}

type AnyCommand = CommandDef<ArgsDef>;
const BUILTIN_FLAGS = new Set(["help", "h", "version", "v"]);

/** A citty Resolvable (a value, a promise, or a function giving either) as its value. */
export const resolve = async <T>(value: T | (() => T) | (() => Promise<T>) | Promise<T>): Promise<T> =>
  typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();

/** Null when citty may run `rawArgs`; otherwise the one problem to report. `--help` anywhere is always fine. */
export async function checkCommandLine(main: AnyCommand, rawArgs: string[]): Promise<CommandLineProblem | null> {
  if (rawArgs.some((arg) => arg === "--help" || arg === "-h")) return null;
  let command = main;
  let path = [(await resolve(main.meta ?? {}))?.name ?? "hermes-mcp"];
  let positionalsLeft: number | null = null;
  const given = new Map<string, string>();
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i] as string;
    if (arg === "--") break;
    const args = (await resolve(command.args ?? {})) as ArgsDef;
    if (arg.startsWith("-")) {
      const name = arg.replace(/^-{1,2}/, "").split("=")[0] as string;
      const known = Object.entries(args).find(
        ([key, def]) => def.type !== "positional" && (kebab(key) === kebab(name) || aliasesOf(def).includes(name)),
      );
      if (known) {
        if (known[1].type !== "string" && known[1].type !== "enum") continue;
        const flag = `--${kebab(known[0])}`;
        // The parser takes the next word as the value whatever it is: `--messaging --name z` would silently make
        // "--name" the value and "z" a stray word, so a missing value is named here instead.
        const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : rawArgs[++i];
        if (value === undefined || (!arg.includes("=") && /^-[^\d]/.test(value)))
          return {
            message: `${flag} needs a value${value === undefined ? "" : ` before ${value}`} — write ${flag} VALUE or ${flag}=VALUE`,
          };
        // The last of two values would win silently (`--name a --name b` makes "b"), so two different ones are refused.
        const earlier = given.get(flag);
        if (earlier !== undefined && earlier !== value)
          return { message: `${flag} is given twice ("${earlier}", then "${value}") — give it once` };
        given.set(flag, value);
        continue;
      }
      if (BUILTIN_FLAGS.has(name) && command === main) continue;
      const next = rawArgs[i + 1];
      const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : next !== undefined && !next.startsWith("-") ? next : "…";
      return { message: unknownFlag(arg.split("=")[0] as string, name, value, path.join(" "), args, command === main) };
    }
    const subCommands = (await resolve(command.subCommands ?? {})) as SubCommandsDef;
    if (Object.keys(subCommands).length > 0 && positionalsLeft === null) {
      const next = subCommands[arg];
      if (!next) return unknownCommand(arg, path.join(" "), subCommands);
      command = (await resolve(next)) as AnyCommand;
      path = [...path, arg];
      continue;
    }
    positionalsLeft ??= Object.values(args).filter((def) => def.type === "positional").length;
    if (positionalsLeft === 0) return { message: `"${path.join(" ")}" does not take "${arg}" — see \`${path.join(" ")} --help\`` };
    positionalsLeft--;
  }
  return null;
}

function unknownFlag(flag: string, name: string, value: string, command: string, args: ArgsDef, isMain: boolean): string {
  const options = Object.entries(args)
    .filter(([, def]) => def.type !== "positional")
    .map(([key]) => `--${kebab(key)}`);
  // --help is everywhere, --version only at the top: a typo of either is named too.
  const builtins = isMain ? ["--help", "--version"] : ["--help"];
  const nearOption = [...options, ...builtins].find((option) => editDistance(option, `--${name}`) <= 2);
  if (nearOption) return `"${command}" has no option ${flag} — did you mean ${nearOption}?`;
  const setting = closestSetting(name);
  if (setting)
    return `"${command}" has no option ${flag}: settings are environment variables — set ${setting}=${value} in ~/.config/hermes-mcp/env (or the environment)`;
  return `"${command}" has no option ${flag} — ${options.length > 0 ? `its options: ${options.join(", ")}` : "it takes no options"} (see \`${command} --help\`)`;
}

const aliasesOf = (def: ArgDef): string[] => ("alias" in def && def.alias !== undefined ? [def.alias].flat() : []);

async function unknownCommand(arg: string, command: string, subCommands: SubCommandsDef): Promise<CommandLineProblem> {
  const commands: { name: string; description: string }[] = [];
  for (const [name, sub] of Object.entries(subCommands)) {
    const meta = await resolve(((await resolve(sub)) as AnyCommand).meta ?? {});
    if (!meta?.hidden) commands.push({ name, description: meta?.description ?? "" });
  }
  const near = commands.map((c) => c.name).find((name) => editDistance(name, arg) <= 2 || name.startsWith(arg));
  return { message: `unknown command "${arg}" for ${command}${near ? ` — did you mean "${near}"?` : ""}`, commands };
}
