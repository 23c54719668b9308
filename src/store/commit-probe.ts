// SQLite's data_version, asked at most once a millisecond: revocations and CLI cancels are seen within 1 ms of their commit.

/** How old an answer may be: far below the time any CLI takes to commit and return (tens of milliseconds). */
const DATA_VERSION_MAX_AGE_MS = 1;

/**
 * `PRAGMA data_version` costs a read transaction (two fcntl calls on the -shm lock), a sixth of a cached request's
 * work when asked per request; under load dozens of requests share one millisecond. A request checked 1 ms or more
 * after another process's commit always sees it: `hermes-mcp token revoke` has committed and exited long before a
 * request sent after it returns reaches us.
 *
 * (Never read the -shm file directly instead: opening and closing any descriptor on it drops this process's POSIX
 * locks on it, SQLite's included, and another process may then truncate it under our mapping — a bus error the crash
 * loop caught.)
 */
export function dataVersionAtMostEveryMs(ask: () => number, maxAgeMs = DATA_VERSION_MAX_AGE_MS): () => number {
  let version = 0;
  let askedAt = Number.NEGATIVE_INFINITY;
  return () => {
    const now = performance.now();
    if (now - askedAt < maxAgeMs) return version;
    version = ask();
    askedAt = now;
    return version;
  };
}
