// Bookkeeping (a token's last use, OAuth housekeeping): a database refusing its writes must not refuse the request it rides on.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Logger, silentLogger } from "../../src/log.ts";
import { SWEEP_EVERY_MS } from "../../src/oauth/constants.ts";
import { Housekeeper } from "../../src/oauth/housekeeping.ts";
import { createPersonalToken, listPersonalTokens } from "../../src/oauth/personal-tokens.ts";
import { createTokenVerifier, personalTokenKind } from "../../src/oauth/verify.ts";
import { openStore } from "../../src/store/index.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function tempStore(): ReturnType<typeof openStore> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-touch-"));
  const store = openStore(join(dir, "db.sqlite"));
  cleanups.push(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

test("a token whose last use cannot be written is still accepted, and the failure is reported once a minute at most", () => {
  const store = tempStore();
  const token = createPersonalToken(store, "laptop", 1000);
  let now = 10_000;
  const failures: string[] = [];
  const verifier = createTokenVerifier(
    store,
    [personalTokenKind(store)],
    () => now,
    (error) => {
      failures.push(String((error as { code?: string }).code));
    },
  );
  // Every write refused, as on a read-only filesystem.
  store.db.exec("PRAGMA query_only = ON");
  expect(verifier.verify(token)?.clientId).toBe("pat:laptop");
  expect(failures).toEqual(["SQLITE_READONLY"]);
  now += 30_000;
  expect(verifier.verify(token)?.clientId).toBe("pat:laptop");
  expect(failures).toHaveLength(1);
  // Writable again: the next minute's use is recorded.
  store.db.exec("PRAGMA query_only = OFF");
  now += 30_000;
  expect(verifier.verify(token)?.clientId).toBe("pat:laptop");
  expect(failures).toHaveLength(1);
  expect(listPersonalTokens(store)[0]?.lastUsedAt).toBe(now);
  expect(verifier.verify("hmcp_pat_unknown")).toBeNull();
});

test("OAuth housekeeping the database refuses is logged and tried again a sweep period later, never thrown", () => {
  const store = tempStore();
  let now = 1_700_000_000_000;
  const warnings: string[] = [];
  const log: Logger = { ...silentLogger, warn: (message) => void warnings.push(message) };
  const housekeeper = new Housekeeper(store, log, () => now);
  store.db.exec("PRAGMA query_only = ON");
  expect(() => housekeeper.maybeSweep()).not.toThrow();
  expect(warnings).toEqual(["oauth housekeeping failed; it runs again later"]);
  // Not on every request meanwhile.
  now += SWEEP_EVERY_MS - 1;
  housekeeper.maybeSweep();
  expect(warnings).toHaveLength(1);
  now += 1;
  housekeeper.maybeSweep();
  expect(warnings).toHaveLength(2);
  store.db.exec("PRAGMA query_only = OFF");
  now += SWEEP_EVERY_MS;
  housekeeper.maybeSweep();
  expect(warnings).toHaveLength(2);
});

test("a clock set back a day: housekeeping and a token's last use resume at once, not a day later", () => {
  const store = tempStore();
  const token = createPersonalToken(store, "laptop", 1000);
  let now = 1_700_000_000_000;
  const warnings: string[] = [];
  const log: Logger = { ...silentLogger, warn: (message) => void warnings.push(message) };
  const housekeeper = new Housekeeper(store, log, () => now);
  const verifier = createTokenVerifier(store, [personalTokenKind(store)], () => now);
  housekeeper.maybeSweep();
  expect(verifier.verify(token)?.clientId).toBe("pat:laptop");
  expect(listPersonalTokens(store)[0]?.lastUsedAt).toBe(now);
  now -= 86_400_000;
  // A sweep now shows it ran (a refused one is logged); then the usual period again.
  store.db.exec("PRAGMA query_only = ON");
  housekeeper.maybeSweep();
  expect(warnings).toEqual(["oauth housekeeping failed; it runs again later"]);
  now += SWEEP_EVERY_MS - 1;
  housekeeper.maybeSweep();
  expect(warnings).toHaveLength(1);
  store.db.exec("PRAGMA query_only = OFF");
  expect(verifier.verify(token)?.clientId).toBe("pat:laptop");
  expect(listPersonalTokens(store)[0]?.lastUsedAt).toBe(now);
});
