// Our files and folders that another user owns (root, after a command run with sudo): found, and named with the way back.
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { loginName } from "./login-name.ts";
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

/**
 * Whether user `uid`, who does not own `path`, may read and write it (and enter it, for a folder): by its group's bits
 * when `uid` is this process's and in its group, else by everyone's (ACLs aside).
 */
function usable(path: string, uid: number): boolean {
  try {
    const stat = statSync(path);
    const need = stat.isDirectory() ? 0o7 : 0o6;
    // The primary group counts too: getgroups() may leave it out (setpriv --clear-groups, some containers).
    const groups = uid === process.getuid?.() ? [process.getegid?.(), ...(process.getgroups?.() ?? [])] : [];
    const bits = groups.includes(stat.gid) ? (stat.mode >> 3) & 0o7 : stat.mode & 0o7;
    return (bits & need) === need;
  } catch {
    return false;
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
 * The first of `paths` (or, with `walkUp`, a folder above one) that belongs to another user, sits in a folder of this
 * user's, and is closed to this user: what a command run as root made among our files. One another user owns that we
 * may still use (a container's volume made group-writable) is no problem. Null when there is none, or we are root.
 */
export function foreignOwned(paths: readonly string[], uid = process.getuid?.(), walkUp = true): ForeignOwned | null {
  if (uid === undefined || uid === 0) return null;
  for (const start of paths) {
    for (let current = start; dirname(current) !== current; current = dirname(current)) {
      const owner = ownerOf(current);
      if (owner === uid) break;
      const blamed = owner !== null && ownerOf(dirname(current)) === uid && !usable(current, uid);
      if (!blamed) {
        if (!walkUp) break;
        continue;
      }
      return describeForeign(current, owner, uid);
    }
  }
  return null;
}

/** `path`, owned by `owner`, told as another's that user `uid` cannot use, with the chown that gives it back. */
export function describeForeign(path: string, owner: number, uid: number, cannot = "use it"): ForeignOwned {
  const me = loginName(uid);
  const whose = owner === 0 ? "root (a command run with sudo made it, probably)" : `the user with uid ${owner}`;
  return {
    path,
    owner,
    problem: `${path} belongs to ${whose}, not to you (${me}), so hermes-mcp cannot ${cannot}`,
    fix: `give it back with \`sudo chown -R ${shellWord(me)} ${shellWord(path)}\``,
  };
}
