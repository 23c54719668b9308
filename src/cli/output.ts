// The CLI's writes to stdout and stderr: whole, in order, and harmless once a reader has stopped early (`| head`, `| grep -q`).
import { writeSync } from "node:fs";
import { shellCommand } from "../shell-word.ts";

/** File descriptors whose reader has gone: nothing more is written there. */
const gone = new Set<number>();

/**
 * Writes all of `text` to `fd`, synchronously (so a caller knows it arrived); null once written, else why not: "EPIPE"
 * when the reader has gone (Bun ignores SIGPIPE, so the write fails instead of killing the process), or the system's
 * message (a closed descriptor, a full disk under `> file`).
 */
function writeAll(fd: 1 | 2, text: string): string | null {
  if (gone.has(fd)) return "EPIPE";
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A non-blocking pipe (some parents hand one over) that is full: its reader is slow, not gone.
      if (code === "EAGAIN") {
        Bun.sleepSync(1);
        continue;
      }
      if (code === "EPIPE") gone.add(fd);
      return code === "EPIPE" ? "EPIPE" : (error as Error).message;
    }
  }
  return null;
}

/** Standard output could not be written for a reason other than a reader that has gone. */
export class StdoutError extends Error {}

/**
 * Data on stdout (tables, JSON, snippets, help). A reader that stopped early ends the output, not the command: the
 * rest is dropped quietly and the command finishes as it would have, with its own exit status (a `doctor | head -3`
 * still exits 1 when a check failed). Any other failure to write is an error.
 */
export function writeStdout(text: string): void {
  const failure = writeAll(1, text);
  if (failure !== null && failure !== "EPIPE") throw new StdoutError(`could not write to standard output: ${failure}`);
}

/**
 * Writes `text`, which holds the new token `name`, to stdout; null once written. Threat: a live credential that nobody
 * holds (`token create … | true`, a full disk under `> file`; a closed stdout is /dev/null to Bun, which cannot be told
 * from one asked for): when the text cannot be written, `revoke` takes the token back (which also frees its name for
 * the retry), and the message returned says so and what to run again: this very command line, every argument kept.
 */
export function deliverNewToken(text: string, name: string, revoke: () => void): string | null {
  const failure = writeAll(1, text);
  if (failure === null) return null;
  const notWritten = `the new token could not be written to standard output (${failure})`;
  try {
    revoke();
  } catch (error) {
    // The same full disk may refuse the revocation: the token then lives, and the owner must know to end it.
    return `${notWritten}, and revoking it failed too (${(error as Error).message}): nobody holds it, but it works until you run \`${shellCommand(["hermes-mcp", "token", "revoke", name])}\`.`;
  }
  return (
    `${notWritten}, so it was revoked at once and nobody holds it. ` +
    `Run \`${shellCommand(["hermes-mcp", ...process.argv.slice(2)])}\` again with its output going to the terminal, a file, or a program that reads all of it.`
  );
}

/** stderr for the CLI's messages (consola takes it as its stream): a reader that has gone is not a reason to crash. */
export const stderrStream = {
  write(text: string): boolean {
    writeAll(2, text);
    return true;
  },
  get columns(): number | undefined {
    return process.stderr.columns;
  },
};

/** Messages on stderr, as stderrStream writes them. */
export const writeStderr = (text: string): void => void writeAll(2, text);
