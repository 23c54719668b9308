// Another connection to a database, on a thread of its own, holding the write lock for a while.

/**
 * Takes the lock on the database at `path` and lets go `ms` later, from a worker thread: this thread may be blocked
 * inside SQLite's wait for it meanwhile, so it could not let go itself. Resolves once the lock is held, with a stop
 * for the worker (to run after the test).
 */
export async function lockedForAWhile(path: string, ms: number): Promise<() => void> {
  const source = `import { Database } from "bun:sqlite";
    self.onmessage = async () => {
      const db = new Database(${JSON.stringify(path)});
      db.exec("BEGIN IMMEDIATE");
      postMessage("held");
      await Bun.sleep(${ms});
      db.exec("ROLLBACK");
      db.close();
    };`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
  const held = new Promise<void>((resolve) => {
    worker.onmessage = () => resolve();
  });
  worker.postMessage("go");
  await held;
  return () => worker.terminate();
}
