// After a command once run with sudo: our files and folders that root owns are found and named with the chown that mends them.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { foreignOwned } from "../../src/file-owner.ts";
import { databaseFiles } from "../../src/store/database.ts";
import { baseEnv, databaseOf, tempHomes } from "../support/daemon.ts";

const home = tempHomes();
const asRoot = process.getuid?.() === 0;
/** The user whose folders these are (the tests, as root, play both them and the sudo that went wrong). */
const OWNER = 4242;

const dropped: string[] = [];
afterAll(() => {
  for (const path of dropped) rmSync(path, { recursive: true, force: true });
});

/** A HOME of OWNER's holding a database folder; `rootMade` lists what root made in it (relative paths). */
function sudoAftermath(base: string, rootMade: string[]): string {
  const db = databaseOf(base);
  mkdirSync(join(base, ".local", "share", "hermes-mcp"), { recursive: true });
  writeFileSync(db, "");
  writeFileSync(`${db}-wal`, "");
  for (const path of [
    base,
    join(base, ".local"),
    join(base, ".local", "share"),
    join(base, ".local", "share", "hermes-mcp"),
    db,
    `${db}-wal`,
  ])
    chownSync(path, OWNER, OWNER);
  for (const path of rootMade) chownSync(join(base, path), 0, 0);
  return db;
}

describe("foreignOwned", () => {
  test("nothing to say for root", () => {
    expect(foreignOwned(databaseFiles(databaseOf(home())), 0)).toBeNull();
  });

  test.skipIf(asRoot)("nothing to say when every file of ours is ours: the folders above HOME (/tmp, /) are never blamed", () => {
    expect(foreignOwned(databaseFiles(databaseOf(home())))).toBeNull();
  });

  test.skipIf(!asRoot)("the folders above a user's HOME (root's /tmp, /var/tmp, /) are never blamed", () => {
    const base = mkdtempSync(join("/var/tmp", "hermes-mcp-above-"));
    dropped.push(base);
    const db = sudoAftermath(base, []);
    expect(foreignOwned(databaseFiles(db), OWNER)).toBeNull();
  });

  test.skipIf(!asRoot)("names the highest folder root made in ours, so one chown -R mends everything below it", () => {
    const base = home();
    const db = sudoAftermath(base, [".local", ".local/share", ".local/share/hermes-mcp"]);
    const found = foreignOwned(databaseFiles(db), OWNER);
    expect(found?.path).toBe(join(base, ".local"));
    expect(found?.owner).toBe(0);
    expect(found?.problem).toContain(`${join(base, ".local")} belongs to root (a command run with sudo made it, probably), not to you (`);
    expect(found?.fix).toMatch(new RegExp(`^give it back with \`sudo chown -R \\S+ ${join(base, ".local").replace(/[.]/g, "\\.")}\`$`));
    expect(foreignOwned(databaseFiles(db), OWNER)).toEqual(found);
  });

  test.skipIf(!asRoot)(
    "another's folder this user may still use (a volume made writable for all) is no problem; without walkUp only the file is judged",
    () => {
      const base = home();
      const db = sudoAftermath(base, [".local", ".local/share", ".local/share/hermes-mcp"]);
      for (const folder of [".local", ".local/share", ".local/share/hermes-mcp"]) chmodSync(join(base, folder), 0o777);
      expect(foreignOwned(databaseFiles(db), OWNER)).toBeNull();
      // A project's ./.env that root owns: without walkUp only the file itself is judged, never the project folder.
      const project = join(base, "project");
      mkdirSync(project);
      writeFileSync(join(project, ".env"), "", { mode: 0o600 });
      expect(foreignOwned([join(project, ".env")], OWNER, false)).toBeNull();
      expect(foreignOwned([join(project, ".env")], OWNER)?.path).toBe(project);
      chownSync(project, OWNER, OWNER);
      expect(foreignOwned([join(project, ".env")], OWNER, false)?.path).toBe(join(project, ".env"));
    },
  );

  test.skipIf(!asRoot)("a single file root made (the WAL) is named alone; all of OWNER's is nothing", () => {
    const base = home();
    const db = sudoAftermath(base, [".local/share/hermes-mcp/hermes-mcp.db-wal"]);
    expect(foreignOwned(databaseFiles(db), OWNER)?.path).toBe(`${db}-wal`);
    chownSync(`${db}-wal`, OWNER, OWNER);
    expect(foreignOwned(databaseFiles(db), OWNER)).toBeNull();
  });
});

