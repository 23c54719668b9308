// Registers the four tools on an SDK server: descriptions, schemas, annotations, and handlers over the shared tool logic.
import type { CallToolResult, McpServer, ServerContext } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { type ToolDeps, LOCAL_PRINCIPAL } from "./deps.ts";
import { askDescription, CANCEL_DESCRIPTION, CHECK_DESCRIPTION, RESET_DESCRIPTION } from "./descriptions.ts";
import { askAsync, cancelJob, resetJobs } from "./instant.ts";
import { withCachedJsonSchema } from "./schema-cache.ts";
import { AskInput, AskOutput, CheckInput, JobIdInput, JobViewOutput, ResetInput, ResetOutput } from "./schemas.ts";
import { checkJob, syncAsk, type CallChannel } from "./waiting.ts";

// Converted to JSON Schema once per process, not once per request.
const schemas = {
  askIn: withCachedJsonSchema(AskInput),
  askOut: withCachedJsonSchema(AskOutput),
  checkIn: withCachedJsonSchema(CheckInput),
  jobIdIn: withCachedJsonSchema(JobIdInput),
  jobOut: withCachedJsonSchema(JobViewOutput),
  resetIn: withCachedJsonSchema(ResetInput),
  resetOut: withCachedJsonSchema(ResetOutput),
};

/** A waiting call's channel over the SDK's request context. */
function channelOf(ctx: ServerContext, deps: ToolDeps): CallChannel {
  const token = ctx.mcpReq._meta?.progressToken;
  let count = 0;
  return {
    principal: ctx.http?.authInfo?.clientId ?? LOCAL_PRINCIPAL,
    requestId: ctx.mcpReq.id,
    signal: ctx.mcpReq.signal,
    report(message) {
      if (ctx.mcpReq.signal.aborted) return;
      const sent =
        token !== undefined
          ? ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: ++count, message } })
          : ctx.mcpReq.log("info", message, "hermes-mcp");
      sent.catch((error: unknown) => deps.log.debug("progress notification not delivered", { error: (error as Error).message }));
    },
  };
}

export function registerTools(server: McpServer, deps: ToolDeps, askText = askDescription(Math.round(deps.timeouts.syncBudgetMs / 1000))): void {
  server.registerTool(
    "hermes_ask",
    {
      title: "Ask Hermes",
      description: askText,
      inputSchema: schemas.askIn,
      outputSchema: schemas.askOut,
      annotations: { title: "Ask Hermes", readOnlyHint: false, openWorldHint: true },
    },
    async (args: z.output<typeof AskInput>, ctx: ServerContext): Promise<CallToolResult> =>
      args.async_mode ? askAsync(deps.jobs, args, ctx.http?.authInfo?.clientId ?? LOCAL_PRINCIPAL) : syncAsk(deps, channelOf(ctx, deps), args),
  );

  server.registerTool(
    "hermes_check",
    {
      title: "Check a Hermes job",
      description: CHECK_DESCRIPTION,
      inputSchema: schemas.checkIn,
      outputSchema: schemas.jobOut,
      annotations: { title: "Check a Hermes job", readOnlyHint: true, openWorldHint: false },
    },
    async (args: z.output<typeof CheckInput>, ctx: ServerContext): Promise<CallToolResult> => checkJob(deps, channelOf(ctx, deps), args),
  );

  server.registerTool(
    "hermes_cancel",
    {
      title: "Cancel a Hermes job",
      description: CANCEL_DESCRIPTION,
      inputSchema: schemas.jobIdIn,
      outputSchema: schemas.jobOut,
      annotations: { title: "Cancel a Hermes job", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args: z.output<typeof JobIdInput>): Promise<CallToolResult> => cancelJob(deps.jobs, args.job_id),
  );

  server.registerTool(
    "hermes_reset",
    {
      title: "Clear all Hermes jobs",
      description: RESET_DESCRIPTION,
      inputSchema: schemas.resetIn,
      outputSchema: schemas.resetOut,
      annotations: { title: "Clear all Hermes jobs", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (): Promise<CallToolResult> => resetJobs(deps.jobs),
  );
}
