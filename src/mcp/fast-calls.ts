// The fast lane's tools/call: any tool of the table answered without a per-request SDK server, instantly or as a progress stream.
import type { CallToolResult } from "@modelcontextprotocol/server";
import { callChannel, instantChannel } from "./channel.ts";
import type { ToolDeps } from "./deps.ts";
import { sseResult, sseStream, type FastCall } from "./fast-lane.ts";
import { TOOL_BY_NAME } from "./tool-table.ts";

/**
 * Answers a tools/call, or returns null to leave it to the SDK: an unknown tool, or `arguments` that are not an object
 * (the SDK refuses the request itself). Arguments the tool's schema refuses get the SDK's own tool error.
 */
export function fastToolCall(deps: ToolDeps, call: FastCall, principal: string, request: Request): Response | Promise<Response> | null {
  const { name, arguments: rawArgs = {} } = call.params;
  const tool = typeof name === "string" ? TOOL_BY_NAME.get(name) : undefined;
  if (!tool || typeof rawArgs !== "object" || rawArgs === null || Array.isArray(rawArgs)) return null;
  const prepared = tool.prepare(deps, rawArgs);
  if (!prepared) return sseResult(call.id, tool.refusal(rawArgs));
  if (!prepared.waits) {
    const result = prepared.run(instantChannel(principal, call.id, () => request.signal));
    return result instanceof Promise ? result.then((r) => sseResult(call.id, r)) : sseResult(call.id, result);
  }
  return sseStream(
    call.id,
    request.signal,
    (send, signal) =>
      Promise.resolve(
        prepared.run(callChannel({ principal, requestId: call.id, signal, progressToken: call.progressToken }, send, deps.log)),
      ) as Promise<CallToolResult>,
  );
}
