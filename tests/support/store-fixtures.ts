// Throwaway database paths (removed after each test) and a minimal new job, for tests of the store itself.
import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A function giving a fresh database path per call; every folder it made is removed after each test. */
export function tempDbPaths(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `hermes-mcp-${prefix}-`));
    dirs.push(dir);
    return join(dir, "hermes-mcp.db");
  };
}

/** A pending async job of `principal`, as JobStore.insert takes it. */
export const newJob = (id: string, principal: string) => ({
  id,
  principal,
  mode: "async" as const,
  promptChars: 5,
  sessionLabel: null,
  createdAt: 1000,
});
