// Hermes's messaging tools on a per-request SDK server: the ones a caller's level allows, events_wait as a long-poll (loaded with the SDK).
import {
  fromJsonSchema,
  type CallToolResult,
  type McpServer,
  type ServerContext,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type { MessagingLevel } from "../messaging/level.ts";
import type { MessagingTool } from "../messaging/tools.ts";
import type { CallChannel } from "./channel.ts";
import type { ToolDeps } from "./deps.ts";
import type { MessagingDeps } from "./messaging-calls.ts";
import { channelOf } from "./tools.ts";

/** Input schemas converted once per child declaration, not once per request. */
const schemas = new WeakMap<object, StandardSchemaWithJSON<unknown, unknown>>();
function inputSchemaOf(tool: MessagingTool): StandardSchemaWithJSON<unknown, unknown> {
  let schema = schemas.get(tool.declaration);
  if (!schema) {
    schema = fromJsonSchema(tool.declaration.inputSchema as Parameters<typeof fromJsonSchema>[0]);
    schemas.set(tool.declaration, schema);
  }
  return schema;
}

/** Margin left between the child's own wait and hermes-mcp's per-call timeout, so a long-poll ends as "no events". */
const WAIT_MARGIN_MS = 5000;

/**
 * Registers the tools a caller at `level` may use. Schema and description are the child's; no output schema is
 * re-declared, because an oversized result may lose its structured part (bounds.ts) and must still be valid.
 */
export async function registerMessagingTools(server: McpServer, deps: ToolDeps, principal: string, level: MessagingLevel): Promise<void> {
  const messaging = deps.messaging;
  if (!messaging || level === "off") return;
  for (const tool of await messaging.service.toolsFor(level)) {
    const declaration = tool.declaration;
    server.registerTool(
      tool.name,
      {
        title: declaration.title ?? declaration.annotations?.title,
        description: declaration.description ?? `Hermes's ${tool.upstream}`,
        inputSchema: inputSchemaOf(tool),
        annotations: declaration.annotations,
      },
      (args: unknown, ctx: ServerContext) => {
        // Stateless serving keeps no stream open for notifications, so a list change reaches the calls in flight.
        const stop = messaging.service.onChange(() => {
          ctx.mcpReq.notify({ method: "notifications/tools/list_changed" }).catch(() => undefined);
        });
        return runMessagingTool(deps, messaging, tool, (args ?? {}) as Record<string, unknown>, channelOf(ctx, deps, principal)).finally(
          stop,
        );
      },
    );
  }
}

/** One call: cancellable from this request or a later notifications/cancelled; events_wait reports a heartbeat while it waits. */
async function runMessagingTool(
  deps: ToolDeps,
  messaging: MessagingDeps,
  tool: MessagingTool,
  args: Record<string, unknown>,
  channel: CallChannel,
): Promise<CallToolResult> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort("client went away");
  channel.signal.addEventListener("abort", onAbort, { once: true });
  const forget = messaging.calls.register(channel.principal, channel.requestId, controller);
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let callArgs = args;
  if (tool.upstream === "events_wait") {
    const budget = Math.max(1000, messaging.service.timeoutMs - WAIT_MARGIN_MS);
    if (typeof args.timeout_ms === "number" && args.timeout_ms > budget) callArgs = { ...args, timeout_ms: budget };
    // Monotonic, as a job's progress: a clock step mid-wait does not make it a day long.
    const started = performance.now();
    // The same heartbeat as hermes_ask: clients reset their timeout on it, and tunnels see a live stream.
    heartbeat = setInterval(
      () => channel.report(`Waiting for new messages (${Math.round((performance.now() - started) / 1000)} s elapsed)`),
      deps.timeouts.heartbeatMs,
    );
  }
  try {
    const result = await messaging.service.call(tool, callArgs, channel.principal, controller.signal);
    if (controller.signal.aborted)
      deps.log.debug("messaging: call cancelled by the client", { tool: tool.name, principal: channel.principal });
    return result;
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    channel.signal.removeEventListener("abort", onAbort);
    forget();
  }
}
