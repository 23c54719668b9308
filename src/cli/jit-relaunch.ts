// `serve` runs with JavaScriptCore tuned for a long-lived I/O daemon (FTL off, earlier JIT tiers sooner): it re-executes itself once, same PID, with the options set.

/** Bun hands BUN_JSC_* variables to JavaScriptCore as options when it starts; none can be changed afterwards. */
export const FTL_OPTION = "BUN_JSC_useFTLJIT";

/**
 * What `serve` sets, each only where the owner has not set it already (the owner's value wins). Measured on the
 * compiled binary with the benchmark's load (bench/RESULTS.md):
 * - FTL (the top tier) off: it adds no throughput to this I/O-bound daemon (tools/call ×0.54 of the floor with it and
 *   without it) while its compiler's machine code, paged in by the first hot loop, stays resident: idle RSS after the
 *   load 60.7 MiB with FTL, 58.5 without.
 * - The baseline JIT after 50 executions instead of 500, the DFG after 100 instead of 1,000: a request path runs
 *   optimised after a few dozen calls rather than a few hundred, which a daemon serving a handful of calls an hour
 *   would otherwise hardly ever reach. Sync hermes_ask added latency p50 0.60 / 0.68 → 0.57 / 0.65 ms in alternating
 *   bench runs; idle RSS after load ×1.16–1.18 → ×1.11 of fresh idle (the hot code is compiled once, early, instead
 *   of recompiled through the tiers under load); fresh idle unchanged (start-up runs at the build's reluctant JIT
 *   policy either way).
 */
export const JIT_OPTIONS: Readonly<Record<string, string>> = {
  [FTL_OPTION]: "0",
  BUN_JSC_thresholdForJITAfterWarmUp: "50",
  BUN_JSC_thresholdForOptimizeAfterWarmUp: "100",
};

/**
 * Returns only when no relaunch happens: every option is already set (by us, or by the owner), Windows or a runtime
 * without execve, or execve failed (then serve simply runs with JavaScriptCore's defaults).
 */
export function relaunchWithJitOptions(env: Record<string, string | undefined> = process.env): void {
  const missing = Object.keys(JIT_OPTIONS).filter((name) => env[name] === undefined);
  if (missing.length === 0 || process.platform === "win32" || typeof process.execve !== "function") return;
  // A compiled binary's argv[1] is its embedded entry (/$bunfs/…), which Bun adds back itself; from source it is the script.
  const compiled = process.argv[1]?.startsWith("/$bunfs/") === true;
  const args = compiled ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  try {
    // Once only: the relaunched process finds every option set.
    process.execve(process.execPath, [process.execPath, ...args], {
      ...env,
      ...Object.fromEntries(missing.map((name) => [name, JIT_OPTIONS[name]])),
    });
  } catch {
    // Carry on as we are: the defaults cost memory after load and a little latency, nothing else.
  }
}
