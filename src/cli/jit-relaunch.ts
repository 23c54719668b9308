// `serve` runs with JavaScriptCore's top JIT tier (FTL) off: it re-executes itself once, same PID, with the option set.

/** Bun hands BUN_JSC_* variables to JavaScriptCore as options when it starts; none can be changed afterwards. */
export const FTL_OPTION = "BUN_JSC_useFTLJIT";

/**
 * Why: measured on the compiled binary (bench/RESULTS.md's load, then idle), FTL adds no throughput to this I/O-bound
 * daemon (tools/call ×0.54 of the floor with it and without it) while its compiler's machine code, paged in by the
 * first hot loop, stays resident: idle RSS after the benchmark's load 60.7 MiB with FTL, 58.5 without. The interpreter,
 * baseline and DFG tiers are untouched.
 *
 * Returns only when no relaunch happens: the option is already set (by us, or by the owner, who may set it to 1),
 * Windows or a runtime without execve, or execve failed (then serve simply runs with FTL).
 */
export function relaunchWithoutFtl(env: Record<string, string | undefined> = process.env): void {
  if (env[FTL_OPTION] !== undefined || process.platform === "win32" || typeof process.execve !== "function") return;
  // A compiled binary's argv[1] is its embedded entry (/$bunfs/…), which Bun adds back itself; from source it is the script.
  const compiled = process.argv[1]?.startsWith("/$bunfs/") === true;
  const args = compiled ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  try {
    process.execve(process.execPath, [process.execPath, ...args], { ...env, [FTL_OPTION]: "0" });
  } catch {
    // Carry on as we are: FTL on costs memory after load, nothing else.
  }
}
