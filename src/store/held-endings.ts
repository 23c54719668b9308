// Job endings the database refused for a reason of the machine (storage-failure.ts): kept with the row they make, answered from memory, written once the database takes them.
import type { JobRow } from "./jobs.ts";

/**
 * An ending waiting to be written: the write itself (it commits the ending, or finds the job ended by another process;
 * `patient`, it waits out another program's lock as any write does), and the row it makes.
 */
export interface HeldEnding {
  write: (patient: boolean) => void;
  row: Readonly<JobRow>;
}

/** What the owner hears: each ending held (with why), and when the database took them all. */
export interface HeldEndingsListener {
  held(error: unknown): void;
  written(count: number): void;
}

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

/**
 * Threat: a disk that fills (or a lock held by another program) while Hermes works. Thrown away, the gateway's answer
 * would be lost and the job would read "running" until a restart. Held, it is answered from here at once, and written
 * before this process's next write or by a timer backing off from 1 s to 30 s (a retry blocked by another program's lock
 * fails at once rather than stall every request; the last try at shutdown waits it out). A restart before then leaves
 * the job failed with the restart reason, as for a crash.
 */
export class HeldEndings {
  private readonly endings = new Map<string, HeldEnding>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private retryMs = FIRST_RETRY_MS;
  private retryAt = 0;
  /** Set by the daemon's JobService: a store nobody listens for (the CLI's) holds nothing, and its refused ending throws. */
  listener: HeldEndingsListener | null = null;

  get size(): number {
    return this.endings.size;
  }

  row(id: string): Readonly<JobRow> | undefined {
    return this.endings.get(id)?.row;
  }

  /** The rows the held endings make. */
  *rows(): IterableIterator<Readonly<JobRow>> {
    for (const ending of this.endings.values()) yield ending.row;
  }

  /** Keeps an ending the database refused with `error`; retried from FIRST_RETRY_MS on. */
  hold(id: string, ending: HeldEnding, error: unknown): void {
    const first = this.endings.size === 0;
    this.endings.set(id, ending);
    if (first) {
      this.retryMs = FIRST_RETRY_MS;
      this.backOff();
    }
    // Every refusal reaches the owner's alarm (it writes one line per 10 s): a lock met by a later ending must make the
    // next writes fail at once (lock-wait.ts) as much as one met by the first.
    this.listener?.held(error);
  }

  /**
   * Writes every held ending, in the order held, unless the last try failed less than the backoff ago (`force` tries
   * anyway; `patient` waits out another program's lock: at shutdown, when nothing else waits on it). A failure keeps
   * that ending and those after it; the count of endings still held is returned.
   */
  flush(force = false, patient = false): number {
    if (this.endings.size === 0 || (!force && performance.now() < this.retryAt)) return this.endings.size;
    let written = 0;
    for (const [id, ending] of this.endings) {
      try {
        ending.write(patient);
      } catch {
        // A forced try between retries (a session-labelled job's start) keeps the schedule: only the retries back off,
        // or a chat's follow-ups every 2 s on a full disk pushed the next retry to 30 s within 10 s.
        if (!force || this.timer === null) this.backOff();
        return this.endings.size;
      }
      this.endings.delete(id);
      written++;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (written > 0) this.listener?.written(written);
    return 0;
  }

  /** Forgets the held endings of jobs that no longer exist (a reset deleted them). */
  forget(gone: (row: Readonly<JobRow>) => boolean): void {
    for (const [id, ending] of this.endings) if (gone(ending.row)) this.endings.delete(id);
    if (this.endings.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private backOff(): void {
    // Monotonic: a clock set back must not hold the retries off until it catches up.
    this.retryAt = performance.now() + this.retryMs;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush(true);
    }, this.retryMs);
    this.timer.unref?.();
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs * 2);
  }
}
