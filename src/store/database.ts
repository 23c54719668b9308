// Opens the one SQLite database: private file modes, WAL, busy timeout, and versioned migrations.
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { describeForeign, foreignOwned } from "../file-owner.ts";
import { MIGRATIONS } from "./migrations.ts";
import { BUSY_TIMEOUT_MS, storageFailureCode, storageFailureOf } from "./storage-failure.ts";

export interface OpenedDatabase {
  db: Database;
  /** Permission fixes made while opening (a file or folder that was readable by others). */
  fixes: string[];
}

export class StoreError extends Error {
  override name = "StoreError";
}

/** The database files at `path`, and its folder: what `serve` and the CLI need to open, create and write. */
export const databaseFiles = (path: string): string[] => [path, `${path}-wal`, `${path}-shm`, `${path}.lock`, dirname(path)];

/**
 * `failed` ("cannot open the database X") told as the file or folder of ours that another user owns, when that is why
 * (a command once run with sudo): its fix is a chown, not another HERMES_MCP_DB_PATH. Null when it is not that.
 */
export function foreignOwnerError(failed: string, dbPath: string): StoreError | null {
  const found = foreignOwned(databaseFiles(dbPath));
  return found ? new StoreError(`${failed}: ${found.problem} — ${found.fix}, then try again`) : null;
}

/** Opens (creating if needed) the database at `path` with directory 0700 and files 0600, then migrates it. */
export function openDatabase(path: string): OpenedDatabase {
  const fixes: string[] = [];
  const memory = path === ":memory:";
  if (!memory) createFolder(path);
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    let db: Database;
    try {
      db = new Database(path, { create: true, strict: true });
    } catch (error) {
      const failed = `cannot open the database ${path}`;
      throw (
        foreignOwnerError(failed, path) ??
        new StoreError(`${failed}: ${(error as Error).message} — set HERMES_MCP_DB_PATH to a writable location`)
      );
    }
    try {
      prepare(db, path, memory, fixes);
    } catch (error) {
      db.close();
      // Several processes switching a fresh file to WAL at once: SQLite answers one of them SQLITE_BUSY at once, without
      // waiting (two read locks both asking to write would deadlock). Opened again a moment later, it finds WAL done.
      if (busyAtOnce(error) && performance.now() < deadline) {
        Bun.sleepSync(5 + Math.random() * 20);
        continue;
      }
      const refusal = error instanceof SchemaRefusal ? error : unreadableRefusal(error);
      if (refusal) throw new StoreError(`the database ${path} ${refusal.problem}: ${refusal.fix}`);
      const failed = `the database ${path} could not be prepared`;
      // Before the storage words: a file of ours root owns reads to SQLite as read-only, and its fix is the chown.
      const foreign = foreignOwnerError(failed, path);
      if (foreign) throw foreign;
      const storage = storageFailureOf(error, path);
      if (storage) throw new StoreError(`the database could not be prepared: ${storage.problem} — ${storage.fix}`);
      throw new StoreError(`${failed}: ${(error as Error).message}`);
    }
    if (!memory)
      for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) fixes.push(...ensurePrivate(file, db, path));
    return { db, fixes };
  }
}

const busyAtOnce = (error: unknown): boolean => storageFailureCode(error)?.startsWith("SQLITE_BUSY") === true;

/** Busy timeout, schema check, private folder, WAL, then migrations. */
function prepare(db: Database, path: string, memory: boolean, fixes: string[]): void {
  // The busy timeout first: switching a fresh file to WAL takes a lock another process opening it may hold.
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Before WAL, which is written into the file: a file that is not ours is left exactly as it was.
  const version = schemaVersionOf(db);
  // Tokens' hashes and job results live here: nobody else on the machine may read them (tightened once the file is
  // known to be ours: another program's folder is not touched either).
  if (!memory) fixes.push(...ensureMode(dirname(path), 0o700));
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db, version);
}

/**
 * Opens an existing database only to read it as it is (doctor's promise: it changes nothing): no file created, no mode
 * tightened, no journal mode set, no migration; refused unless it is at this binary's schema.
 */
export function inspectDatabase(path: string): Database {
  const { db, version } = openForReading(path);
  if (version < MIGRATIONS.length) {
    db.close();
    // Read as it is, an older schema may lack what the caller reads.
    throw new StoreError(
      `${path} was written by an older hermes-mcp (schema ${version}; this one writes ${MIGRATIONS.length}): \`hermes-mcp serve\` upgrades it`,
    );
  }
  return db;
}

/**
 * Opens an existing database to read, with SQLite refusing every write (query_only), and its schema version; the
 * refusals of schemaVersionOf and unreadableRefusal apply. Read-write where the file allows: a read-only connection to
 * a WAL database leaves its -wal and -shm files behind, a read-write one removes them when it is the last to close.
 */
