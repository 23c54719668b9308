// Test harness: runs the real hermes-mcp CLI as a child process on a loopback port it picked, with a throwaway HOME.
import type { Subprocess } from "bun";
import { afterAll } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const CLI = join(ROOT, "src", "cli", "index.ts");
/** The CLI as its shebang runs it (`bun --no-env-file`): Bun's own .env loading off, as in the release binary. */
export const CLI_COMMAND: readonly string[] = [process.execPath, "--no-env-file", CLI];

/** A free loopback port, chosen by the OS. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Can this machine listen on IPv6 loopback (some containers have no ::1)? */
export function ipv6Loopback(): boolean {
  try {
    Bun.listen({ hostname: "::1", port: 0, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
}

/** A fresh throwaway HOME per call; every one is removed after the calling file's tests. */
export function tempHomes(): () => string {
  const homes: string[] = [];
  afterAll(() => {
    for (const h of homes) removeHome(h);
  });
  return () => {
    const h = makeHome();
    homes.push(h);
    return h;
  };
}

export function makeHome(): string {
  return mkdtempSync(join(tmpdir(), "hermes-mcp-test-"));
}

/** The database a daemon or CLI run with `baseEnv(home)` uses (XDG_DATA_HOME under that home). */
export const databaseOf = (home: string): string => join(home, ".local", "share", "hermes-mcp", "hermes-mcp.db");

/** The environment a test daemon or CLI run sees: nothing from the developer's machine leaks in. */
export function baseEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    LOG_LEVEL: "DEBUG",
    ...extra,
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  args: string[],
  options: {
    home: string;
    env?: Record<string, string>;
    stdin?: string;
    cwd?: string;
    /** A reader that stops before the command writes (`cmd | true`, `cmd 2>&1 | true`): what it had is then "". */
    readerGone?: "stdout" | "stdout and stderr";
    /** stdout sent to this file instead of a pipe (`cmd > /dev/full`): stdout is then "". */
    stdoutTo?: string;
  },
): Promise<CliResult> {
  // A gone reader: the command waits on its stdin until the pipes' read ends are closed, so its first write finds none.
  const gated = options.readerGone !== undefined;
  const command = gated
    ? ["sh", "-c", 'read _; exec "$@" < /dev/null', "sh", ...CLI_COMMAND, ...args]
    : options.stdoutTo !== undefined
      ? ["sh", "-c", 'out="$1"; shift; exec "$@" > "$out"', "sh", options.stdoutTo, ...CLI_COMMAND, ...args]
      : [...CLI_COMMAND, ...args];
  const proc = Bun.spawn(command, {
    cwd: options.cwd ?? options.home,
    env: baseEnv(options.home, options.env),
    stdin: gated ? "pipe" : options.stdin !== undefined ? new Blob([options.stdin]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (gated) {
    await proc.stdout.cancel();
    if (options.readerGone === "stdout and stderr") await proc.stderr.cancel();
    const stdin = proc.stdin as import("bun").FileSink;
    stdin.write("go\n");
    await stdin.end();
  }
  const [stdout, stderr, code] = await Promise.all([
    gated || options.stdoutTo !== undefined ? "" : new Response(proc.stdout).text(),
    options.readerGone === "stdout and stderr" ? "" : new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** Creates a personal access token with the real CLI and returns it (the last line of stdout). */
export async function createToken(home: string, name = "test", env: Record<string, string> = {}): Promise<string> {
  const result = await runCli(["token", "create", "--name", name], { home, env });
  if (result.code !== 0) throw new Error(`token create failed: ${result.stderr}`);
  return result.stdout.trim().split("\n").at(-1) as string;
}

export interface TestDaemon {
  url: string;
  port: number;
  home: string;
  env: Record<string, string>;
  proc: Subprocess;
  /** Everything the daemon has logged so far. */
  logs(): string;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number>;
  /** SIGKILL: the process dies without any cleanup. */
  kill9(): Promise<void>;
  /** A hang-up: its terminal closed (launched on one), else SIGHUP as a shell sends its jobs. */
  hangUp(): void;
}

export interface DaemonOptions {
  /** The daemon's HOME: the caller's, from tempHomes() or makeHome(), so the caller removes it (a harness-made one was left behind). */
  home: string;
  port?: number;
  env?: Record<string, string>;
  /** Send the daemon's output to this file instead of collecting it in memory (benchmarks: like journald). */
  logFile?: string;
  /** How it is started: with pipes (default), on a terminal (a person's `serve` in a shell), or under `nohup`. */
  launch?: "pipes" | "terminal" | "nohup";
}

export async function startTestDaemon(options: DaemonOptions): Promise<TestDaemon> {
  const { home } = options;
  const port = options.port ?? freePort();
  const env = baseEnv(home, { BIND_HOST: "127.0.0.1", BIND_PORT: String(port), ...options.env });
  const sink = options.logFile ? Bun.file(options.logFile) : "pipe";
  let output = "";
  const terminalDecoder = new TextDecoder();
  const command = [...(options.launch === "nohup" ? ["nohup"] : []), ...CLI_COMMAND, "serve"];
  const proc =
    options.launch === "terminal"
      ? Bun.spawn(command, {
          cwd: home,
          env,
          terminal: {
            cols: 200,
            rows: 50,
            data(_terminal, data) {
              output += terminalDecoder.decode(data, { stream: true });
            },
          },
        })
      : Bun.spawn(command, { cwd: home, env, stdin: "ignore", stdout: sink, stderr: sink });
  const drain = async (stream: ReadableStream<Uint8Array> | number | null | undefined): Promise<void> => {
    if (!(stream instanceof ReadableStream)) return;
    const streamDecoder = new TextDecoder();
    for await (const chunk of stream) output += streamDecoder.decode(chunk, { stream: true });
  };
  void drain(proc.stdout);
  void drain(proc.stderr);
  // A daemon told to listen on IPv6 loopback is reached there.
  const url = `http://${options.env?.BIND_HOST === "::1" ? "[::1]" : "127.0.0.1"}:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`daemon exited with ${proc.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`daemon did not start within 15 s:\n${output}`);
    }
    await Bun.sleep(50);
  }
  return {
    url,
    port,
    home,
    env,
    proc,
    logs: () => (options.logFile ? readFileSync(options.logFile, "utf8") : output),
    async stop() {
      proc.kill("SIGTERM");
      return await proc.exited;
    },
    async kill9() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
    hangUp() {
      if (proc.terminal) proc.terminal.close();
      else proc.kill("SIGHUP");
    },
  };
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}
