// Notices the database file being deleted or replaced under a running daemon (`rm`, or `mv` of another file over it).
import { statSync } from "node:fs";

export type FileChange = "deleted" | "replaced";

export interface FileIdentity {
  /** Whether the path still names the file opened at start: null while it does (one stat). */
  change(): FileChange | null;
}

/**
 * A daemon whose database was deleted keeps writing to a file nobody can open again, and a CLI command then creates a
 * new one the daemon never reads (a token made there is refused); one that was replaced keeps using the old file.
 */
export function fileIdentity(path: string): FileIdentity {
  if (path === ":memory:") return { change: () => null };
  const opened = statSync(path);
  return {
    change() {
      let now: ReturnType<typeof statSync>;
      try {
        now = statSync(path);
      } catch {
        return "deleted";
      }
      return now.ino === opened.ino && now.dev === opened.dev ? null : "replaced";
    },
  };
}
