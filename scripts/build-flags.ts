// The `bun build` flags of every release binary, shared with the bench's baselines so they are compiled alike.

/**
 * Bytecode for fast start-up; no `.env` or `bunfig.toml` read from wherever the binary is started; a JIT 500× more
 * reluctant while it starts (start-up code runs once: compiling it only costs memory — the daemon calls
 * Bun.unsafe.setJITPolicy(1) once it serves). 500× of the thresholds `serve` sets (src/cli/relaunch.ts, a tenth of
 * JavaScriptCore's defaults) is 50× the defaults: start-up compiles what it did before they were lowered.
 *
 * Split into chunks: a module imported lazily (a subcommand, serve's modules, the MCP SDK, doctor) is loaded from the
 * binary only when imported, not with the entry. One bundle had every start read all of it (the 1.1 MB bundle's
 * bytecode): twice for `serve`, whose first process only relaunches itself (src/cli/index.ts). Measured on a 2-core VM:
 * a lazily imported bundle delayed a tiny entry from 10 to 27 ms; serve's exec → /healthz 124–135 → 102–118 ms (medians
 * of two runs of 15 alternating starts).
 *
 * NODE_ENV pinned: `bun build` inlines process.env.NODE_ENV from the shell that builds, and a binary built with
 * NODE_ENV=test (any build run from `bun test`) had consola (through std-env) drop every info and success line of the
 * CLI — `token list` on an empty store said nothing, `token create` no "created". A release behaves the same whoever builds it.
 */
export const BUILD_FLAGS = [
  "--compile",
  "--minify",
  "--bytecode",
  "--format=esm",
  "--splitting",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--compile-jit-policy=500",
  '--define=process.env.NODE_ENV="production"',
] as const;
