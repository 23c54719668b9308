// Registers the tool table on an SDK server: each tool's declaration as is, its handler over the SDK's request context.
import type { McpServer, ServerContext } from "@modelcontextprotocol/server";
import { callChannel, type CallChannel } from "./channel.ts";
import type { ToolDeps } from "./deps.ts";
import { TOOLS } from "./tool-table.ts";

/** A call's channel over the SDK's request context (log notifications go through the SDK, which honours logging levels). */
export function channelOf(ctx: ServerContext, deps: ToolDeps, principal: string): CallChannel {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  return callChannel(
    { principal, requestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal, progressToken },
    (n) => (n.method === "notifications/message" ? ctx.mcpReq.log(n.params.level, n.params.data, n.params.logger) : ctx.mcpReq.notify(n)),
    deps.log,
  );
}

/** `principal` is who this request's token belongs to (the server instance serves that one request). */
export function registerTools(server: McpServer, deps: ToolDeps, principal: string): void {
  for (const tool of TOOLS) {
    const registered = server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description(deps),
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
      },
      (args: unknown, ctx: ServerContext) => tool.handle(deps, args, channelOf(ctx, deps, principal)),
    );
    // registerTool takes no `execution` (task vocabulary is 2025-only in SDK 2.x); tools/list reads it from the
    // registered tool, and the 2026-07-28 codec strips it from that era's answers.
    if (tool.execution) registered.execution = tool.execution;
  }
}
