// Gives memory back once the daemon has gone quiet after work: one full garbage collection (which also lets the allocator return freed pages), then its code pages, then nothing until the next request.

/** How long without a new request, and with nothing in flight, counts as quiet. */
export const QUIET_MS = 5_000;

/**
 * How long after the collection the code pages go: JavaScriptCore finishes what the collection asked of it (dropping
 * compiled code, a full collection) once the timer's callback returns, and that work runs code too.
 */
export const RELEASE_AFTER_MS = 1_000;

export interface IdleWork {
  /** Once quiet: the garbage collection (the default: a full one). */
  collect?: () => void;
  /** RELEASE_AFTER_MS later, if still quiet: handing the code pages back. */
  release?: () => void;
  quietMs?: number;
  releaseAfterMs?: number;
}

export interface IdleCollector {
  /** Called on every request: costs a clock read while a check is already armed. */
  touch(): void;
  stop(): void;
}

/**
 * After a burst of requests the JS heap and the allocator keep the peak's pages; an idle daemon should not. No timer
 * runs while nothing happens: the first request arms one; it re-arms while requests keep coming or are still in
 * flight (long-polls, held sync calls), and collects once a whole quiet period has passed since the last request;
 * then, still quiet a moment later, releases.
 */
export function idleCollector(server: { readonly pendingRequests: number }, work: IdleWork = {}): IdleCollector {
  const { collect = () => Bun.gc(true), release, quietMs = QUIET_MS, releaseAfterMs = RELEASE_AFTER_MS } = work;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastTouch = 0;
  const releaseIfStillQuiet = (collectedAt: number): void => {
    timer = null;
    // A request came since the collection (its touch found this timer armed): it uses the pages again, so the round
    // starts over from it.
    if (lastTouch > collectedAt || server.pendingRequests > 0) return check();
    release?.();
  };
  const check = (): void => {
    // Quiet is measured from the last request, not from when the timer was armed: the collection comes QUIET_MS
    // after the last request, not up to twice that.
    const quietFor = performance.now() - lastTouch;
    if (server.pendingRequests > 0) return arm(quietMs);
    if (quietFor < quietMs) return arm(quietMs - quietFor);
    timer = null;
    collect();
    const collectedAt = performance.now();
    if (release) arm(releaseAfterMs, () => releaseIfStillQuiet(collectedAt));
  };
  const arm = (ms: number, then: () => void = check): void => {
    timer = setTimeout(then, ms);
    // Never keeps the process alive on its own.
    timer.unref?.();
  };
  return {
    touch() {
      lastTouch = performance.now();
      if (!timer) arm(quietMs);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
