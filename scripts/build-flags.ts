// The `bun build` flags of every release binary, shared with the bench's baselines so they are compiled alike.

/**
 * Bytecode for fast start-up; no `.env` or `bunfig.toml` read from wherever the binary is started; a JIT 50× more
 * reluctant while it starts (start-up code runs once: compiling it only costs memory — the daemon calls
 * Bun.unsafe.setJITPolicy(1) once it serves).
 */
export const BUILD_FLAGS = [
  "--compile",
  "--minify",
  "--bytecode",
  "--format=esm",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--compile-jit-policy=50",
] as const;
