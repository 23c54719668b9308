// serve and doctor re-execute themselves once, same PID, when the env file holds runtime variables the environment lacks.
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { parseDotenv } from "../config/dotenv.ts";
import { RUNTIME_VARIABLE } from "../config/runtime-variables.ts";
import { userPaths } from "../config/user-paths.ts";

/**
 * Re-executes this command once, same PID, with the env file's runtime variables that the environment lacks: Bun reads
 * these (a CA file, a proxy, TZ, BUN_JSC_* options) only as the process starts. Returns when there is nothing to add
 * (the usual case, and always once relaunched), on Windows or a runtime without execve, or when execve fails (then it
 * runs as started).
 *
 * `serve` once relaunched itself on every start to set JavaScriptCore options (no FTL, tier-up 10× sooner). Measured on
 * the compiled binary, on a 2-core VM: the relaunch cost 26 ms of every start (exec → /healthz 106.6 → 80.5 ms, medians
 * of 15 alternating starts), while FTL made no difference to the idle RSS after the memory bench's load (23.5 MiB with
 * it, 23.3 without) and the earlier tier-up only to a fresh daemon's first thousand calls (a sync hermes_ask's added p50
 * ×1.48 of a bare proxy's over calls 200–1,200, ×1.65 at the defaults; over calls 200–6,200, ×1.52 and ×1.48). An owner
 * who wants them sets them in the env file or the unit, as any runtime variable.
 */
export function relaunchWithEnvironment(
  env: Record<string, string | undefined> = process.env,
  fromFiles: Record<string, string> = runtimeVariablesInFiles(env),
): void {
  if (process.platform === "win32" || typeof process.execve !== "function") return;
  const added = Object.fromEntries(Object.entries(fromFiles).filter(([name]) => env[name] === undefined));
  if (Object.keys(added).length === 0) return;
  // A compiled binary's argv[1] is its embedded entry (/$bunfs/…), which Bun adds back itself; from source it is the script.
  const compiled = process.argv[1]?.startsWith("/$bunfs/") === true;
  const args = compiled ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  try {
    process.execve(process.execPath, [process.execPath, ...args], { ...env, ...added });
  } catch {
    // Carry on as we are: config names the env file's problem, if it has one, right after.
  }
}

/**
 * The runtime variables the user's env file holds (RUNTIME_VARIABLE), if that file is this user's and no one else may
 * write it. Threat: another local user writing a group- or world-writable env file (or one another user owns) to set
 * HTTPS_PROXY or NODE_EXTRA_CA_CERTS and read the gateway key in transit; doctor names such a file.
 */
function runtimeVariablesInFiles(env: Record<string, string | undefined>): Record<string, string> {
  let text: string;
  try {
    const fd = openSync(userPaths(env).userEnvFile, "r");
    try {
      const { uid, mode } = fstatSync(fd);
      if (uid !== process.getuid?.() || mode & 0o022) return {};
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return {}; // no file, or unreadable: config loading names the problem right after
  }
  return Object.fromEntries(Object.entries(parseDotenv(text).values).filter(([name]) => RUNTIME_VARIABLE.test(name)));
}
