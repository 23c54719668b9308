// The daemon lock on its own: exclusive while held, names its holder, free again once released; probing it creates nothing.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireDaemonLock, DaemonLockedError, runningDaemon } from "../../src/store/daemon-lock.ts";

const dirs: string[] = [];
const dbPath = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-lock-"));
  dirs.push(dir);
  return join(dir, "data", "hermes-mcp.db");
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("daemon lock", () => {
  test("a second holder is refused with the first one's pid and port, until the first releases", () => {
    const path = dbPath();
    const first = acquireDaemonLock(path, "127.0.0.1");
    expect(runningDaemon(path)).toMatchObject({ pid: process.pid, port: null });
    first.setAddress("127.0.0.1", 8765);
    let refusal: unknown;
    try {
      acquireDaemonLock(path, "127.0.0.1");
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DaemonLockedError);
    expect((refusal as Error).message).toBe(`hermes-mcp is already running on this database (pid ${process.pid}, port 8765)`);
    expect(runningDaemon(path)).toMatchObject({ pid: process.pid, host: "127.0.0.1", port: 8765 });

    first.release();
    expect(runningDaemon(path)).toBeNull();
    const again = acquireDaemonLock(path, "127.0.0.1");
    again.release();
  });

  test("the tunnel-probe key given with the address is read back by doctor's probe, in a record only its owner may read", () => {
    const path = dbPath();
    const lock = acquireDaemonLock(path, "127.0.0.1");
    expect(runningDaemon(path)).not.toHaveProperty("probe_key");
    lock.setAddress("127.0.0.1", 8765, "k".repeat(43));
    expect(runningDaemon(path)).toMatchObject({ port: 8765, probe_key: "k".repeat(43) });
    expect(statSync(`${path}.lock.json`).mode & 0o777).toBe(0o600);
    // A refusal names the holder by pid and port, never with its key.
    expect(() => acquireDaemonLock(path, "127.0.0.1")).toThrow(/^(?!.*k{43}).*pid \d+, port 8765/);
    lock.release();
    expect(runningDaemon(path)).toBeNull();
  });

  test("probing a database that has never been served creates nothing", () => {
    const path = dbPath();
    expect(runningDaemon(path)).toBeNull();
    expect(existsSync(join(path, ".."))).toBe(false);
  });

  test("a clean release removes the holder record and leaves only the empty lock file", () => {
    const path = dbPath();
    acquireDaemonLock(path, "127.0.0.1").release();
    expect(readdirSync(join(path, "..")).sort()).toEqual(["hermes-mcp.db.lock"]);
  });
});
