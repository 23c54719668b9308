#!/usr/bin/env -S bun --no-env-file
// The hermes-mcp command line: one subcommand per file, loaded only when used (fast start-up).
import { defineCommand, renderUsage, runMain } from "citty";
import { versionLine } from "../version.ts";
import { checkCommandLine, resolve } from "./argv.ts";
import { relaunchWithEnvironment } from "./relaunch.ts";
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

const argv = process.argv.slice(2);
// `hermes-mcp help [COMMAND…]`, as git and npm take it: that command's --help, once the command is known to exist.
const asksHelp = argv[0] === "help";
const rawArgs = asksHelp ? [...argv.slice(1), "--help"] : argv;
// Before serve's modules load: the relaunch then costs one runtime start (≈ 8 ms), not a second daemon's worth. doctor
// relaunches only for a runtime variable in an env file (NODE_EXTRA_CA_CERTS, HTTPS_PROXY…), so it sees what serve does.
const command = rawArgs[0];
const onlyAsksHelp = asksHelp || rawArgs.some((arg) => ["--help", "-h", "--version", "-v"].includes(arg));
// Root through sudo: refused where it would leave the user files they cannot open, named where it uses root's own.
// Before the relaunch, which would carry variables from a file of the user's into root's process.
const rootNote =
  command !== undefined && !onlyAsksHelp && process.getuid?.() === 0 ? (await import("./root-guard.ts")).rootVerdict(command, 0) : null;
if (rootNote?.refusal) {
  writeStderr(`${styleFor(process.stderr).red("✖")} ${rootNote.refusal}\n`);
  process.exit(1);
}
if ((command === "serve" || command === "doctor") && !onlyAsksHelp) relaunchWithEnvironment(command);
// After the relaunch: said once, by the process that runs the command.
if (rootNote?.note) writeStderr(`${styleFor(process.stderr).yellow("⚠")} ${rootNote.note}\n`);
const problem = await checkCommandLine(main, asksHelp ? argv.slice(1) : rawArgs);
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
