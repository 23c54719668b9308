// Abuse limits as fixed windows persisted in SQLite (so a restart does not reset a lockout): which events count and how many are allowed.
import type { OAuthLimitStore } from "../store/oauth-limits.ts";
import { storageFailureCode } from "../store/storage-failure.ts";

export interface LimitRule {
  limit: number;
  windowMs: number;
}

/**
 * Per source address and, above them, a global ceiling. Each global ceiling is above what one address can spend in
 * its window (a 60-minute window overlaps at most 5 consent windows of 15 minutes, at most 7 registration windows of
 * 10 minutes), so one address alone never locks the owner out; many addresses together are still bounded.
 */
export const LIMITS = {
  /** Wrong consent passwords from one address: online guessing of the password (5 × ≤5 windows = 25 < 30). */
  consentPerAddress: { limit: 5, windowMs: 15 * 60_000 },
  /** Wrong consent passwords from everywhere: bounds guessing overall to 30 per window, at most 60 in any hour. */
  consentGlobal: { limit: 30, windowMs: 60 * 60_000 },
  /** Failed client authentications, per client id: online guessing of a client secret. */
  clientAuth: { limit: 10, windowMs: 10 * 60_000 },
  /** Registrations from one address: a malicious registrant flooding the client table (20 × ≤7 windows = 140 < 200). */
  registrationPerAddress: { limit: 20, windowMs: 10 * 60_000 },
  /** Registrations from everywhere. */
  registrationGlobal: { limit: 200, windowMs: 60 * 60_000 },
} as const satisfies Record<string, LimitRule>;

/** Wrong consent passwords: the global bucket, and the family of per-address buckets `consent:<address>`. */
export const CONSENT_BUCKET = "consent";
/** Registrations: the global bucket, and `registration:<address>`. */
export const REGISTRATION_BUCKET = "registration";

export type Buckets = readonly (readonly [string, LimitRule])[];

/** The bucket of one source address within a family (`addressKey` from client-address.ts). */
export const addressBucket = (family: string, addressKey: string): string => `${family}:${addressKey}`;

/** The per-address bucket of a family and its global ceiling. */
export function addressBuckets(family: string, addressKey: string, perAddress: LimitRule, global: LimitRule): Buckets {
  return [
    [addressBucket(family, addressKey), perAddress],
    [family, global],
  ];
}

export class Limiter {
  constructor(
    private readonly store: OAuthLimitStore,
    private readonly now: () => number,
  ) {}

  /** Seconds until `bucket` accepts again, or null when it is under its limit. */
  retryAfter(bucket: string, rule: LimitRule): number | null {
    const at = this.now();
    const window = this.windowAt(bucket, at);
    if (!window || at >= window.windowStart + rule.windowMs || window.count < rule.limit) return null;
    return Math.max(1, Math.ceil((window.windowStart + rule.windowMs - at) / 1000));
  }

  /** Counts one event; returns the wait now in force (null while still under the limit). */
  hit(bucket: string, rule: LimitRule): number | null {
    const at = this.now();
    const window = this.windowAt(bucket, at);
    const fresh = !window || at >= window.windowStart + rule.windowMs;
    this.store.put(bucket, fresh ? { windowStart: at, count: 1 } : { windowStart: window.windowStart, count: window.count + 1 });
    return this.retryAfter(bucket, rule);
  }

  /**
   * The bucket's window as of `at`. One that starts in the future (the clock was set back since) starts again now with
   * its count: a lockout in force neither outlasts its own length by the size of the step nor ends because of it.
   * (A read-only store, doctor's, reads it so without writing.)
   */
  private windowAt(bucket: string, at: number): { windowStart: number; count: number } | null {
    const window = this.store.get(bucket);
    if (!window || window.windowStart <= at) return window;
    const restarted = { windowStart: at, count: window.count };
    try {
      this.store.put(bucket, restarted);
    } catch (error) {
      // doctor's store is query-only (SQLITE_READONLY): the window reads restarted all the same. Anything else (a full
      // disk in the daemon) is the caller's to tell, as for every other write here.
      if (storageFailureCode(error)?.startsWith("SQLITE_READONLY") !== true) throw error;
    }
    return restarted;
  }

  /** The longest wait among `buckets`, or null when every one is open. */
  retryAfterAny(buckets: Buckets): number | null {
    return longest(buckets.map(([bucket, rule]) => this.retryAfter(bucket, rule)));
  }

  /** Counts one event in every bucket; returns the longest wait now in force. */
  hitAll(buckets: Buckets): number | null {
    return longest(buckets.map(([bucket, rule]) => this.hit(bucket, rule)));
  }

  /** How many `family:<key>` buckets are locked now, and the longest wait among them. */
  lockedMembers(family: string, rule: LimitRule): { count: number; longest: number | null } {
    const waits = [...this.store.members(family).keys()]
      .map((bucket) => this.retryAfter(bucket, rule))
      .filter((w): w is number => w !== null);
    return { count: waits.length, longest: longest(waits) };
  }

  clear(bucket: string): void {
    this.store.delete(bucket);
  }
}

function longest(waits: (number | null)[]): number | null {
  const set = waits.filter((w): w is number => w !== null);
  return set.length ? Math.max(...set) : null;
}
