// Gives memory back once the daemon has gone quiet after work: one full garbage collection (which also lets the allocator return freed pages), then nothing until the next request.

/** How long without a new request, and with nothing in flight, counts as quiet. */
export const QUIET_MS = 5_000;

export interface IdleCollector {
  /** Called on every request: costs one comparison while a check is already armed. */
  touch(): void;
  stop(): void;
}

/**
 * After a burst of requests the JS heap and the allocator keep the peak's pages; an idle daemon should not. No timer
 * runs while nothing happens: the first request arms one; it re-arms while requests keep coming or are still in
 * flight (long-polls, held sync calls), and collects once when a whole quiet period passed.
 */
export function idleCollector(
  server: { readonly pendingRequests: number },
  collect: () => void = () => Bun.gc(true),
  quietMs = QUIET_MS,
): IdleCollector {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let active = false;
  const check = (): void => {
    if (active || server.pendingRequests > 0) {
      active = false;
      arm();
      return;
    }
    timer = null;
    collect();
  };
  const arm = (): void => {
    timer = setTimeout(check, quietMs);
    // Never keeps the process alive on its own.
    timer.unref?.();
  };
  return {
    touch() {
      if (timer) active = true;
      else arm();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
