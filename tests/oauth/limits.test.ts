// Abuse limits as fixed windows: when a bucket locks, for how long, that buckets are independent, and that a lockout survives a restart.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addressBuckets, CONSENT_BUCKET, Limiter, LIMITS, type LimitRule, REGISTRATION_BUCKET } from "../../src/oauth/limits.ts";
import { openStore, type Store } from "../../src/store/index.ts";

const RULE: LimitRule = { limit: 3, windowMs: 60_000 };
const T0 = 1_700_000_000_000;

const dirs: string[] = [];
const stores: Store[] = [];
const dbPath = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-limits-"));
  dirs.push(dir);
  return join(dir, "hermes-mcp.db");
};
const open = (path: string): Store => {
  const store = openStore(path);
  stores.push(store);
  return store;
};
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A limiter over a fresh database and a clock the test moves by hand. */
const world = (): { limiter: Limiter; clock: { now: number }; path: string } => {
  const path = dbPath();
  const clock = { now: T0 };
  return { limiter: new Limiter(open(path).oauth.limits, () => clock.now), clock, path };
};

describe("Limiter", () => {
  test("an untouched bucket is open", () => {
    const { limiter } = world();
    expect(limiter.retryAfter("client-auth:x", RULE)).toBeNull();
  });

  test("allows `limit` events, and the event that reaches the limit returns the wait in seconds", () => {
    const { limiter, clock } = world();
    expect(limiter.hit("b", RULE)).toBeNull();
    clock.now += 1_000;
    expect(limiter.hit("b", RULE)).toBeNull();
    clock.now += 1_000;
    expect(limiter.hit("b", RULE)).toBe(58);
    expect(limiter.retryAfter("b", RULE)).toBe(58);
  });

  test("the wait counts down with the clock, rounds up, is never below one second, and ends with the window", () => {
    const { limiter, clock } = world();
    for (let i = 0; i < RULE.limit; i++) limiter.hit("b", RULE);
    clock.now = T0 + 30_500;
    expect(limiter.retryAfter("b", RULE)).toBe(30);
    clock.now = T0 + 59_999;
    expect(limiter.retryAfter("b", RULE)).toBe(1);
    clock.now = T0 + 60_000;
    expect(limiter.retryAfter("b", RULE)).toBeNull();
  });

  test("events while locked do not extend the window (fixed, not sliding)", () => {
    const { limiter, clock } = world();
    for (let i = 0; i < RULE.limit; i++) limiter.hit("b", RULE);
    clock.now = T0 + 50_000;
    expect(limiter.hit("b", RULE)).toBe(10);
    clock.now = T0 + 60_000;
    expect(limiter.retryAfter("b", RULE)).toBeNull();
  });

  test("after the window a new one starts with the next event, counting from one", () => {
    const { limiter, clock } = world();
    for (let i = 0; i < RULE.limit; i++) limiter.hit("b", RULE);
    clock.now = T0 + 120_000;
    expect(limiter.hit("b", RULE)).toBeNull();
    expect(limiter.hit("b", RULE)).toBeNull();
    expect(limiter.hit("b", RULE)).toBe(60);
  });

  test("events spread across windows never lock", () => {
    const { limiter, clock } = world();
    for (let i = 0; i < 10; i++) {
      expect(limiter.hit("b", RULE)).toBeNull();
      if (i % 2 === 1) clock.now += RULE.windowMs;
    }
  });

  test("buckets are independent", () => {
    const { limiter } = world();
    for (let i = 0; i < RULE.limit; i++) limiter.hit("client-auth:a", RULE);
    expect(limiter.retryAfter("client-auth:a", RULE)).not.toBeNull();
    expect(limiter.retryAfter("client-auth:b", RULE)).toBeNull();
    expect(limiter.retryAfter(CONSENT_BUCKET, RULE)).toBeNull();
  });

  test("clear reopens a bucket at once and restarts its count", () => {
    const { limiter } = world();
    for (let i = 0; i < RULE.limit; i++) limiter.hit("b", RULE);
    limiter.clear("b");
    expect(limiter.retryAfter("b", RULE)).toBeNull();
    expect(limiter.hit("b", RULE)).toBeNull();
    expect(limiter.hit("b", RULE)).toBeNull();
  });

  test("a clock set back (a day, as a board without a clock battery boots): a lockout lasts its own length from then, not a day more, and is not lifted", () => {
    const { limiter, clock } = world();
    for (let i = 0; i < RULE.limit; i++) limiter.hit("b", RULE);
    clock.now += 30_000;
    expect(limiter.retryAfter("b", RULE)).toBe(30);
    clock.now -= 86_400_000;
    expect(limiter.retryAfter("b", RULE)).toBe(60);
    // It counts down from there, like any window.
    clock.now += 59_000;
    expect(limiter.retryAfter("b", RULE)).toBe(1);
    clock.now += 1_000;
    expect(limiter.retryAfter("b", RULE)).toBeNull();
    // Then a new window, counting from one.
    expect(limiter.hit("b", RULE)).toBeNull();
    expect(limiter.hit("b", RULE)).toBeNull();
    expect(limiter.hit("b", RULE)).toBe(60);
    // Under the limit when the clock stepped back: still under it, with the events counted.
    const { limiter: other, clock: otherClock } = world();
    other.hit("c", RULE);
    otherClock.now -= 86_400_000;
    expect(other.hit("c", RULE)).toBeNull();
    expect(other.hit("c", RULE)).toBe(60);
  });

  test("after a clock set back, doctor's read-only store reads the window restarted without writing it; a daemon's refused write is not hidden", () => {
    const { limiter, clock, path } = world();
    for (let i = 0; i < RULE.limit; i++) limiter.hit("b", RULE);
    const store = open(path);
    store.db.exec("PRAGMA query_only = ON");
    const readOnly = new Limiter(store.oauth.limits, () => clock.now - 86_400_000);
    expect(readOnly.retryAfter("b", RULE)).toBe(60);
    // Any other failure (a full disk, a bug) reaches the caller, which says so, instead of a lockout that never ends.
    const broken = open(dbPath()).oauth.limits;
    broken.put("b", { windowStart: T0, count: RULE.limit });
    broken.put = () => {
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    expect(() => new Limiter(broken, () => T0 - 86_400_000).retryAfter("b", RULE)).toThrow("database or disk is full");
  });

  test("a lockout survives a restart (the counters live in the database)", () => {
    const { limiter, clock, path } = world();
    for (let i = 0; i < RULE.limit; i++) limiter.hit("b", RULE);
    const restarted = new Limiter(open(path).oauth.limits, () => clock.now + 10_000);
    expect(restarted.retryAfter("b", RULE)).toBe(50);
  });
});

describe("LIMITS", () => {
  test("consent passwords lock one address after 5 wrong tries for 15 minutes; the global ceiling is 30 an hour", () => {
    const { limiter } = world();
    for (let i = 0; i < 4; i++) expect(limiter.hit(`${CONSENT_BUCKET}:a`, LIMITS.consentPerAddress)).toBeNull();
    expect(limiter.hit(`${CONSENT_BUCKET}:a`, LIMITS.consentPerAddress)).toBe(15 * 60);
    for (let i = 0; i < 29; i++) expect(limiter.hit(CONSENT_BUCKET, LIMITS.consentGlobal)).toBeNull();
    expect(limiter.hit(CONSENT_BUCKET, LIMITS.consentGlobal)).toBe(60 * 60);
  });

  test("client authentication locks after 10 failures for 10 minutes; registration after 20 per address, 200 overall an hour", () => {
    const { limiter } = world();
    for (let i = 0; i < 9; i++) expect(limiter.hit("client-auth:x", LIMITS.clientAuth)).toBeNull();
    expect(limiter.hit("client-auth:x", LIMITS.clientAuth)).toBe(10 * 60);
    for (let i = 0; i < 19; i++) expect(limiter.hit(`${REGISTRATION_BUCKET}:a`, LIMITS.registrationPerAddress)).toBeNull();
    expect(limiter.hit(`${REGISTRATION_BUCKET}:a`, LIMITS.registrationPerAddress)).toBe(10 * 60);
    for (let i = 0; i < 199; i++) expect(limiter.hit(REGISTRATION_BUCKET, LIMITS.registrationGlobal)).toBeNull();
    expect(limiter.hit(REGISTRATION_BUCKET, LIMITS.registrationGlobal)).toBe(60 * 60);
  });

  test("one address, however it times its tries, can never reach a global ceiling within the global window", () => {
    // The most a per-address budget yields within one global window (a window overlaps ⌈global/perAddress⌉ + 1 of them).
    for (const [perAddress, global] of [
      [LIMITS.consentPerAddress, LIMITS.consentGlobal],
      [LIMITS.registrationPerAddress, LIMITS.registrationGlobal],
    ] as const) {
      const windows = Math.ceil(global.windowMs / perAddress.windowMs) + 1;
      expect(perAddress.limit * windows).toBeLessThan(global.limit);
    }
  });

  test("several buckets at once: the longest wait wins, and every bucket counts the event", () => {
    const { limiter } = world();
    const buckets = addressBuckets("f", "a", RULE, { limit: 5, windowMs: 120_000 });
    expect(limiter.hitAll(buckets)).toBeNull();
    expect(limiter.hitAll(buckets)).toBeNull();
    expect(limiter.hitAll(buckets)).toBe(60);
    expect(limiter.retryAfterAny(addressBuckets("f", "b", RULE, { limit: 5, windowMs: 120_000 }))).toBeNull();
    expect(limiter.hitAll(addressBuckets("f", "b", RULE, { limit: 5, windowMs: 120_000 }))).toBeNull();
    expect(limiter.hitAll(addressBuckets("f", "c", RULE, { limit: 5, windowMs: 120_000 }))).toBe(120);
  });
});
