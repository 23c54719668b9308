// Our files and folders that another user owns (root, after a command run with sudo): found, and named with the way back.
import { existsSync, readFileSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname } from "node:path";
import { shellWord } from "./shell-word.ts";

/** `path` if it exists, else the nearest folder above it that does. */
export function nearestExisting(path: string): string {
  let current = path;
  while (!existsSync(current) && dirname(current) !== current) current = dirname(current);
  return current;
}

/** The uid owning `path`, or null when it cannot be seen (missing, or in a folder this user may not enter). */
function ownerOf(path: string): number | null {
  try {
    return statSync(path).uid;
  } catch {
    return null;
  }
}

export interface ForeignOwned {
  /** What to hand back: the highest of them inside a folder this user owns (so one `chown -R` mends all below it). */
  path: string;
  owner: number;
  /** What is wrong, naming the path and whose it is. */
  problem: string;
  /** The command that gives it back. */
  fix: string;
}

/**
 * The first of `paths` (or a folder above one) that belongs to another user while the folder holding it is this user's:
 * what a command run as root made among our files, leaving them closed to us. Null when there is none, or we are root.
 */
export function foreignOwned(paths: readonly string[], uid = process.getuid?.()): ForeignOwned | null {
  if (uid === undefined || uid === 0) return null;
  for (const start of paths) {
    for (let current = start; dirname(current) !== current; current = dirname(current)) {
      const owner = ownerOf(current);
      if (owner === uid) break;
      if (owner === null || ownerOf(dirname(current)) !== uid) continue;
      const me = userName(uid);
      const whose = owner === 0 ? "root (a command run with sudo made it, probably)" : `the user with uid ${owner}`;
      return {
        path: current,
        owner,
        problem: `${current} belongs to ${whose}, not to you (${me}), so hermes-mcp cannot use it`,
        fix: `give it back with \`sudo chown -R ${shellWord(me)} ${shellWord(current)}\``,
      };
    }
  }
  return null;
}

/** This user's login name for chown: Bun's userInfo() reads $USER ("unknown" without it), then /etc/passwd, else the uid. */
function userName(uid: number): string {
  const name = userInfo().username;
  if (name && name !== "unknown") return name;
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((entry) => entry.split(":")[2] === String(uid));
    if (line) return line.split(":")[0] as string;
  } catch {
    // No passwd file (a minimal container): chown takes the number.
  }
  return String(uid);
}
