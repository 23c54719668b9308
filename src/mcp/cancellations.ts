// Routes a client's notifications/cancelled to the sync call it names, even when it arrives on another stateless request.
import type { ToolDeps } from "./deps.ts";

/**
 * In stateless (2025-era) serving, `notifications/cancelled` is a separate POST answered by a fresh server instance
 * that never saw the request it cancels. This registry remembers which job each waiting sync call belongs to, keyed
 * by the caller (token principal) and its JSON-RPC request id, so the cancel still reaches the gateway.
 */
export class SyncCallRegistry {
  private readonly calls = new Map<string, string[]>();

  private static key(principal: string, requestId: string | number): string {
    return `${principal}\u0000${typeof requestId}:${requestId}`;
  }

  /** Records a waiting call; returns the function that forgets it. */
  register(principal: string, requestId: string | number, jobId: string): () => void {
    const key = SyncCallRegistry.key(principal, requestId);
    const jobs = this.calls.get(key) ?? [];
    jobs.push(jobId);
    this.calls.set(key, jobs);
    return () => {
      const current = this.calls.get(key)?.filter((id) => id !== jobId) ?? [];
      if (current.length === 0) this.calls.delete(key);
      else this.calls.set(key, current);
    };
  }

  /**
   * The job a cancel names, or null. Request ids are chosen by clients and two connections of one principal may
   * reuse an id at the same moment: when the id is ambiguous nothing is cancelled (never stop someone else's work).
   */
  find(principal: string, requestId: string | number): string | null {
    const jobs = this.calls.get(SyncCallRegistry.key(principal, requestId));
    return jobs && jobs.length === 1 ? (jobs[0] as string) : null;
  }
}

/**
 * A client's notifications/cancelled, from either lane: stops the sync call's job it names, else the messaging call
 * (MCP basic/utilities/cancellation). Only the caller's own calls can match: the registry is keyed by principal.
 */
export function cancelCall(deps: ToolDeps, principal: string, requestId: string | number): void {
  const jobId = deps.calls.find(principal, requestId);
  if (jobId) deps.jobs.stop(jobId, "client_disconnected", principal);
  else deps.messaging?.calls.cancel(principal, requestId);
}
