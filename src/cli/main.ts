// The hermes-mcp command line: one subcommand per file, loaded only when used (fast start-up); index.ts runs it.
import { defineCommand, renderUsage, runMain } from "citty";
import { versionLine } from "../version.ts";
import { checkCommandLine, resolve } from "./argv.ts";
import { writeStderr, writeStdout } from "./output.ts";
import { forStream, styleFor } from "./style.ts";

const main = defineCommand({
  meta: { name: "hermes-mcp", version: versionLine(), description: "Remote MCP bridge to your Hermes Agent" },
  subCommands: {
    serve: () => import("./serve.ts").then((m) => m.default),
    doctor: () => import("./doctor.ts").then((m) => m.default),
    "mint-client": () => import("./mint-client.ts").then((m) => m.default),
    token: () => import("./token.ts").then((m) => m.default),
    "set-password": () => import("./set-password.ts").then((m) => m.default),
    clients: () => import("./clients.ts").then((m) => m.default),
    jobs: () => import("./jobs.ts").then((m) => m.default),
    backup: () => import("./backup.ts").then((m) => m.default),
    restore: () => import("./restore.ts").then((m) => m.default),
    service: () => import("./service.ts").then((m) => m.default),
    connect: () => import("./connect.ts").then((m) => m.default),
  },
});

/**
 * Runs `rawArgs` (the arguments after the program's name, `help X` already read as `X --help`) once `given` (the same
 * command line without that --help, so an unknown command is still named) passes the check; citty then runs it.
 */
export async function runCommandLine(rawArgs: string[], given: string[]): Promise<void> {
  const problem = await checkCommandLine(main, given);
  if (problem) {
    // One styled line on stderr, then (for an unknown command) the commands there are; never the whole usage screen.
    const style = styleFor(process.stderr);
    writeStderr(`${style.red("✖")} ${problem.message}\n`);
    if (problem.commands) {
      const width = Math.max(...problem.commands.map((c) => c.name.length));
      writeStderr(`\nCommands:\n${problem.commands.map((c) => `  ${style.bold(c.name.padEnd(width))}  ${c.description}`).join("\n")}\n`);
    }
    process.exit(1);
  }
  await runMain(main, {
    rawArgs,
    // citty colours its usage screens unconditionally: plain when piped or NO_COLOR.
    showUsage: async (command, parent) => {
      // citty names a command by its parent alone ("jobs show"): a second-level command gets the full line to type
      // (commands nest two deep at most), with the version the first level shows.
      const parentMeta = parent && parent !== main ? await resolve(parent.meta) : null;
      const named = parentMeta ? ({ meta: { name: `hermes-mcp ${parentMeta.name}`, version: versionLine() } } as typeof parent) : parent;
      writeStdout(`${forStream(await renderUsage(command, named), process.stdout)}\n\n`);
    },
  });
}
