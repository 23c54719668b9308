// The platforms a release ships for: our file names beside Bun's compile targets (install.sh picks among the same names).
import { existsSync } from "node:fs";

export interface ReleaseTarget {
  /** What `--version` reports, e.g. linux-x64-musl. */
  name: string;
  /** The file in dist/: hermes-mcp-<name>, with .exe on Windows. */
  file: string;
  /** Bun's `--target`. */
  bunTarget: string;
}

const target = (name: string, bunTarget: string, ext = ""): ReleaseTarget => ({ name, file: `hermes-mcp-${name}${ext}`, bunTarget });

export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  target("linux-x64", "bun-linux-x64"),
  target("linux-arm64", "bun-linux-arm64"),
  target("linux-x64-musl", "bun-linux-x64-musl"),
  target("linux-arm64-musl", "bun-linux-arm64-musl"),
  target("darwin-x64", "bun-darwin-x64"),
  target("darwin-arm64", "bun-darwin-arm64"),
  target("windows-x64", "bun-windows-x64", ".exe"),
];

/** This machine's target (musl when the loader says so, as install.sh decides), or null for a platform not shipped. */
export function hostTarget(): ReleaseTarget | null {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const musl = process.platform === "linux" && (existsSync("/lib/ld-musl-x86_64.so.1") || existsSync("/lib/ld-musl-aarch64.so.1"));
  const name = `${os}-${process.arch}${musl ? "-musl" : ""}`;
  return RELEASE_TARGETS.find((t) => t.name === name) ?? null;
}
