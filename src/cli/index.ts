#!/usr/bin/env -S bun --no-env-file
// The hermes-mcp entry: decides on the relaunch with next to nothing loaded, then runs the command line (main.ts).
// First: the time this process reached its entry (serve's "start-up steps" count the runtime's start up to here).
import "./entry-time.ts";
import { relaunchWithEnvironment } from "./relaunch.ts";
import { writeStderr } from "./output.ts";
import { styleFor } from "./style.ts";
import { sudoInvoker } from "./sudo-invoker.ts";

const argv = process.argv.slice(2);
// `hermes-mcp help [COMMAND…]`, as git and npm take it: that command's --help, once the command is known to exist.
const asksHelp = argv[0] === "help";
const rawArgs = asksHelp ? [...argv.slice(1), "--help"] : argv;
const command = rawArgs[0];
const onlyAsksHelp = asksHelp || rawArgs.some((arg) => ["--help", "-h", "--version", "-v"].includes(arg));
// Root through sudo: refused where it would leave the user files they cannot open, named where it uses root's own.
// Before the relaunch, which would carry variables from a file of the user's into root's process. (Loaded only under
// sudo or doas: the guard reads the configuration, and root by design starts as light as anyone.)
const rootNote =
  command !== undefined && !onlyAsksHelp && sudoInvoker(process.getuid?.()) !== null
    ? (await import("./root-guard.ts")).rootVerdict(command, 0)
    : null;
if (rootNote?.refusal) {
  writeStderr(`${styleFor(process.stderr).red("✖")} ${rootNote.refusal}\n`);
  process.exit(1);
}
// Before the command line's own modules (citty, the settings' schema) load, let alone serve's: the first process of a
// relaunch loads only this file and relaunch.ts's few (measured on a 2-core VM: its part of `serve`'s start 28–36 → 12–15 ms).
// doctor relaunches only for a runtime variable in an env file (NODE_EXTRA_CA_CERTS, HTTPS_PROXY…), so it sees what serve does.
if ((command === "serve" || command === "doctor") && !onlyAsksHelp) relaunchWithEnvironment(command);
// After the relaunch: said once, by the process that runs the command.
if (rootNote?.note) writeStderr(`${styleFor(process.stderr).yellow("⚠")} ${rootNote.note}\n`);
// A bare `serve` (how its services start it) goes straight to the daemon: the command line's parser (citty) loads
// node:util, 3.7–5.7 ms of every start on a 2-core VM, and has nothing to parse. Anything more (a flag, a typo, --help) goes
// through the command line, which names the problem.
if (command === "serve" && rawArgs.length === 1) await (await import("./serve.ts")).runServe();
else await (await import("./main.ts")).runCommandLine(rawArgs, asksHelp ? argv.slice(1) : rawArgs);
