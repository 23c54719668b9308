// Messaging on the MCP endpoint without the SDK: a caller's level, and cancels routed across stateless requests.
import type { AuthInfo } from "@modelcontextprotocol/server";
import { levelOfScopes, type MessagingLevel } from "../messaging/level.ts";
import type { MessagingService } from "../messaging/service.ts";
import type { ToolDeps } from "./deps.ts";

/**
 * Routes a client's notifications/cancelled to the messaging call it names (a long-polling hermes_events_wait), even
 * when it arrives on another stateless request; keyed by principal and request id, ambiguous ids cancel nothing.
 */
export class MessagingCallRegistry {
  private readonly calls = new Map<string, AbortController[]>();

  private static key(principal: string, requestId: string | number): string {
    return `${principal}\u0000${typeof requestId}:${requestId}`;
  }

  register(principal: string, requestId: string | number, controller: AbortController): () => void {
    const key = MessagingCallRegistry.key(principal, requestId);
    this.calls.set(key, [...(this.calls.get(key) ?? []), controller]);
    return () => {
      const rest = this.calls.get(key)?.filter((c) => c !== controller) ?? [];
      if (rest.length === 0) this.calls.delete(key);
      else this.calls.set(key, rest);
    };
  }

  /** Aborts the one call so named; false when there is none (or more than one). */
  cancel(principal: string, requestId: string | number): boolean {
    const calls = this.calls.get(MessagingCallRegistry.key(principal, requestId));
    if (!calls || calls.length !== 1) return false;
    calls[0]?.abort("cancelled by the client");
    return true;
  }
}

/** What the endpoint needs for messaging: the service, and the cancel registry. Absent when HERMES_MCP_MESSAGING is off. */
export interface MessagingDeps {
  service: MessagingService;
  calls: MessagingCallRegistry;
}

/**
 * The messaging level of a request: what its token was granted (OAuth scopes set by the token verifier — a
 * consent checkbox, OAUTH_STATIC_CLIENT_MESSAGING or `token create --messaging`), never more than the daemon allows.
 */
export function messagingLevelOf(deps: ToolDeps, authInfo: AuthInfo | undefined): MessagingLevel {
  if (!deps.messaging || !authInfo) return "off";
  return deps.messaging.service.levelFor(levelOfScopes(authInfo.scopes));
}
