// Test harness: runs the real hermes-mcp CLI on a pseudo-terminal (Bun's PTY), types into it and collects what it shows.
import { baseEnv, CLI_COMMAND } from "./daemon.ts";

export interface PtySession {
  /** Everything the terminal has shown so far (output and echoed input), as text. */
  screen(): string;
  /** Types raw bytes, as a user at the keyboard would ("\r" is Enter, "\u0003" is Ctrl-C). */
  type(keys: string): void;
  /** Resolves once the screen contains `text` (rejects after 10 s, showing the screen). */
  waitFor(text: string): Promise<void>;
  /** The exit code, and the whole screen. */
  exited(): Promise<{ code: number; screen: string }>;
}

export function runCliOnTerminal(args: string[], options: { home: string; env?: Record<string, string> }): PtySession {
  let shown = "";
  const decoder = new TextDecoder();
  const proc = Bun.spawn([...CLI_COMMAND, ...args], {
    cwd: options.home,
    env: baseEnv(options.home, { TERM: "xterm-256color", ...options.env }),
    terminal: {
      cols: 200,
      rows: 50,
      data(_terminal, data) {
        shown += decoder.decode(data, { stream: true });
      },
    },
  });
  const terminal = proc.terminal as Bun.Terminal;
  return {
    screen: () => shown,
    type: (keys) => {
      terminal.write(keys);
    },
    async waitFor(text) {
      const deadline = Date.now() + 10_000;
      while (!shown.includes(text)) {
        if (proc.exitCode !== null) throw new Error(`exited with ${proc.exitCode} before showing ${JSON.stringify(text)}:\n${shown}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(text)}:\n${shown}`);
        await Bun.sleep(20);
      }
    },
    async exited() {
      const code = await proc.exited;
      // Let the last output drain from the PTY before closing it.
      await Bun.sleep(50);
      terminal.close();
      return { code, screen: shown };
    },
  };
}
