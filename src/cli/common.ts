// Shared CLI plumbing: friendly output on stderr, config loading that explains every bad variable, and clean exits.
import type { ConsolaInstance } from "consola";
import { ConfigError, loadConfig, type LoadedConfig } from "../config/load.ts";
import { StoreError } from "../store/database.ts";
import { openStore, type Store } from "../store/index.ts";
import { storageFailureOf } from "../store/storage-failure.ts";
import { StdoutError, stderrStream } from "./output.ts";

/**
 * Human-facing messages go to stderr so stdout carries only data (env lines, tokens, tables). consola is loaded with the
 * first message, not with the CLI: `serve` never prints through it, and its import alone costs the daemon ≈ 2 MiB.
 */
let consola: ConsolaInstance | null = null;
function stderrConsola(): ConsolaInstance {
  if (consola) return consola;
  const { createConsola, LogLevels } = require("consola") as typeof import("consola");
  consola = createConsola({
    // consola's own default goes down to warnings when it sees NODE_ENV=test or TEST (std-env): a command run from a test
    // runner's shell or a CI job then said nothing of what it did ("No personal access tokens", "created").
    level: LogLevels.info,
    // A reader of stderr that has gone (`2>&1 | head -1`) must not turn the next message into a crash.
    stdout: stderrStream as unknown as NodeJS.WriteStream,
    stderr: stderrStream as unknown as NodeJS.WriteStream,
    formatOptions: { date: false },
  });
  return consola;
}
export const ui = {
  info: (message: unknown, ...args: unknown[]): void => stderrConsola().info(message, ...args),
  success: (message: unknown, ...args: unknown[]): void => stderrConsola().success(message, ...args),
  warn: (message: unknown, ...args: unknown[]): void => stderrConsola().warn(message, ...args),
  error: (message: unknown, ...args: unknown[]): void => stderrConsola().error(message, ...args),
};

export class CliExit extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

export function loadConfigOrExit(): LoadedConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new CliExit(`${error.message}\nFix the variables above (environment, ./.env or ~/.config/hermes-mcp/env) and try again.`);
    }
    throw error;
  }
}

export function openStoreOrExit(path: string): Store {
  try {
    return openStore(path);
  } catch (error) {
    if (error instanceof StoreError) throw new CliExit(error.message);
    throw error;
  }
}

/** An error class whose message is written for the owner (JobAdminError, PersonalTokenError, …). */
type OwnerFacingError = abstract new (...args: never[]) => Error;

/**
 * Runs `body` on the database at `dbPath` and closes it once the body has finished (settled, for one that awaits: a
 * password's hashing); an error of one of the `expected` classes ends the command with its message (exit 1), anything
 * else stays a bug.
 */
export function withStore<T>(dbPath: string, body: (store: Store) => T, expected: readonly OwnerFacingError[] = []): T {
  const store = openStoreOrExit(dbPath);
  let result: T;
  try {
    result = body(store);
  } catch (error) {
    store.close();
    throw asCliExit(error, expected, dbPath);
  }
  if (!(result instanceof Promise)) {
    store.close();
    return result;
  }
  return result
    .catch((error: unknown) => {
      throw asCliExit(error, expected, dbPath);
    })
    .finally(() => store.close()) as T;
}

/**
 * `error` as a CliExit with its message when it is one of the `expected` classes, or saying what to do when the
 * database at `dbPath` refused a write (a full disk); unchanged otherwise.
 */
export function asCliExit(error: unknown, expected: readonly OwnerFacingError[], dbPath?: string): unknown {
  if (expected.some((kind) => error instanceof kind)) return new CliExit((error as Error).message);
  const storage = dbPath === undefined ? null : storageFailureOf(error, dbPath);
  return storage ? new CliExit(`${storage.problem}, so nothing was changed — ${storage.fix}, then run the command again`) : error;
}

/** Runs a command body, turning expected failures into one clear line and exit code 1 (no stack traces for users). */
export async function guarded(body: () => unknown | Promise<unknown>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof CliExit || error instanceof StdoutError) {
      ui.error(error.message);
      process.exit(error instanceof CliExit ? error.code : 1);
    }
    ui.error(`unexpected error: ${(error as Error).message}`);
    process.exit(1);
  }
}
