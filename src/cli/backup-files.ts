// Backup and restore paths as the owner types them: `~/` expanded, a folder read as cp reads it, a blank refused.
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { expandHome } from "../config/home-path.ts";
import { fileStamp } from "../store/backup.ts";
import { CliExit } from "./common.ts";
import { shellCommand } from "../shell-word.ts";

/** `hermes-mcp-20261125T010007Z.db`: the name backup gives a copy written into a folder (sorts by time). */
const DATED = /^hermes-mcp-\d{8}T\d{6}Z\.db$/;

const isFolder = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

function named(arg: string, what: string): string {
  if (arg.trim() === "") throw new CliExit(`name the ${what}`);
  return resolve(expandHome(arg, process.env.HOME));
}

/** The file backup writes: the one named, or a new dated file in the folder named (a daily cron line needs no date). */
export function backupTarget(arg: string, now = new Date()): string {
  const path = named(arg, "file to write (or a folder to write a dated copy into)");
  if (isFolder(path)) return join(path, `hermes-mcp-${fileStamp(now)}.db`);
  // `nightly/` means a folder, as it does to cp: never a file named `nightly` that the next run would refuse to replace.
  if (/[\\/]$/.test(arg)) throw new CliExit(`the folder ${path} does not exist: create it first; nothing was written`);
  return path;
}

/** The backup restore reads: a folder is refused, naming the newest dated copy in it to type instead. */
export function backupToRestore(arg: string): string {
  const path = named(arg, "backup file to restore");
  if (!isFolder(path)) return path;
  let names: string[] = [];
  try {
    names = readdirSync(path);
  } catch {
    // A folder we may not read: it is still a folder, and that is what is refused.
  }
  const newest = names
    .filter((name) => DATED.test(name))
    .sort()
    .at(-1);
  const hint = newest ? `, e.g. ${shellCommand(["hermes-mcp", "restore", join(path, newest)])} (the newest there)` : "";
  throw new CliExit(`${path} is a folder: name the backup file in it${hint}; nothing was changed`);
}
