// Recording a token's last use is bookkeeping: a database refusing that write must not refuse the caller.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPersonalToken, listPersonalTokens } from "../../src/oauth/personal-tokens.ts";
import { createTokenVerifier, personalTokenKind } from "../../src/oauth/verify.ts";
import { openStore } from "../../src/store/index.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

test("a token whose last use cannot be written is still accepted, and the failure is reported once a minute at most", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-touch-"));
  const store = openStore(join(dir, "db.sqlite"));
  cleanups.push(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
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