// The command line as that user (setpriv drops root), bundled under /var/tmp, which every user may cross: a checkout
// under a private folder (/tmp is 0700 on some machines, CI's clone among them) may not be.
const canDrop = asRoot && Bun.which("setpriv") !== null;
const dropTo = ["setpriv", `--reuid=${OWNER}`, `--regid=${OWNER}`, "--clear-groups"];
let droppedCli: string[] = [];
if (canDrop) {
  const bundle = mkdtempSync(join("/var/tmp", "hermes-mcp-cli-"));
  dropped.push(bundle);
  chmodSync(bundle, 0o755);
  const built = await Bun.build({
    entrypoints: [join(import.meta.dir, "..", "..", "src", "cli", "index.ts")],
    target: "bun",
    outdir: bundle,
  });
  if (!built.success) throw new Error(`could not bundle the CLI: ${built.logs.join("\n")}`);
  droppedCli = [process.execPath, "--no-env-file", join(bundle, "index.js")];
}
test.skipIf(!canDrop)("token list and doctor name the root-made folder and the chown, not another HERMES_MCP_DB_PATH", async () => {
  const base = mkdtempSync(join("/var/tmp", "hermes-mcp-owner-"));
  dropped.push(base);
  sudoAftermath(base, [".local", ".local/share", ".local/share/hermes-mcp"]);
  // The env file `sudo hermes-mcp mint-client --write` left: root's, 0600, in OWNER's folder.
  const envFile = join(base, ".config", "hermes-mcp", "env");
  mkdirSync(join(base, ".config", "hermes-mcp"), { recursive: true });
  writeFileSync(envFile, "LOG_LEVEL=INFO\n", { mode: 0o600 });
  for (const path of [join(base, ".config"), join(base, ".config", "hermes-mcp")]) chownSync(path, OWNER, OWNER);
  const run = async (args: string[]) => {
    const proc = Bun.spawn([...dropTo, ...droppedCli, ...args], {
      cwd: base,
      env: baseEnv(base, { USER: "alice", HERMES_API_KEY: "k", BIND_PORT: "1" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code };
  };
  const list = await run(["token", "list"]);
  expect(list.code).toBe(1);
  expect(list.stderr).toContain(`${join(base, ".local")} belongs to root (a command run with sudo made it, probably), not to you (`);
  expect(list.stderr).toContain(`sudo chown -R`);
  expect(list.stderr).not.toContain("HERMES_MCP_DB_PATH");
  const doctor = await run(["doctor"]);
  expect(doctor.stdout).toContain(`✖ database ${databaseOf(base)} usable — ${join(base, ".local")} belongs to root`);
  expect(doctor.stdout).toContain(`⚠ ${envFile} could not be read: ${envFile} belongs to root`);
  // Mended, then a WAL root left readable beside a real database: not closed to us, but never ours to make private.
  for (const path of [".local", ".local/share", ".local/share/hermes-mcp"]) chownSync(join(base, path), OWNER, OWNER);
  rmSync(databaseOf(base));
  rmSync(`${databaseOf(base)}-wal`);
  expect((await run(["token", "create", "--name", "laptop"])).code).toBe(0);
  writeFileSync(`${databaseOf(base)}-wal`, "", { mode: 0o644 });
  writeFileSync(`${databaseOf(base)}-shm`, "", { mode: 0o644 });
  const wal = await run(["token", "list"]);
  expect(wal.code).toBe(1);
  expect(wal.stderr).toContain(`${databaseOf(base)}-wal belongs to root (a command run with sudo made it, probably), not to you (`);
  expect(wal.stderr).toContain("so hermes-mcp cannot make it private");
  // The env file's folder root made private: the file inside cannot even be seen, and that is said, not "no env file".
  chownSync(join(base, ".config", "hermes-mcp"), 0, 0);
  chmodSync(join(base, ".config", "hermes-mcp"), 0o700);
  const hidden = await run(["doctor"]);
  expect(hidden.stdout).toContain(`⚠ ${envFile} could not be read: ${join(base, ".config", "hermes-mcp")} belongs to root`);
  expect(hidden.stdout).not.toContain("no env file");
});
