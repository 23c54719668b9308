// The owner's job lookups at the CLI: a whole id or a unique prefix of 4+ characters finds the job, a --status is read in any case; anything else says what to type.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findJob, parseStatus } from "../../src/jobs/admin.ts";
import { openStore } from "../../src/store/index.ts";

const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-admin-"));
const store = openStore(join(dir, "db.sqlite"));
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
const IDS = [
  "5f0c1a2b-0000-4000-8000-000000000001",
  "5f0c1a2b-0000-4000-8000-000000000002",
  "9e8d7c6b-0000-4000-8000-000000000003",
] as const;
for (const id of IDS) store.jobs.insert({ id, principal: "pat:a", mode: "async", promptChars: 3, sessionLabel: null, createdAt: 1000 });

const refusal = (id: string): string => {
  try {
    findJob(store, id);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${id} found a job`);
};

describe("findJob", () => {
  test("a whole id, a unique prefix of 4 or more characters, and either one upper-cased or padded", () => {
    expect(findJob(store, IDS[0]).id).toBe(IDS[0]);
    expect(findJob(store, "9e8d").id).toBe(IDS[2]);
    expect(findJob(store, " 9E8D7C6B ").id).toBe(IDS[2]);
    expect(findJob(store, IDS[1].toUpperCase()).id).toBe(IDS[1]);
  });

  test("a prefix two jobs share is refused, naming both, rather than one of them picked", () => {
    const message = refusal("5f0c1a2b");
    expect(message).toContain('more than one job starts with "5f0c1a2b"');
    expect(message).toContain(IDS[0]);
    expect(message).toContain(IDS[1]);
    expect(message).toContain("type more of the id");
  });

  test("a prefix under 4 characters says how much to type; an unknown id points at the list", () => {
    expect(refusal("9e8")).toContain("its first 4 or more characters");
    const unknown = refusal("0000-nothing");
    expect(unknown).toContain('no job "0000-nothing"');
    expect(unknown).toContain("hermes-mcp jobs list");
    expect(unknown).not.toContain("more than one");
  });
});

describe("parseStatus", () => {
  test("any case; a typo is named with the status meant", () => {
    expect(parseStatus(" Running ")).toBe("running");
    expect(() => parseStatus("runing")).toThrow('unknown status "runing" — did you mean running?: use one of pending, running,');
    expect(() => parseStatus("finished")).toThrow(/^unknown status "finished": use one of/);
  });
});
