// Abuse limits as fixed windows persisted in SQLite (so a restart does not reset a lockout): which events count and how many are allowed.
import type { OAuthLimitStore } from "../store/oauth-limits.ts";

export interface LimitRule {
  limit: number;
  windowMs: number;
}

export const LIMITS = {
  /** Wrong consent passwords, for the whole server (there is one owner): online guessing of the password. */
  consent: { limit: 5, windowMs: 15 * 60_000 },
  /** Failed client authentications, per client id: online guessing of a client secret. */
  clientAuth: { limit: 10, windowMs: 10 * 60_000 },
  /** Registrations, for the whole server: a malicious registrant flooding the client table. */
  registration: { limit: 20, windowMs: 10 * 60_000 },
} as const satisfies Record<string, LimitRule>;

/** The one bucket for wrong consent passwords (there is one owner and one password). */
export const CONSENT_BUCKET = "consent";

export class Limiter {
  constructor(
    private readonly store: OAuthLimitStore,
    private readonly now: () => number,
  ) {}

  /** Seconds until `bucket` accepts again, or null when it is under its limit. */
  retryAfter(bucket: string, rule: LimitRule): number | null {
    const window = this.store.get(bucket);
    const at = this.now();
    if (!window || at >= window.windowStart + rule.windowMs || window.count < rule.limit) return null;
    return Math.max(1, Math.ceil((window.windowStart + rule.windowMs - at) / 1000));
  }

  /** Counts one event; returns the wait now in force (null while still under the limit). */
  hit(bucket: string, rule: LimitRule): number | null {
    const at = this.now();
    const window = this.store.get(bucket);
    const fresh = !window || at >= window.windowStart + rule.windowMs;
    this.store.put(bucket, fresh ? { windowStart: at, count: 1 } : { windowStart: window.windowStart, count: window.count + 1 });
    return this.retryAfter(bucket, rule);
  }

  clear(bucket: string): void {
    this.store.delete(bucket);
  }
}
