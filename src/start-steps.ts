// How long each step of a start took, for the DEBUG line that says where serve's start-up time goes.
import { logMs } from "./log.ts";

/**
 * Steps are timed back to back on performance.now()'s clock, whose zero is this process's runtime start (after a
 * relaunch, the second start: the first process and the execve come before it and are not counted here).
 */
export class StartSteps {
  private readonly steps: Array<[name: string, ms: number]> = [];
  private last: number;

  /** `from`: when the first step began (0, the default, is the runtime's own start). */
  constructor(from = 0) {
    this.last = from;
  }

  /** The step `name` ended at `at` (now by default); it began where the previous one ended. */
  done(name: string, at = performance.now()): void {
    this.steps.push([name, Math.max(0, at - this.last)]);
    this.last = Math.max(this.last, at);
  }

  /** Milliseconds since the clock's zero at the last step's end. */
  get totalMs(): number {
    return logMs(this.last);
  }

  /** Log fields: `<step>_ms` for each step in order, then `total_ms`. */
  fields(): Record<string, number> {
    return { ...Object.fromEntries(this.steps.map(([name, ms]) => [`${name}_ms`, logMs(ms)])), total_ms: this.totalMs };
  }
}
