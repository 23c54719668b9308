// Throwaway database paths and a minimal new job, for tests of the store itself.
import { join } from "node:path";
import { tempHomes } from "./daemon.ts";

/** A function giving a fresh database path per call, each in its own throwaway folder (removed after the file's tests). */
export function tempDbPaths(): () => string {
  const home = tempHomes();
  return () => join(home(), "hermes-mcp.db");
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