export function openForReading(path: string): { db: Database; version: number } {
  let db: Database;
  try {
    db = new Database(path, { readwrite: true, create: false, strict: true });
  } catch {
    try {
      db = new Database(path, { readonly: true, strict: true });
    } catch (error) {
      throw new StoreError(`cannot open ${path}: ${(error as Error).message}`);
    }
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA query_only = ON");
    return { db, version: schemaVersionOf(db) };
  } catch (error) {
    db.close();
    throw error instanceof SchemaRefusal ? error : (unreadableRefusal(error) ?? error);
  }
}

/** A file hermes-mcp will not use as its database: what is wrong with it, and what to do (doctor shows them apart). */
export class SchemaRefusal extends StoreError {
  constructor(
    /** A newer hermes-mcp's database, another program's, or no database hermes-mcp can read (not one, or damaged). */
    readonly kind: "newer" | "foreign" | "unreadable",
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem}: ${fix}`);
  }
}

/**
 * The schema version of an open database; refused when a newer hermes-mcp wrote it, or when it holds another program's
 * tables and none of ours.
 */
export function schemaVersionOf(db: Database): number {
  const latest = MIGRATIONS.length;
  // One statement, so one snapshot: read apart, another process's first migration could commit between the two reads
  // (version 0, then its tables) and pass for another program's database.
  const read = db
    .query<{ version: number; tables: number }, []>(
      "SELECT (SELECT user_version FROM pragma_user_version) AS version, EXISTS (SELECT 1 FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\') AS tables",
    )
    .get();
  const current = read?.version ?? 0;
  if (current > latest)
    throw new SchemaRefusal(
      "newer",
      `was written by a newer hermes-mcp (schema ${current}, this binary knows ${latest})`,
      "upgrade hermes-mcp",
    );
  // Threat: HERMES_MCP_DB_PATH pointed at another program's database (Hermes's own, say): never write our tables into it.
  if (current === 0 && read?.tables)
    throw new SchemaRefusal(
      "foreign",
      "holds another program's tables and no hermes-mcp schema, so hermes-mcp leaves it alone",
      "set HERMES_MCP_DB_PATH to a file of its own",
    );
  return current;
}

/** A SQLite error saying the file is no database at all (or a damaged one), as a refusal with its way out; else null. */
export function unreadableRefusal(error: unknown): SchemaRefusal | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "SQLITE_NOTADB" && code !== "SQLITE_CORRUPT") return null;
  return new SchemaRefusal(
    "unreadable",
    `is not a database hermes-mcp can read (${(error as Error).message}: another program's file, or a damaged one)`,
    "set HERMES_MCP_DB_PATH to a file of its own, put a backup in its place (`hermes-mcp restore FILE`), or move this one aside to start afresh (every client then connects again)",
  );
}

/** Creates the folder that holds `path` (mode 0700) if it is missing; an existing one is tightened once the file is known to be ours. */
function createFolder(path: string): void {
  const dir = dirname(path);
  try {
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw folderFailure(path, error);
  }
}

/** The database's folder could not be made: whose folder is in the way, or what the system said. */
export function folderFailure(path: string, error: unknown): StoreError {
  const failed = `cannot create the database folder ${dirname(path)}`;
  return (
    foreignOwnerError(failed, path) ??
    new StoreError(`${failed}: ${(error as Error).message} — set HERMES_MCP_DB_PATH to a writable location`)
  );
}

/**
 * ensureMode(file, 0600) for a database file; one of another user's (root's, after sudo) cannot be made private, so
 * the database is closed and the chown that mends it is said.
 */
function ensurePrivate(file: string, db: Database, dbPath: string): string[] {
  try {
    return ensureMode(file, 0o600);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const owner = statSync(file).uid;
    const uid = process.getuid?.();
    if ((code !== "EPERM" && code !== "EACCES") || uid === undefined || owner === uid) throw error;
    db.close();
    const foreign = describeForeign(file, owner, uid, "make it private");
    throw new StoreError(`cannot open the database ${dbPath}: ${foreign.problem} — ${foreign.fix}, then try again`);
  }
}

function ensureMode(file: string, mode: number): string[] {
  const current = statSync(file).mode & 0o777;
  if (current === mode) return [];
  chmodSync(file, mode);
  return [`${file} was mode ${current.toString(8)}; set to ${mode.toString(8)}`];
}

/** Brings a database at schema `version` (as schemaVersionOf read it) to the latest. */
function migrate(db: Database, version: number): void {
  const latest = MIGRATIONS.length;
  if (version === latest) return;
  // Several processes may open a fresh database at once (`serve` beside `token create`): each step reads the version
  // again inside an IMMEDIATE transaction, so exactly one of them applies it and the others see it done.
  const step = db.transaction((): boolean => {
    const current = schemaVersionOf(db);
    if (current === latest) return false;
    db.exec(MIGRATIONS[current] as string);
    db.exec(`PRAGMA user_version = ${current + 1}`);
    return true;
  });
  while (step.immediate()) {}
}
