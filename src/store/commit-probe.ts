// SQLite's data_version, asked at most once per turn of the event loop: revocations and CLI cancels stay immediate.

/**
 * `PRAGMA data_version` costs a read transaction (two fcntl calls on the -shm lock); under load the event loop serves
 * dozens of requests per turn, and asking once per turn is as exact as asking per request: a request whose bytes
 * arrived in this turn was sent before the first ask of the turn returned, so it was concurrent with any commit that
 * the ask did not see. The next turn asks again.
 *
 * (Never read the -shm file directly: opening and closing any descriptor on it drops this process's POSIX locks on
 * it, SQLite's included, and another process may then truncate it under our mapping — a bus error, caught by the
 * crash loop.)
 */
export function dataVersionOncePerTurn(ask: () => number): () => number {
  let version = 0;
  let fresh = false;
  const expire = (): void => {
    fresh = false;
  };
  return () => {
    if (fresh) return version;
    version = ask();
    fresh = true;
    setImmediate(expire);
    return version;
  };
}
