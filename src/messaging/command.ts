// Finds the `hermes mcp serve` command: HERMES_MCP_HERMES_COMMAND as given, else `hermes` on PATH, else Hermes's own install.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { expandHome } from "../config/home-path.ts";

/** The command to start, or what is wrong (`problem`) and what to do about it (`fix`), told apart for doctor's two lines. */
export type HermesCommand = { ok: true; command: string; args: string[] } | { ok: false; problem: string; fix: string };

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The first executable `name` on `path` (a PATH value), or null. */
function onPath(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return null;
}

/** `configured` is HERMES_MCP_HERMES_COMMAND as argv (null: the default); `env` supplies PATH and HOME. */
export function resolveHermesCommand(configured: string[] | null, env: Record<string, string | undefined>): HermesCommand {
  const path = env.PATH ?? "";
  if (configured) {
    const [written, ...args] = configured as [string, ...string[]];
    // As README's fallback path is written: ~/.hermes/hermes-agent/venv/bin/hermes.
    const program = expandHome(written, env.HOME);
    const found = program.includes("/") ? (executable(program) ? program : null) : onPath(program, path);
    if (!found) {
      return {
        ok: false,
        problem: `HERMES_MCP_HERMES_COMMAND names ${program}, which is not an executable file${program.includes("/") ? "" : " on PATH"}`,
        fix: 'give the full path to Hermes\'s `hermes` followed by "mcp serve", e.g. HERMES_MCP_HERMES_COMMAND=~/.hermes/hermes-agent/venv/bin/hermes mcp serve',
      };
    }
    return { ok: true, command: found, args };
  }
  const installed = env.HOME ? join(env.HOME, ".hermes", "hermes-agent", "venv", "bin", "hermes") : null;
  const found = onPath("hermes", path) ?? (installed && executable(installed) ? installed : null);
  if (!found) {
    return {
      ok: false,
      problem: `the \`hermes\` command is neither on PATH nor at ${installed ?? "~/.hermes/hermes-agent/venv/bin/hermes"}`,
      fix: 'install Hermes Agent, or set HERMES_MCP_HERMES_COMMAND to its full path followed by "mcp serve"',
    };
  }
  return { ok: true, command: found, args: ["mcp", "serve"] };
}
