// Reads lines typed on the terminal without echoing them: one raw-mode reader for a whole command, so a second prompt still has a live stdin.
import { CliExit } from "./common.ts";

export interface HiddenInput {
  /** Shows `prompt` on stderr and resolves with the next line typed (never echoed). Ctrl-C or Ctrl-D reject with "cancelled". */
  read(prompt: string): Promise<string>;
  /** Restores the terminal (echo and line mode back on) and lets the process exit. Always call it. */
  close(): void;
}

const ENTER = new Set(["\r", "\n"]);
const CTRL_C = "\u0003";
const CTRL_D = "\u0004";
const CTRL_U = "\u0015";
const ESC = "\u001b";

export function openHiddenInput(stdin: NodeJS.ReadStream = process.stdin): HiddenInput {
  const cancelled = (): CliExit => new CliExit("cancelled; nothing was changed", 130);
  const lines: string[] = [];
  let current = "";
  let escape = false;
  let ended = false;
  let waiter: { resolve(line: string): void; reject(error: Error): void } | null = null;

  const settle = (): void => {
    if (!waiter) return;
    const line = lines.shift();
    if (line !== undefined) {
      const w = waiter;
      waiter = null;
      process.stderr.write("\n");
      w.resolve(line);
    } else if (ended) {
      const w = waiter;
      waiter = null;
      process.stderr.write("\n");
      w.reject(cancelled());
    }
  };
  const decoder = new TextDecoder();
  const onData = (chunk: Buffer | string): void => {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    for (const ch of text) {
      if (ended) break;
      // Arrow keys and other escape sequences are not part of a password: skip them whole.
      if (escape) {
        if (/[A-Za-z~]/.test(ch)) escape = false;
        continue;
      }
      if (ch === ESC) escape = true;
      else if (ENTER.has(ch)) {
        lines.push(current);
        current = "";
      } else if (ch === CTRL_C || (ch === CTRL_D && current === "")) ended = true;
      else if (ch === "\u007f" || ch === "\b") current = current.slice(0, -1);
      else if (ch === CTRL_U) current = "";
      else if (ch >= " ") current += ch;
    }
    settle();
  };
  const onEnd = (): void => {
    ended = true;
    settle();
  };

  // Raw mode: the terminal neither echoes the password nor turns Ctrl-C into SIGINT (we see it and cancel cleanly).
  stdin.setRawMode(true);
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.resume();
  return {
    read(prompt) {
      process.stderr.write(prompt);
      return new Promise<string>((resolve, reject) => {
        waiter = { resolve, reject };
        settle();
      });
    },
    close() {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.setRawMode(false);
      stdin.pause();
    },
  };
}
