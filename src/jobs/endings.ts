// Why a job stopped before finishing on its own, and the status and message each reason records.
export const STOP_REASONS = [
  "cancelled",
  "task_cancelled",
  "owner_cancelled",
  "reset",
  "client_disconnected",
  "timeout",
  "shutdown",
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const isStopReason = (value: unknown): value is StopReason => (STOP_REASONS as readonly unknown[]).includes(value);

const INTERRUPTED =
  "the gateway request was closed, which makes Hermes interrupt the agent; steps it had already taken (messages sent, files written) are not undone";

/** The terminal status and user-facing error a stop reason records on the job. */
export function describeStop(reason: StopReason, timeoutSeconds: number): { status: "cancelled" | "failed"; error: string } {
  switch (reason) {
    case "cancelled":
      return { status: "cancelled", error: `cancelled by hermes_cancel; ${INTERRUPTED}` };
    case "task_cancelled":
      return { status: "cancelled", error: `cancelled by tasks/cancel; ${INTERRUPTED}` };
    case "owner_cancelled":
      return { status: "cancelled", error: `cancelled by the owner of hermes-mcp (hermes-mcp jobs cancel); ${INTERRUPTED}` };
    case "reset":
      return { status: "cancelled", error: `cleared by hermes_reset; ${INTERRUPTED}` };
    case "client_disconnected":
      return { status: "cancelled", error: `the client cancelled or disconnected from the call; ${INTERRUPTED}` };
    case "timeout":
      return { status: "failed", error: `no answer from Hermes within ${timeoutSeconds} s; ${INTERRUPTED}` };
    case "shutdown":
      return {
        status: "failed",
        error: `hermes-mcp shut down mid-job; ${INTERRUPTED}. Ask Hermes what it finished before running it again`,
      };
  }
}

/** Recorded on jobs that were pending or running when the previous process died (never re-run: side effects may have happened). */
export const RESTART_ERROR =
  "hermes-mcp restarted while this job was in progress; Hermes may have finished some or all of the work — check with Hermes (or your email, calendar, files) before running it again";
