// Gives memory back once the daemon has gone quiet after work: one full garbage collection (which also lets the allocator return freed pages), then nothing until the next request.

/** How long without a new request, and with nothing in flight, counts as quiet. */
export const QUIET_MS = 5_000;

export interface IdleCollector {
  /** Called on every request: costs a clock read while a check is already armed. */
  touch(): void;
  stop(): void;
}

/**
 * After a burst of requests the JS heap and the allocator keep the peak's pages; an idle daemon should not. No timer
 * runs while nothing happens: the first request arms one; it re-arms while requests keep coming or are still in
 * flight (long-polls, held sync calls), and collects once a whole quiet period has passed since the last request.
 */
export function idleCollector(
  server: { readonly pendingRequests: number },
  collect: () => void = () => Bun.gc(true),
  quietMs = QUIET_MS,
): IdleCollector {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastTouch = 0;
  const check = (): void => {
    // Quiet is measured from the last request, not from when the timer was armed: the collection comes QUIET_MS
    // after the last request, not up to twice that.
    const quietFor = performance.now() - lastTouch;
    if (server.pendingRequests > 0) return arm(quietMs);
    if (quietFor < quietMs) return arm(quietMs - quietFor);
    timer = null;
    collect();
  };
  const arm = (ms: number): void => {
    timer = setTimeout(check, ms);
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
