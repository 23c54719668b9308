// The database's safety as the owner meets it: `backup` while serve runs, `restore` after a loss, and the file deleted or replaced under serve.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { restoreDatabase } from "../../src/store/backup.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { askOverHttp } from "../support/mcp-client.ts";
import { createToken, databaseOf, runCli, startTestDaemon, tempHomes } from "../support/daemon.ts";
import { fakeGatewayForFile } from "../support/gateway-per-file.ts";

const { env } = fakeGatewayForFile();
const home = tempHomes();

const folderOf = (h: string): string => dirname(databaseOf(h));
const count = (path: string, table: string): number => {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? -1;
  } finally {
    db.close();
  }
};

test("a backup taken while serve runs holds what was just written; restore refuses while serve runs, then puts it back", async () => {
  const h = home();
  const before = await createToken(h, "before", env());
  const daemon = await startTestDaemon({ home: h, env: env() });
  const backup = join(h, "backups", "monday.db");
  mkdirSync(join(h, "backups"));
  try {
    expect((await askOverHttp(daemon.url, before)).text).toContain('"status":"completed"');
    const taken = await runCli(["backup", "backups/monday.db"], { home: h, env: env() });
    expect(taken.code).toBe(0);
    expect(taken.stderr).toContain(`Backed up ${databaseOf(h)} to ${backup} (`);
    expect(taken.stderr).toContain("schema 7, 1 job, 0 apps, 1 personal token, 0 signed-in connections");
    expect(taken.stderr).toContain(`hermes-mcp restore ${backup}`);
    // Private from its first byte: token hashes and job results.
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(count(backup, "jobs")).toBe(1);
    // A second backup never replaces the first.
    const again = await runCli(["backup", backup], { home: h, env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists: name a new file");
    // Restoring under a running daemon would pull its database from under it.
    const dbBytes = readFileSync(databaseOf(h));
    const refused = await runCli(["restore", backup], { home: h, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("hermes-mcp is already running on this database (pid");
    expect(refused.stderr).toContain("Nothing was changed: stop it first");
    expect(readFileSync(databaseOf(h)).equals(dbBytes)).toBe(true);
  } finally {
    await daemon.stop();
  }
  // After the backup: a token the backup cannot know.
  const after = await createToken(h, "after", env());
  const restored = await runCli(["restore", "~/backups/monday.db"], { home: h, env: env() });
  expect(restored.code).toBe(0);
  expect(restored.stderr).toContain(`Restored ${backup} into ${databaseOf(h)} (`);
  const aside = readdirSync(folderOf(h)).find((name) => name.includes(".before-restore-"));
  expect(aside).toMatch(/^hermes-mcp\.db\.before-restore-\d{8}T\d{6}Z$/);
  expect(restored.stderr).toContain(`kept at ${join(folderOf(h), aside as string)}`);
  // The replaced database is kept whole: both tokens are in it.
  expect(count(join(folderOf(h), aside as string), "personal_tokens")).toBe(2);
  const restarted = await startTestDaemon({ home: h, env: env() });
  try {
    expect((await askOverHttp(restarted.url, before)).text).toContain('"status":"completed"');
    expect((await askOverHttp(restarted.url, after)).status).toBe(401);
  } finally {
    await restarted.stop();
  }
  // Changed their mind: the database kept aside (in WAL mode, as serve left it) goes back the same way, and reading it
  // left no -wal or -shm file beside it.
  await Bun.sleep(1100);
  const undone = await runCli(["restore", join(folderOf(h), aside as string)], { home: h, env: env() });
  expect(undone.code).toBe(0);
  expect(undone.stderr).toContain("2 personal tokens");
  expect(readdirSync(folderOf(h)).filter((n) => /-(wal|shm)$/.test(n))).toEqual([]);
});

test("restore refuses what is no hermes-mcp backup and changes nothing; a damaged database is replaced and kept aside", async () => {
  const h = home();
  await createToken(h, "mine", env());
  const path = databaseOf(h);
  const original = readFileSync(path);
  const foreign = join(h, "state.db");
  const other = new Database(foreign);
  other.exec("CREATE TABLE sessions (id TEXT)");
  other.close();
  const newer = join(h, "newer.db");
  const later = new Database(newer);
  later.exec("CREATE TABLE jobs (id TEXT); PRAGMA user_version = 999");
  later.close();
  const text = join(h, "notes.db");
  writeFileSync(text, "x".repeat(4096));
  // Sound and at an older schema, so it passes every check, but its upgrade fails (a table the next step creates is
  // already there): the copy is upgraded before anything is moved, so the database in place is untouched.
  const unupgradable = join(h, "odd.db");
  const odd = new Database(unupgradable);
  for (const sql of MIGRATIONS.slice(0, 3)) odd.exec(sql);
  odd.exec("CREATE TABLE oauth_grants_v4 (id TEXT); PRAGMA user_version = 3");
  odd.close();
  const cases: [string, string][] = [
    [foreign, "holds another program's tables and no hermes-mcp schema, so hermes-mcp leaves it alone: it is no hermes-mcp backup"],
    [newer, "was written by a newer hermes-mcp (schema 999, this binary knows 7): restore it with that hermes-mcp"],
    [text, "is not a database hermes-mcp can read"],
    [join(h, "missing.db"), "missing.db does not exist"],
    [path, "is the database itself"],
    [unupgradable, `the backup ${unupgradable} could not be made ready (`],
  ];
  for (const [file, message] of cases) {
    const result = await runCli(["restore", file], { home: h, env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain("nothing was changed");
  }
  expect(readFileSync(path).equals(original)).toBe(true);
  expect(readdirSync(folderOf(h)).filter((n) => /before-restore|restoring/.test(n))).toEqual([]);

  // A backup an older hermes-mcp wrote is upgraded as it is put back; the damaged database it replaces is kept.
  const old = join(h, "old.db");
  const db = new Database(old);
  for (const sql of MIGRATIONS.slice(0, 3)) db.exec(sql);
  db.exec("PRAGMA user_version = 3");
  db.query("INSERT INTO personal_tokens (name, token_hash, created_at) VALUES ('old', 'h', 1)").run();
  db.close();
  writeFileSync(path, "damaged".repeat(1000));
  const restored = await runCli(["restore", old], { home: h, env: env() });
  expect(restored.code).toBe(0);
  expect(restored.stderr).toContain(
    `schema 3, 0 jobs, 0 apps, 1 personal token, 0 signed-in connections; upgraded to schema ${MIGRATIONS.length}`,
  );
  const listed = await runCli(["token", "list"], { home: h, env: env() });
  expect(listed.stdout).toContain("old");
  const aside = readdirSync(folderOf(h)).find((n) => n.includes("before-restore"));
  expect(readFileSync(join(folderOf(h), aside as string), "utf8")).toStartWith("damaged");
});

test("restore refuses while another program has the database open (its next write would land in the file moved aside)", async () => {
  const h = home();
  await createToken(h, "mine", env());
  const backup = join(h, "b.db");
  expect((await runCli(["backup", backup], { home: h, env: env() })).code).toBe(0);
  // An sqlite3 shell left open on the database, idle.
  const shell = new Database(databaseOf(h));
  shell.query("SELECT count(*) FROM jobs").get();
  const original = readFileSync(databaseOf(h));
  try {
    const refused = await runCli(["restore", backup], { home: h, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `another program has ${databaseOf(h)} open (an sqlite3 shell, or a hermes-mcp command still running): close it, then restore; nothing was changed`,
    );
    expect(readFileSync(databaseOf(h)).equals(original)).toBe(true);
    expect(readdirSync(folderOf(h)).filter((n) => /before-restore|restoring/.test(n))).toEqual([]);
  } finally {
    shell.close();
  }
  // Closed, it goes ahead.
  expect((await runCli(["restore", backup], { home: h, env: env() })).code).toBe(0);
});

test("restore also refuses a program that opened the database while the backup was being copied (the copy can take seconds)", async () => {
  const h = home();
  await createToken(h, "mine", env());
  const backup = join(h, "b.db");
  expect((await runCli(["backup", backup], { home: h, env: env() })).code).toBe(0);
  const original = readFileSync(databaseOf(h));
  let shell: Database | null = null;
  try {
    expect(() =>
      restoreDatabase(databaseOf(h), backup, new Date(), () => {
        // An sqlite3 shell opened once the first check had passed, during the copy.
        shell = new Database(databaseOf(h));
        shell.query("SELECT count(*) FROM jobs").get();
      }),
    ).toThrow(
      `another program has ${databaseOf(h)} open (an sqlite3 shell, or a hermes-mcp command still running): close it, then restore`,
    );
    // Nothing moved, and the prepared copy is gone.
    expect(readFileSync(databaseOf(h)).equals(original)).toBe(true);
    expect(readdirSync(folderOf(h)).filter((n) => /before-restore|restoring/.test(n))).toEqual([]);
  } finally {
    (shell as Database | null)?.close();
  }
});

test("backup says what is wrong and writes nothing: no database yet, a folder that does not exist", async () => {
  const h = home();
  const none = await runCli(["backup", "b.db"], { home: h, env: env() });
  expect(none.code).toBe(1);
  expect(none.stderr).toContain("there is no database at");
  expect(none.stderr).toContain("nothing was written");
  await createToken(h, "mine", env());
  const nowhere = await runCli(["backup", join(h, "no", "such", "b.db")], { home: h, env: env() });
  expect(nowhere.code).toBe(1);
  expect(nowhere.stderr).toContain(`the folder ${join(h, "no", "such")} does not exist: create it first`);
  expect(readdirSync(h).filter((n) => n.endsWith(".db"))).toEqual([]);
  // A trailing slash names a folder, as it does to cp: never a file called `nightly` the next run would refuse to replace.
  const slash = await runCli(["backup", "nightly/"], { home: h, env: env() });
  expect(slash.code).toBe(1);
  expect(slash.stderr).toContain(`the folder ${join(h, "nightly")} does not exist: create it first; nothing was written`);
  expect(readdirSync(h)).not.toContain("nightly");
  const blank = await runCli(["backup", ""], { home: h, env: env() });
  expect(blank.code).toBe(1);
  expect(blank.stderr).toContain("name the file to write");
  expect(readdirSync(h).filter((n) => n.endsWith(".db"))).toEqual([]);
});

test("backup into a folder writes a new dated file there, as cp would (a daily cron line needs no date)", async () => {
  const h = home();
  await createToken(h, "mine", env());
  mkdirSync(join(h, "my backups"));
  const taken = await runCli(["backup", "~/my backups/"], { home: h, env: env() });
  expect(taken.code, taken.stderr).toBe(0);
  const written = readdirSync(join(h, "my backups"));
  expect(written).toEqual([expect.stringMatching(/^hermes-mcp-\d{8}T\d{6}Z\.db$/)]);
  expect(taken.stderr).toContain(`to ${join(h, "my backups", written[0] as string)} (`);
  expect(statSync(join(h, "my backups", written[0] as string)).mode & 0o777).toBe(0o600);
  expect(count(join(h, "my backups", written[0] as string), "personal_tokens")).toBe(1);
  // restore wants the file: the folder is refused, naming the newest dated copy in it.
  const dbBytes = readFileSync(databaseOf(h));
  const folder = await runCli(["restore", "~/my backups"], { home: h, env: env() });
  expect(folder.code).toBe(1);
  expect(folder.stderr).toContain(
    `${join(h, "my backups")} is a folder: name the backup file in it, e.g. hermes-mcp restore '${join(h, "my backups", written[0] as string)}' (the newest there); nothing was changed`,
  );
  expect((await runCli(["restore", " "], { home: h, env: env() })).stderr).toContain("name the backup file to restore");
  expect(readFileSync(databaseOf(h)).equals(dbBytes)).toBe(true);
});

/** Waits for the daemon to exit on its own (it looks once quiet, 5 s after its last request); its status, or null. */
async function exitWithin(proc: { exited: Promise<number> }, ms: number): Promise<number | null> {
  return Promise.race([proc.exited, Bun.sleep(ms).then(() => null)]);
}

test("deleted under serve: it saves what it still holds, says how to get it back, and exits 1 so a supervisor restarts it", async () => {
  const h = home();
  await createToken(h, "laptop", env());
  const daemon = await startTestDaemon({ home: h, env: env() });
  try {
    // A token made while it runs lives only in this database.
    await createToken(h, "phone", env());
    rmSync(databaseOf(h));
    const status = await exitWithin(daemon.proc, 15_000);
    expect(status).toBe(1);
    const saved = readdirSync(folderOf(h)).find((name) => /^hermes-mcp\.db\.deleted-\d{8}T\d{6}Z$/.test(name));
    expect(saved).toBeDefined();
    const path = join(folderOf(h), saved as string);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const db = new Database(path, { readonly: true });
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM personal_tokens").get()?.n).toBe(2);
    db.close();
    expect(daemon.logs()).toContain(`the database file ${databaseOf(h)} was deleted while hermes-mcp ran: stopping`);
    expect(daemon.logs()).toContain(`hermes-mcp restore ${path}`);
    // The way back it names works.
    const restored = await runCli(["restore", path], { home: h, env: env() });
    expect(restored.code).toBe(0);
    expect(restored.stderr).toContain("2 personal tokens");
  } finally {
    daemon.proc.kill("SIGKILL");
  }
}, 30_000);

test("replaced under serve (a file moved over it): the same, and the next start uses the new file", async () => {
  const h = home();
  await createToken(h, "laptop", env());
  const other = join(h, "other.db");
  const backup = await runCli(["backup", other], { home: h, env: env() });
  expect(backup.code).toBe(0);
  const daemon = await startTestDaemon({ home: h, env: env() });
  try {
    renameSync(other, databaseOf(h));
    expect(await exitWithin(daemon.proc, 15_000)).toBe(1);
    expect(daemon.logs()).toContain("was replaced while hermes-mcp ran: stopping");
    expect(readdirSync(folderOf(h)).some((name) => name.startsWith("hermes-mcp.db.replaced-"))).toBe(true);
  } finally {
    daemon.proc.kill("SIGKILL");
  }
  const next = await startTestDaemon({ home: h, env: env() });
  try {
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
    // Quiet again and the file unchanged: it stays up.
    expect(await exitWithin(next.proc, 7_000)).toBeNull();
  } finally {
    await next.stop();
  }
}, 40_000);
