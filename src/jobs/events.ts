// The job event bus: who is listening to which job (waiting calls, long polls), and delivering started/tool/retry/ended to them.
import type { Logger } from "../log.ts";
import type { JobRow } from "../store/jobs.ts";
import type { ToolEvent } from "./progress.ts";

export type JobEvent =
  | { type: "started" }
  | { type: "tool"; line: string; event: ToolEvent }
  | { type: "retry"; note: string }
  /** Sent exactly once per job (JobService.finish); `job` is its stored row, null if it is already gone. */
  | { type: "ended"; job: JobRow | null };

export type JobListener = (event: JobEvent) => void;

export class JobEvents {
  private readonly listeners = new Map<string, Set<JobListener>>();

  constructor(private readonly log: Logger) {}

  /** Listens to one job; returns the function that stops listening. */
  subscribe(id: string, listener: JobListener): () => void {
    let set = this.listeners.get(id);
    if (!set) this.listeners.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  /** Whether anyone listens to this job (so an event that costs a read can be skipped). */
  has(id: string): boolean {
    return this.listeners.has(id);
  }

  emit(id: string, event: JobEvent): void {
    const set = this.listeners.get(id);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (error) {
        this.log.error("job listener failed", { job: id, error: (error as Error).message });
      }
    }
  }
}
