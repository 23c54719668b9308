// Session threading: a caller's session label → the gateway's effective X-Hermes-Session-Id, per principal.
import type { Database } from "bun:sqlite";

export class SessionStore {
  private readonly getStmt;
  private readonly putStmt;

  constructor(private readonly db: Database) {
    this.getStmt = db.query<{ gateway_session_id: string }, [string, string]>(
      "SELECT gateway_session_id FROM gateway_sessions WHERE principal = ? AND label = ?",
    );
    this.putStmt = db.query(
      `INSERT INTO gateway_sessions (principal, label, gateway_session_id, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (principal, label) DO UPDATE SET gateway_session_id = excluded.gateway_session_id, updated_at = excluded.updated_at
       WHERE excluded.updated_at >= gateway_sessions.updated_at`,
    );
  }

  /** The gateway id last seen for this label, or null for a label never used. */
  get(principal: string, label: string): string | null {
    return this.getStmt.get(principal, label)?.gateway_session_id ?? null;
  }

  /**
   * Records the id a turn ended on, dated when it ended: a later turn's id is never overwritten by an earlier one's
   * written late (a job ending held while the disk was full, written after a follow-up's).
   */
  put(principal: string, label: string, gatewaySessionId: string, at: number): void {
    this.putStmt.run(principal, label, gatewaySessionId, at);
  }

  /** Forgets every conversation of a principal (its token was revoked: nobody can continue them). */
  deleteFor(principal: string): number {
    return this.db.query("DELETE FROM gateway_sessions WHERE principal = ?").run(principal).changes;
  }
}
