// Opens the one SQLite database: private file modes, WAL, busy timeout, and versioned migrations.
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { MIGRATIONS } from "./migrations.ts";

export interface OpenedDatabase {
  db: Database;
  /** Permission fixes made while opening (a file or folder that was readable by others). */
  fixes: string[];
}

export class StoreError extends Error {
  override name = "StoreError";
}

/** Opens (creating if needed) the database at `path` with directory 0700 and files 0600, then migrates it. */
export function openDatabase(path: string): OpenedDatabase {
  const fixes: string[] = [];
  const memory = path === ":memory:";
  if (!memory) fixes.push(...ensurePrivateFolder(path));
  let db: Database;
  try {
    db = new Database(path, { create: true, strict: true });
  } catch (error) {
    throw new StoreError(`cannot open the database ${path}: ${(error as Error).message} — set HERMES_MCP_DB_PATH to a writable location`);
  }
  try {
    // The busy timeout first: switching a fresh file to WAL takes a lock another process opening it may hold.
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    migrate(db);
  } catch (error) {
    db.close();
    throw new StoreError(`the database ${path} could not be prepared: ${(error as Error).message}`);
  }
  if (!memory) for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) fixes.push(...ensureMode(file, 0o600));
  return { db, fixes };
}

/** Creates the folder that holds `path` (mode 0700) or tightens it; returns the permission fixes made. */
function ensurePrivateFolder(path: string): string[] {
  const dir = dirname(path);
  try {
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Tokens' hashes and job results live here: nobody else on the machine may read them.
    return ensureMode(dir, 0o700);
  } catch (error) {
    throw new StoreError(
      `cannot create the database folder ${dir}: ${(error as Error).message} — set HERMES_MCP_DB_PATH to a writable location`,
    );
  }
}

function ensureMode(file: string, mode: number): string[] {
  const current = statSync(file).mode & 0o777;
  if (current === mode) return [];
  chmodSync(file, mode);
  return [`${file} was mode ${current.toString(8)}; set to ${mode.toString(8)}`];
}

function migrate(db: Database): void {
  const latest = MIGRATIONS.length;
  const version = (): number => {
    const current = db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
    if (current > latest) {
      throw new StoreError(`it was written by a newer hermes-mcp (schema ${current}, this binary knows ${latest}); upgrade hermes-mcp`);
    }
    return current;
  };
  if (version() === latest) return;
  // Several processes may open a fresh database at once (`serve` beside `token create`): each step reads the version
  // again inside an IMMEDIATE transaction, so exactly one of them applies it and the others see it done.
  const step = db.transaction((): boolean => {
    const current = version();
    if (current === latest) return false;
    db.exec(MIGRATIONS[current] as string);
    db.exec(`PRAGMA user_version = ${current + 1}`);
    return true;
  });
  while (step.immediate()) {}
}
