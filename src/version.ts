// What this build is: the package version (inlined from package.json), and the commit and target a release build injects with `--define`.
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/* Replaced by `bun build --define` in scripts/release.ts; from source they are undeclared, which `typeof` tolerates. */
declare const HERMES_MCP_BUILD_COMMIT: string | undefined;
declare const HERMES_MCP_BUILD_TARGET: string | undefined;

/** The git commit a release was built from, or null when running from source. */
export const BUILD_COMMIT: string | null = typeof HERMES_MCP_BUILD_COMMIT === "string" ? HERMES_MCP_BUILD_COMMIT : null;
/** The platform a release was built for (`linux-x64-musl`, `darwin-arm64`, …), or null when running from source. */
export const BUILD_TARGET: string | null = typeof HERMES_MCP_BUILD_TARGET === "string" ? HERMES_MCP_BUILD_TARGET : null;

/** What `hermes-mcp --version` prints: `0.5.0 (commit 1a2b3c4, linux-x64)`, or `0.5.0 (from source)`. */
export function versionLine(): string {
  return BUILD_COMMIT === null || BUILD_TARGET === null
    ? `${VERSION} (from source)`
    : `${VERSION} (commit ${BUILD_COMMIT}, ${BUILD_TARGET})`;
}
