// The stored-jobs caps: one per principal (one client filling its share never refuses another) and a backstop for all together.
import type { JobStore } from "../store/jobs.ts";
import { JobRefusedError } from "./refusal.ts";

export interface StoredJobCaps {
  /** Per principal (HERMES_MCP_MAX_STORED_JOBS). */
  perPrincipal: number;
  /** All principals together. */
  total: number;
}

/** Throws a refusal saying what to do when `principal` may not store one more job; reaps expired jobs first if near a cap. */
export function ensureRoom(jobs: JobStore, principal: string, caps: StoredJobCaps, reap: () => void): void {
  let counts = jobs.counts(principal);
  if (counts.mine >= caps.perPrincipal || counts.total >= caps.total) {
    reap();
    counts = jobs.counts(principal);
  }
  if (counts.mine >= caps.perPrincipal) {
    throw new JobRefusedError(
      `you already have ${caps.perPrincipal} stored jobs (the per-client limit, HERMES_MCP_MAX_STORED_JOBS) — call hermes_reset to clear yours, or wait for finished jobs to expire`,
    );
  }
  if (counts.total >= caps.total) {
    throw new JobRefusedError(
      `the job store is full (${caps.total} jobs across all clients) — wait for finished jobs to expire, or ask the owner to look with \`hermes-mcp jobs list\``,
    );
  }
}
