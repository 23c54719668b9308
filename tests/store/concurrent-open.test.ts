// Opening one fresh database from several processes at once (the daemon starting beside `hermes-mcp token create`): every one succeeds, migrated once; 30 trials (two processes switching the file to WAL together got SQLITE_BUSY at once in about 1 trial in 75).
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { makeHome, removeHome } from "../support/daemon.ts";

const DATABASE = join(import.meta.dir, "..", "..", "src", "store", "database.ts");
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) removeHome(home);
});

/** A child process that opens `path` with the real openDatabase; resolves with its exit code and stderr. */
async function openInChild(path: string): Promise<{ code: number; stderr: string }> {
  const code = `const { openDatabase } = await import(${JSON.stringify(DATABASE)}); openDatabase(${JSON.stringify(path)}).db.close();`;
  const proc = Bun.spawn([process.execPath, "-e", code], { stdout: "ignore", stderr: "pipe" });
  const [stderr, exit] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { code: exit, stderr };
}

describe("several processes opening a fresh database", () => {
  test("six at once: all succeed and the schema is migrated exactly once (no 'table already exists')", async () => {
    for (let trial = 0; trial < 30; trial++) {
      const home = makeHome();
      homes.push(home);
      const path = join(home, "race.db");
      const results = await Promise.all(Array.from({ length: 6 }, () => openInChild(path)));
      expect(results.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
      const db = new Database(path, { readonly: true });
      const { user_version } = db.query<{ user_version: number }, []>("PRAGMA user_version").get() as { user_version: number };
      db.close();
      expect(user_version).toBeGreaterThan(0);
    }
  });
});
