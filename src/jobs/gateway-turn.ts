// One job's turn on the Hermes gateway: streams tool events and retries into progress, and turns the outcome into the job's ending.
import type { ChatRequest, ChatResult, GatewayEvent } from "../gateway/client.ts";
import { GatewayError } from "../gateway/errors.ts";
import type { JobEnd } from "../store/jobs.ts";
import type { JobEvent } from "./events.ts";
import type { ProgressTracker, ToolEvent } from "./progress.ts";

/** What the job runner needs from the gateway client (GatewayClient satisfies it; tests may pass a stand-in). */
export interface GatewayPort {
  chat(request: ChatRequest): Promise<ChatResult>;
}

/** A terminal state to record; the time is added when it is written. */
export type Ending = Omit<JobEnd, "finishedAt">;

export interface Turn {
  prompt: string;
  /** The gateway's own session id to continue, or null for a new conversation. */
  sessionId: string | null;
  timeoutMs: number;
  signal: AbortSignal;
  tracker: ProgressTracker;
  emit(event: JobEvent): void;
}

export interface TurnOutcome {
  ending: Ending;
  /** The session id the gateway answered on (to thread the next call of the same label). */
  sessionId: string | null;
}

/** Runs the turn; never throws: every failure becomes a failed ending with a sentence the caller can act on. */
export async function runTurn(gateway: GatewayPort, turn: Turn): Promise<TurnOutcome> {
  const { tracker } = turn;
  try {
    const result = await gateway.chat({
      prompt: turn.prompt,
      sessionId: turn.sessionId,
      timeoutMs: turn.timeoutMs,
      signal: turn.signal,
      onEvent: (event: GatewayEvent) => {
        if (event.type === "text") tracker.text(event.delta);
        else if (event.type === "tool") {
          const toolEvent: ToolEvent = {
            tool: event.tool,
            status: event.status,
            label: event.label,
            emoji: event.emoji,
            toolCallId: event.toolCallId,
          };
          turn.emit({ type: "tool", line: tracker.tool(toolEvent), event: toolEvent });
        }
      },
      onRetry: ({ status, waitMs }) => {
        const note = `gateway ${status === 429 ? "busy" : "draining"}; retrying in ${Math.ceil(waitMs / 1000)} s`;
        tracker.remark(note);
        turn.emit({ type: "retry", note });
      },
    });
    return { ending: { status: "completed", result: result.text, endReason: "completed" }, sessionId: result.sessionId };
  } catch (error) {
    const known = error instanceof GatewayError;
    return {
      ending: {
        status: "failed",
        error: known ? error.message : `internal error while talking to the gateway: ${(error as Error).message}`,
        partial: known ? (error.partialText ?? null) : null,
        endReason: known ? error.kind : "internal",
      },
      sessionId: null,
    };
  }
}
