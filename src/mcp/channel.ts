// A call's progress channel, built the same way for the SDK path and the fast lane: who calls, how to cancel, and one wording of progress notifications.
import type { Logger } from "../log.ts";

/** What a tool call needs from wherever it is served (the SDK's request context, or the fast lane's stream). */
export interface CallChannel {
  /** Who is calling (the token's principal). */
  principal: string;
  /** The JSON-RPC id of the call, for routing a later notifications/cancelled to it. */
  requestId: string | number;
  /** Aborted when the client cancels or goes away. */
  signal: AbortSignal;
  /**
   * Sends one line of progress: a progress notification when the caller gave a progressToken (clients reset their
   * timeout on them), else a log notification; both keep proxies from cutting an idle stream.
   */
  report(message: string): void;
}

export type ProgressNotification =
  | { method: "notifications/progress"; params: { progressToken: string | number; progress: number; message: string } }
  | { method: "notifications/message"; params: { level: "info"; logger: "hermes-mcp"; data: string } };

export interface CallIdentity {
  principal: string;
  requestId: string | number;
  signal: AbortSignal;
  progressToken?: string | number;
}

/** The channel of one call; `send` delivers a notification (and may reject when it cannot). */
export function callChannel(
  call: CallIdentity,
  send: (notification: ProgressNotification) => void | Promise<void>,
  log: Logger,
): CallChannel {
  let count = 0;
  const { progressToken, signal } = call;
  return {
    principal: call.principal,
    requestId: call.requestId,
    signal,
    report(message) {
      if (signal.aborted) return;
      const sent = send(
        progressToken !== undefined
          ? { method: "notifications/progress", params: { progressToken, progress: ++count, message } }
          : { method: "notifications/message", params: { level: "info", logger: "hermes-mcp", data: message } },
      );
      sent?.catch((error: unknown) => log.debug("progress notification not delivered", { error: (error as Error).message }));
    },
  };
}

/**
 * The channel of a call that answers at once (it never reports). The signal is asked for only if the tool reads it:
 * Bun builds a request's AbortSignal on first access, a cost an instant answer need not pay.
 */
export const instantChannel = (principal: string, requestId: string | number, signalOf: () => AbortSignal): CallChannel => ({
  principal,
  requestId,
  get signal() {
    return signalOf();
  },
  report() {},
});
