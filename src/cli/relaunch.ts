// serve and doctor re-execute themselves once, same PID, with the env file's runtime variables (and serve with SERVE_RUNTIME_OPTIONS).
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { parseDotenv } from "../config/dotenv.ts";
import { RUNTIME_VARIABLE } from "../config/runtime-variables.ts";
import { userPaths } from "../config/user-paths.ts";
import { GC_TIMER_OFF } from "../gc-pacing.ts";
import { writeStderr } from "./output.ts";

/** Bun hands BUN_JSC_* variables to JavaScriptCore as options when it starts; none can be changed afterwards. */
export const FTL_OPTION = "BUN_JSC_useFTLJIT";

/** The period of Bun's own GC timer: an owner who sets it keeps that timer on. */
const GC_TIMER_PERIOD = "BUN_GC_TIMER_INTERVAL";

/**
 * The runtime options `serve` starts with; a value the owner set is kept. FTL_OPTION also marks a process that has been
 * relaunched (or that the owner configured): it is never relaunched again.
 *
 * - No FTL (JavaScriptCore's top tier): an I/O-bound daemon gains nothing from it, and compiling with it on a 2-core
 *   machine takes CPU from the requests a cold daemon is answering (with the thresholds below: figures at the end).
 * - The baseline and optimising tiers 10× sooner (JavaScriptCore's defaults: 500 and 1,000). A daemon's request path
 *   runs once per request, so at the defaults it stays in the slower tiers for its first thousands of requests: a sync
 *   hermes_ask added 0.05–0.08 ms more over its first 800 calls (bench/latency.ts's loop on fresh daemons, alternating
 *   runs). Start-up code is unaffected: the release binary starts with the JIT policy scaled ×500
 *   (scripts/build-flags.ts) until it listens, then at IDLE_JIT_POLICY until it is first called, and again once quiet.
 * - Bun's own GC timer off (GC_TIMER_OFF). It asks for a collection every second while the heap changes and every
 *   30 s forever after, busy or not, each of which pages JavaScriptCore's collector back in after the code-page
 *   release; at start it also asks for one as the entry point begins to wait, whose pauses (≈ 4 ms) landed in the
 *   start. The daemon paces its collections itself while busy (src/gc-pacing.ts), and its idle collector gives memory
 *   back once quiet, as before. Measured on the compiled binary: idle RSS 18.0 → 14.2 MiB, after the memory bench's
 *   load 22.1 → 19.0 MiB (the ratio of the two rises, ×1.23 → ×1.34, because idle fell: what stays is the runtime's,
 *   anonymous +4.3 MiB as a bare Bun.serve's +4.3), an idle daemon's wake-ups 10.6–13.0 → 3.0 a second, start-up
 *   steps 45.7 → 41.0 and 44.0 → 40.5 ms (medians of 11 alternating starts); the load runs a draw. An owner who sets
 *   BUN_GC_TIMER_INTERVAL keeps Bun's timer (and then the daemon does not pace).
 *
 * What the relaunch costs and buys, measured together on the compiled binary (2-core VM): it adds 26 ms to every start
 * (exec → /healthz 106.6 ms, 80.5 without it; medians of 15 alternating starts). Without these options a cold daemon
 * under the bench's load (wrk, 50 connections, no warm-up) compiles its request path while it answers: tools/call
 * ×0.58 of the floor instead of ×0.635 (medians of 6 runs each, alternating), and its p99 under 5 ms in 1 run of 6
 * instead of 4 (tools/list: 3 of 6 instead of 5). Measured again once start-up had shed 15 ms elsewhere (schemas built
 * on first use): 88.3 ms with the relaunch, 65.7 without (15 alternating starts), but over three alternating bench
 * pairs without it a sync hermes_ask added p50 0.52–0.60 ms over a bare proxy's instead of 0.26–0.41, and p99 2.8–3.3
 * ms instead of 1.7–2.5; the load runs were a draw. Kept: the call figures are the ones users and clients feel.
 */
export const SERVE_RUNTIME_OPTIONS: Readonly<Record<string, string>> = {
  [FTL_OPTION]: "0",
  BUN_JSC_thresholdForJITAfterWarmUp: "50",
  BUN_JSC_thresholdForOptimizeAfterWarmUp: "100",
  [GC_TIMER_OFF]: "1",
};

/**
 * The JIT policy (a scale on those thresholds) from listening until the first /mcp request, and from each quiet spell
 * until the next: 10× more reluctant than JavaScriptCore's defaults. Compiling pages in the compilers' own machine code:
 * at the defaults (×10) one small function still reached the optimising tier while idle, and the idle RSS grew 1.8 MiB
 * (the binary's code mapping); at ×100 nothing does, and a daemon nobody has called yet idles as it did before the
 * thresholds were lowered.
 */
export const IDLE_JIT_POLICY = 100;

/** Bun's flags that start its sampling CPU profiler (on the command line or in BUN_OPTIONS, both in execArgv). */
const CPU_PROFILER_FLAG = /^--cpu-prof(?:-md)?$/;

/**
 * Re-executes this command once, same PID, with the env file's runtime variables that the environment lacks, and for
 * `serve` SERVE_RUNTIME_OPTIONS. Returns when there is nothing to add (already relaunched, or FTL_OPTION set by the owner,
 * who may set it to 1), on Windows or a runtime without execve, when execve fails (then it runs as started), and while
 * Bun's CPU profiler runs (saying what that leaves out).
 */
export function relaunchWithEnvironment(
  command: "serve" | "doctor",
  env: Record<string, string | undefined> = process.env,
  fromFiles: Record<string, string> = runtimeVariablesInFiles(env),
  execArgv: readonly string[] = process.execArgv,
): void {
  if (process.platform === "win32" || typeof process.execve !== "function") return;
  const added = Object.fromEntries(Object.entries(fromFiles).filter(([name]) => env[name] === undefined));
  // An owner who set the GC timer's period wants that timer: it stays on.
  const ownTimer = env[GC_TIMER_PERIOD] !== undefined || fromFiles[GC_TIMER_PERIOD] !== undefined;
  const options =
    command === "serve" && env[FTL_OPTION] === undefined
      ? Object.fromEntries(
          Object.entries(SERVE_RUNTIME_OPTIONS)
            .filter(([name]) => !(name === GC_TIMER_OFF && ownTimer))
            .map(([name, value]) => [name, env[name] ?? fromFiles[name] ?? value]),
        )
      : {};
  // What the relaunch would add (a runtime option the environment already sets is kept, not added).
  const adding = [...Object.keys(added), ...Object.keys(options).filter((name) => env[name] === undefined)];
  if (adding.length === 0) return;
  // The profiler suspends this thread with a signal (SIGPWR on Linux); one still pending at execve killed the new image
  // before Bun could handle it ("Power failure": the compiled binary's serve, every time at --cpu-prof-interval=250).
  if (execArgv.some((flag) => CPU_PROFILER_FLAG.test(flag))) {
    writeStderr(
      `hermes-mcp: the CPU profiler is on, so ${command} runs as started, without ${adding.join(", ")} (set them in the environment to profile with them)\n`,
    );
    return;
  }
  // A compiled binary's argv[1] is its embedded entry (/$bunfs/…), which Bun adds back itself; from source it is the script.
  const compiled = process.argv[1]?.startsWith("/$bunfs/") === true;
  const args = compiled ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  try {
    process.execve(process.execPath, [process.execPath, ...args], { ...env, ...added, ...options });
  } catch {
    // Carry on as we are: the JIT defaults cost memory after load and a little latency early on, nothing else.
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
