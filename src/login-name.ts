// A user's login name, for the commands we print (chown, loginctl) and the names we compare (sudo, doas).
import { readFileSync } from "node:fs";

/**
 * The login name of `uid` (this process's by default): its /etc/passwd line, else the account database through
 * `id -un` (LDAP and SSSD users, macOS's Directory Services), else, for this process's own user, $USER or $LOGNAME
 * (Bun's os.userInfo() only repeats $USER, which a container image or `su -m` can leave stale, so it comes last),
 * else the uid itself: chown and sudo -u take the number.
 */
export function loginName(uid: number | undefined = process.getuid?.()): string {
  if (uid === undefined) return process.env.USERNAME || process.env.USER || "you";
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((entry) => entry.split(":")[2] === String(uid));
    if (line) return line.split(":")[0] as string;
  } catch {
    // No passwd file: ask the account database.
  }
  try {
    const id = Bun.spawnSync(["id", "-un", String(uid)], { stdout: "pipe", stderr: "ignore" });
    const name = id.exitCode === 0 ? id.stdout.toString().trim() : "";
    if (name) return name;
  } catch {
    // No `id` on PATH.
  }
  const own = uid === process.getuid?.() ? process.env.USER || process.env.LOGNAME : undefined;
  return own || String(uid);
}
