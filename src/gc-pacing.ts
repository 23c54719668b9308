// While requests keep arriving, an asynchronous garbage collection every 100 ms: Bun's own GC timer's work, kept to busy spells (serve turns that timer off).

/** Bun's own GC timer is off while this variable is set, whatever its value (serve's relaunch sets it). */
export const GC_TIMER_OFF = "BUN_GC_TIMER_DISABLE";

/**
 * How often a busy daemon asks for a collection. Measured under the soak's load (200 clients, 120 s): one a second,
 * the period of Bun's own timer, kept 164.7 MiB right after it (median 151.3 → 159.6 MiB from its first quarter to its
 * last); one every 100 ms 132.6 (141.4 → 137.7), and Bun's own timer 139.1 (157.5 → 158.4), which also collects 16 ms
 * after any tick that finds the heap changed.
 */
export const BUSY_COLLECT_EVERY_MS = 100;

export interface GcPacing {
  /** A request arrived: a collection each `everyMs` from now on, for as long as requests keep arriving. */
  touch(): void;
  /** The daemon went quiet (its idle collector's full collection follows): no more collections until the next touch. */
  quiet(): void;
}

/**
 * Bun's GC timer asks JavaScriptCore for collections while the heap changes, then every 30 s forever, busy or not;
 * `serve` starts with it off (src/cli/relaunch.ts), so a quiet daemon is not woken by it. JavaScriptCore still
 * collects on its own as memory is allocated, but a busy daemon's garbage built up between those; this keeps regular
 * collections for busy spells only. `collect` is Bun.gc(false): a collection that runs alongside the daemon instead
 * of stopping it.
 */
export function gcPacing(collect: () => void = () => Bun.gc(false), everyMs = BUSY_COLLECT_EVERY_MS): GcPacing {
  let timer: ReturnType<typeof setInterval> | null = null;
  let touched = false;
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  const tick = (): void => {
    // A period without a new request (one sync call held for minutes, say) ends the pacing until the next one: a
    // daemon that only waits on the gateway allocates next to nothing, and JavaScriptCore collects that on its own.
    if (!touched) return stop();
    touched = false;
    collect();
  };
  return {
    touch() {
      touched = true;
      if (timer) return;
      timer = setInterval(tick, everyMs);
      // Never keeps the process alive on its own.
      timer.unref?.();
    },
    quiet() {
      touched = false;
      stop();
    },
  };
}

/** The pacing for this process: gcPacing() when Bun's own GC timer is off (GC_TIMER_OFF set), else none. */
export function gcPacingFor(env: Record<string, string | undefined> = process.env): GcPacing {
  return env[GC_TIMER_OFF] !== undefined ? gcPacing() : { touch() {}, quiet() {} };
}
