// A command run as root by mistake (`sudo hermes-mcp …`): refused where it would lock the user out of their own files, named where it only uses root's.
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadConfig } from "../config/load.ts";
import { userPaths } from "../config/user-paths.ts";
import { nearestExisting } from "../file-owner.ts";
import { loginName } from "../login-name.ts";
import { sudoInvoker } from "./sudo-invoker.ts";

export interface RootVerdict {
  /** Why the command must not run (exit 1, nothing touched), or null. */
  refusal: string | null;
  /** A note to show before it runs, or null. */
  note: string | null;
}

/**
 * What to do about `command` run with user id `uid` (only root through sudo or doas gets a verdict). Threat: the owner locked out by their
 * own sudo. Root creating the database, its WAL or the env file inside another user's folders (sudo keeps HOME on
 * macOS, with -E, or with --preserve-env) leaves files that user's hermes-mcp can neither open nor read: refused.
 * With root's own folders (sudo's usual HOME=/root) the command works, on root's database, which a token or client
 * made there is no use for: said. A user service under sudo can reach no user's service manager: refused.
 */
export function rootVerdict(
  command: string,
  uid: number | undefined,
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): RootVerdict {
  const none: RootVerdict = { refusal: null, note: null };
  const invoker = sudoInvoker(uid, env);
  // Root by design (a system unit, a container) is left alone, whoever owns its folders.
  if (!invoker) return none;
  const { dataHome, userEnvFile } = userPaths(env);
  // The database as the command would find it: HERMES_MCP_DB_PATH from the environment or either env file, ~/ expanded.
  let dbPath = join(dataHome, "hermes-mcp", "hermes-mcp.db");
  try {
    dbPath = loadConfig({ env, cwd }).config.dbPath;
  } catch {
    // A bad setting: the command itself says so; its default place is judged meanwhile.
  }
  const places = [dirname(dbPath), dirname(userEnvFile)];
  for (const place of places) {
    // Past folders root already owns (an earlier sudo made them) to the first that is someone's: adding to a root-made
    // folder inside a user's is the same harm.
    let existing = nearestExisting(place);
    while (statSync(existing).uid === 0 && dirname(existing) !== existing) existing = dirname(existing);
    const owner = { path: existing, uid: statSync(existing).uid };
    if (owner.uid === 0) continue;
    // sudo says who called it by uid too, doas only by name: a folder of a third user's is named by its uid.
    const theirs = env.SUDO_UID === undefined ? loginName(owner.uid) === invoker : env.SUDO_UID === String(owner.uid);
    const who = theirs ? invoker : `the user with uid ${owner.uid}`;
    return {
      refusal:
        `hermes-mcp is running as root on ${owner.path}, which belongs to ${who}: what it created there would belong to ` +
        `root, and the hermes-mcp that ${who} runs could no longer open it. Nothing was changed. ` +
        (theirs ? `Run it as ${invoker}, without sudo.` : `Run it as that user (\`sudo -u '#${owner.uid}' hermes-mcp …\`).`),
      note: null,
    };
  }
  if (command === "service")
    return {
      refusal: `a user service belongs to the user who installs it, and sudo reaches no user's service manager. Nothing was changed. Run \`hermes-mcp service …\` as ${invoker}, without sudo.`,
      note: null,
    };
  return {
    refusal: null,
    note: `running as root through sudo: this uses root's settings (${userEnvFile}) and database (${dbPath}), not ${invoker}'s. To work with ${invoker}'s, run it without sudo.`,
  };
}
