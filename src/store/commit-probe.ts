// SQLite's data_version, read only when the WAL-index header shows that some connection committed since we last asked.
import type { Database } from "bun:sqlite";

/**
 * The WAL-index header (SQLite file format, "WAL-index format" §4.2): two 48-byte copies at the start of the -shm file.
 * Every commit by any connection rewrites them (iChange counts write transactions, mxFrame and the salts move), so
 * while these 96 bytes are unchanged nobody has committed and data_version cannot have moved.
 */
const HEADER_WORDS = 24;
/** mxFrame (frames in the WAL) in the first header copy, and nBackfill (frames already copied back) just after the two copies. */
const MX_FRAME_WORD = 4;
const BACKFILL_WORD = 24;
const MAPPED_WORDS = 25;

/**
 * `PRAGMA data_version` costs a read transaction (two fcntl calls on the -shm lock) — a third of a cached request's
 * work when asked on every request. This answers it exactly: the header is compared first (a memory read of a page
 * SQLite itself keeps mapped), and the pragma runs only after a commit. Without a WAL index (mapping refused, another
 * journal mode, a platform where Bun cannot map it) every call asks SQLite, as before.
 */
export interface CommitProbe {
  dataVersion(): number;
  /** WAL frames not yet copied back into the database (null: unknown, no WAL index mapped). */
  framesToCheckpoint(): number | null;
  close(): void;
}

export function dataVersionProbe(db: Database, dbPath: string): CommitProbe {
  const versionStmt = db.query<{ data_version: number }, []>("PRAGMA data_version");
  const ask = (): number => versionStmt.get()?.data_version ?? 0;
  let header = mapWalIndexHeader(db, dbPath);
  const seen = new Uint32Array(HEADER_WORDS);
  let version = 0;
  let valid = false;
  const dataVersion = (): number => {
    if (!header) return ask();
    let same = valid;
    for (let i = 0; i < HEADER_WORDS; i++) {
      const word = header[i] as number;
      if (word !== seen[i]) {
        seen[i] = word;
        same = false;
      }
    }
    if (same) return version;
    // The header is copied before asking, so a commit landing in between is either in this answer or seen next call.
    version = ask();
    valid = true;
    return version;
  };
  const framesToCheckpoint = (): number | null =>
    header ? Math.max(0, (header[MX_FRAME_WORD] as number) - (header[BACKFILL_WORD] as number)) : null;
  // Once the database is closed another process may own the -shm file: never read the mapping again.
  return { dataVersion, framesToCheckpoint, close: () => void (header = null) };
}

/** The first 100 bytes of `<db>-shm` (both header copies and nBackfill) as words, or null when there is no WAL index to read. */
function mapWalIndexHeader(db: Database, dbPath: string): Uint32Array | null {
  const mode = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
  if (mode !== "wal" || dbPath === ":memory:") return null;
  try {
    // Safe to map: SQLite never truncates the -shm file while a connection (ours, open for the store's life) uses it.
    const bytes = Bun.mmap(`${dbPath}-shm`, { shared: true, size: MAPPED_WORDS * 4 });
    if (bytes.byteLength < MAPPED_WORDS * 4 || bytes.byteOffset % 4 !== 0) return null;
    return new Uint32Array(bytes.buffer, bytes.byteOffset, MAPPED_WORDS);
  } catch {
    return null;
  }
}
