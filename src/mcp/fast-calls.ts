// The fast lane's tools/call: every tool answered without a per-request SDK server, instantly or as a progress stream.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ToolDeps } from "./deps.ts";
import { sseResult, sseStream, type FastCall } from "./fast-lane.ts";
import { askAsync, cancelJob, checkNow, resetJobs } from "./instant.ts";
import { AskInput, CheckInput, JobIdInput } from "./schemas.ts";
import { checkJob, syncAsk, type CallChannel } from "./waiting.ts";

/**
 * Answers a tools/call, or returns null to leave it to the SDK — unknown tools and arguments that do not validate,
 * so that the SDK alone words those errors.
 */
export function fastToolCall(deps: ToolDeps, call: FastCall, principal: string, requestSignal: AbortSignal): Response | Promise<Response> | null {
  const { name, arguments: rawArgs = {} } = call.params;
  const stream = (run: (channel: CallChannel) => Promise<CallToolResult>): Promise<Response> =>
    sseStream(call.id, requestSignal, (send, signal) => {
      let count = 0;
      const token = call.progressToken;
      return run({
        principal,
        requestId: call.id,
        signal,
        report(message) {
          if (token !== undefined) send({ method: "notifications/progress", params: { progressToken: token, progress: ++count, message } });
          else send({ method: "notifications/message", params: { level: "info", logger: "hermes-mcp", data: message } });
        },
      }).catch((error: unknown) => {
        deps.log.error("tool call failed", { error: (error as Error).message });
        return { content: [{ type: "text", text: "internal error in hermes-mcp; see its log" }], isError: true } satisfies CallToolResult;
      });
    });

  switch (name) {
    case "hermes_ask": {
      const args = AskInput.safeParse(rawArgs);
      if (!args.success) return null;
      return args.data.async_mode ? sseResult(call.id, askAsync(deps.jobs, args.data, principal)) : stream((channel) => syncAsk(deps, channel, args.data));
    }
    case "hermes_check": {
      const args = CheckInput.safeParse(rawArgs);
      if (!args.success) return null;
      return args.data.wait_seconds ? stream((channel) => checkJob(deps, channel, args.data)) : sseResult(call.id, checkNow(deps.jobs, args.data.job_id));
    }
    case "hermes_cancel": {
      const args = JobIdInput.safeParse(rawArgs);
      return args.success ? sseResult(call.id, cancelJob(deps.jobs, args.data.job_id)) : null;
    }
    case "hermes_reset":
      return typeof rawArgs === "object" && rawArgs !== null && !Array.isArray(rawArgs) ? sseResult(call.id, resetJobs(deps.jobs)) : null;
    default:
      return null;
  }
}
