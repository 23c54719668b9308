// How long the daemon's writes wait for a lock another program holds: the whole busy timeout, or not at all while a lock that outlasted it is still held.
import type { Database } from "bun:sqlite";
import { BUSY_TIMEOUT_MS, storageFailureCode } from "./storage-failure.ts";

/** How often a lock that outlasted the busy timeout is looked at again. */
export const LOCK_PROBE_EVERY_MS = 1000;

/**
 * Threat: another program holding the database's write lock for long (a sqlite3 shell left inside a transaction).
 * SQLite waits for it inside the write, on the daemon's only thread: BUSY_TIMEOUT_MS in which nothing else is answered.
 * Were every write to wait as long, a queue of jobs would stall the daemon 5 s per job, one after another. So once a
 * write has waited the whole timeout in vain, writes fail at once (each caller is told the database is locked) until a
 * probe, every LOCK_PROBE_EVERY_MS, takes the lock; from then on writes wait out short locks (a CLI's commit) again.
 */
export class LockWait {
  private probe: ReturnType<typeof setInterval> | null = null;
  /** Who hears that the lock is gone. */
  private whenFree: (() => void) | null = null;

  /** `onFree` runs each time a lock that outlasted the timeout is gone (the store writes what it held meanwhile). */
  constructor(
    private readonly db: Database,
    private readonly onFree: () => void = () => {},
    private readonly probeEveryMs = LOCK_PROBE_EVERY_MS,
  ) {}

  /** Whether writes wait out another program's lock now (false while a lock that outlasted the timeout is held). */
  get patient(): boolean {
    return this.probe === null;
  }

  /**
   * A write gave up on another program's lock: from now until the lock is gone, writes fail at once, and `whenFree`
   * runs once it is gone (whoever noticed first says so to the owner). Said again while it lasts, it changes nothing.
   */
  ranOut(whenFree?: () => void): void {
    if (this.probe) return;
    this.whenFree = whenFree ?? null;
    this.setBusyTimeout(0);
    this.probe = setInterval(() => this.lookAgain(), this.probeEveryMs);
    this.probe.unref?.();
  }

  /** `write`, failing at once on a held lock whatever the mode (a retry that must not stall every request). */
  atOnce<T>(write: () => T): T {
    if (!this.patient) return write();
    this.setBusyTimeout(0);
    try {
      return write();
    } finally {
      this.setBusyTimeout(BUSY_TIMEOUT_MS);
    }
  }

  /** `write`, waiting a held lock out whatever the mode (the last try at shutdown, when nobody waits on the daemon). */
  patiently<T>(write: () => T): T {
    if (this.patient) return write();
    this.setBusyTimeout(BUSY_TIMEOUT_MS);
    try {
      return write();
    } finally {
      if (!this.patient) this.setBusyTimeout(0);
    }
  }

  /** Stops looking (the database is closing). */
  close(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    this.whenFree = null;
  }

  private lookAgain(): void {
    try {
      // Takes the write lock and gives it back at once: it writes nothing.
      this.db.exec("BEGIN IMMEDIATE");
      this.db.exec("ROLLBACK");
    } catch (error) {
      // Still held.
      if (storageFailureCode(error)?.startsWith("SQLITE_BUSY")) return;
      // Any other refusal is no lock (the writes that meet it say so themselves); a closed database ends the looking.
      try {
        this.setBusyTimeout(BUSY_TIMEOUT_MS);
      } catch {
        this.close();
        return;
      }
    }
    const whenFree = this.whenFree;
    this.close();
    this.setBusyTimeout(BUSY_TIMEOUT_MS);
    this.onFree();
    whenFree?.();
  }

  private setBusyTimeout(ms: number): void {
    this.db.exec(`PRAGMA busy_timeout = ${ms}`);
  }
}
