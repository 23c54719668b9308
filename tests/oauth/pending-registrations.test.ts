// Registrations waiting for approval: bounded, evicted oldest-first but never while young enough that the owner may be approving one, gone within the hour.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import { PENDING_REGISTRATION_PROTECTED_MS, PENDING_REGISTRATION_TTL_MS } from "../../src/oauth/constants.ts";
import { Housekeeper } from "../../src/oauth/housekeeping.ts";
import { openStore, type Store } from "../../src/store/index.ts";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;

function freshStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-pending-"));
  dirs.push(dir);
  const store = openStore(join(dir, "hermes-mcp.db"));
  stores.push(store);
  return store;
}

const registerAt = (store: Store, clientId: string, at: number): void =>
  store.oauth.clients.upsert({
    clientId,
    kind: "registered",
    name: clientId,
    secretHash: null,
    authMethod: "none",
    redirectUris: ["https://app.example/cb"],
    createdAt: at,
    cachedUntil: null,
    principal: clientId,
  });

test("eviction takes the oldest pending registrations beyond the bound, never a young one, never an approved one", () => {
  const store = freshStore();
  const clients = store.oauth.clients;
  registerAt(store, "approved-old", T0);
  clients.markApproved("approved-old", T0 + 1);
  for (let i = 0; i < 5; i++) registerAt(store, `old-${i}`, T0 + i);
  const now = T0 + 30 * MINUTE;
  registerAt(store, "owner-young", now - MINUTE);
  registerAt(store, "young-2", now - 2 * MINUTE);
  // Keep 3: the two young ones are protected, so only old ones go — the oldest first.
  expect(clients.evictPendingRegistrations(3, now - PENDING_REGISTRATION_PROTECTED_MS, now)).toBe(4);
  expect(clients.get("old-4")).not.toBeNull();
  expect(clients.get("old-0")).toBeNull();
  // Keep 1: the young ones still stay (the count stays above the bound, and the endpoint refuses new ones instead).
  expect(clients.evictPendingRegistrations(1, now - PENDING_REGISTRATION_PROTECTED_MS, now)).toBe(1);
  expect(clients.countPendingRegistrations()).toBe(2);
  expect(clients.get("owner-young")).not.toBeNull();
  expect(clients.get("approved-old")).not.toBeNull();
});

test("a clock set back a day: registrations dated after it count as old, so a flood cannot shield itself (and lock out the owner's)", () => {
  const store = freshStore();
  const clients = store.oauth.clients;
  for (let i = 0; i < 4; i++) registerAt(store, `flood-${i}`, T0 + i);
  const now = T0 - 24 * 60 * MINUTE;
  registerAt(store, "owner-now", now);
  expect(clients.evictPendingRegistrations(1, now - PENDING_REGISTRATION_PROTECTED_MS, now)).toBe(4);
  expect(clients.get("owner-now")).not.toBeNull();
  // Housekeeping reads them alike.
  for (let i = 0; i < 2; i++) registerAt(store, `later-${i}`, T0 + i);
  const housekeeper = new Housekeeper(store, silentLogger, () => now);
  housekeeper.sweep();
  expect(clients.countPendingRegistrations()).toBe(1);
});

test("never-approved registrations expire within the hour; approved ones stay", () => {
  const store = freshStore();
  const clock = { now: T0 };
  registerAt(store, "pending", T0);
  registerAt(store, "approved", T0);
  store.oauth.clients.markApproved("approved", T0 + MINUTE);
  const housekeeper = new Housekeeper(store, silentLogger, () => clock.now);
  clock.now = T0 + PENDING_REGISTRATION_TTL_MS - MINUTE;
  housekeeper.sweep();
  expect(store.oauth.clients.get("pending")).not.toBeNull();
  clock.now = T0 + PENDING_REGISTRATION_TTL_MS + 1;
  housekeeper.sweep();
  expect(store.oauth.clients.get("pending")).toBeNull();
  expect(store.oauth.clients.get("approved")).not.toBeNull();
  expect(PENDING_REGISTRATION_TTL_MS).toBeLessThanOrEqual(3_600_000);
});

test("approval is remembered the first time only", () => {
  const store = freshStore();
  registerAt(store, "app", T0);
  store.oauth.clients.markApproved("app", T0 + 5);
  store.oauth.clients.markApproved("app", T0 + 9);
  expect(store.oauth.clients.get("app")?.approvedAt).toBe(T0 + 5);
});
