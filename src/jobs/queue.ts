// A bounded FIFO with a concurrency limit: decides which job may talk to the gateway now and which waits as pending.
export type Admission = "run" | "queued" | "full";

export class JobQueue {
  private readonly running = new Set<string>();
  private readonly waiting: string[] = [];

  constructor(
    private readonly maxConcurrent: number,
    private readonly maxQueued: number,
  ) {}

  /** Admits a job: run now, wait in line, or refuse because the line is full. */
  offer(id: string): Admission {
    if (this.running.size < this.maxConcurrent) {
      this.running.add(id);
      return "run";
    }
    if (this.waiting.length >= this.maxQueued) return "full";
    this.waiting.push(id);
    return "queued";
  }

  /** A running job ended: frees its slot and returns the job that takes it, if any. */
  release(id: string): string | null {
    if (!this.running.delete(id)) return null;
    const next = this.waiting.shift();
    if (next === undefined) return null;
    this.running.add(next);
    return next;
  }

  /** Removes a waiting job (cancelled before it started); false if it was not waiting. */
  remove(id: string): boolean {
    const index = this.waiting.indexOf(id);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  /** 1-based place in line, or null when not waiting. */
  position(id: string): number | null {
    const index = this.waiting.indexOf(id);
    return index < 0 ? null : index + 1;
  }

  get runningCount(): number {
    return this.running.size;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }
}
