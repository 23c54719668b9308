// Housekeeping on the back of requests (no timers): expired tokens, old spent refresh tokens, codes, unapproved registrations, stale metadata clients, old counters.
import { elapsedSince } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/index.ts";
import { CODE_REPLAY_MEMORY_MS, PENDING_REGISTRATION_TTL_MS, SPENT_REFRESH_MEMORY_MS, SWEEP_EVERY_MS } from "./constants.ts";

export class Housekeeper {
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /**
   * Sweeps when the last sweep is older than SWEEP_EVERY_MS. A sweep the database refuses (a full disk) waits for the
   * next round: the request it rides on may need no write at all.
   */
  maybeSweep(): void {
    if (elapsedSince(this.lastSweep, this.now()) < SWEEP_EVERY_MS) return;
    try {
      this.sweep();
    } catch (error) {
      this.log.warn("oauth housekeeping failed; it runs again later", { error: (error as Error).message });
    }
  }

  sweep(): void {
    const at = this.now();
    this.lastSweep = at;
    const oauth = this.store.oauth;
    const removed = oauth.transaction(() => ({
      tokens: oauth.grants.deleteExpired(at) + oauth.refreshTokens.deleteSpentBefore(at - SPENT_REFRESH_MEMORY_MS),
      codes: oauth.codes.deleteExpired(at - CODE_REPLAY_MEMORY_MS),
      clients: oauth.clients.deleteStale(at - PENDING_REGISTRATION_TTL_MS, at),
      counters: oauth.limits.deleteOlderThan(at - 86_400_000),
    }));
    if (removed.tokens + removed.codes + removed.clients > 0) this.log.debug("oauth: housekeeping", removed);
  }
}
