// A task-augmented tools/call (MCP tasks, 2025-11-25): starts the same durable job as hermes_ask and answers at once with the task (its id is the job id).
import type { CreateTaskResult } from "@modelcontextprotocol/server";
import type { ToolDeps } from "./deps.ts";
import { sseError, sseResult, type FastCall } from "./fast-lane.ts";
import type { JobStart } from "./instant.ts";
import { INTERNAL_FAILURE, unexpectedFailure } from "./results.ts";
import { TaskRequest, taskOf } from "./task-shape.ts";
import { TOOL_BY_NAME } from "./tool-table.ts";

/**
 * Answers a well-formed 2025-era tools/call that carries `task`, or returns null to leave it to the SDK (an unknown
 * tool, arguments or a `task` field that do not validate: the SDK alone words those errors).
 *
 * Served here rather than by the SDK: its tools/call seam only returns a CallToolResult (a registered tool cannot
 * answer with a CreateTaskResult; the result validator refuses one), and SDK 2.x has no task runtime.
 */
export function taskToolCall(deps: ToolDeps, call: FastCall, principal: string): Response | null {
  const { name, arguments: rawArgs = {}, task } = call.params;
  const requested = TaskRequest.safeParse(task);
  const tool = typeof name === "string" ? TOOL_BY_NAME.get(name) : undefined;
  if (!requested.success || !tool) return null;
  if (!tool.execution) {
    // MCP tasks, tool-level negotiation: a tool without taskSupport is not invoked as a task (-32601).
    return sseError(call.id, -32601, `${tool.name} cannot run as a task (its execution.taskSupport is forbidden); call it without "task"`);
  }
  const prepared = tool.prepare(deps, rawArgs);
  if (!prepared?.startTask) return null;
  let started: JobStart;
  try {
    started = prepared.startTask(principal, requested.data.ttl ?? null);
  } catch (error) {
    // The daemon never crashes on input: an unexpected failure is the one internal-error result, as for any tool.
    return sseResult(call.id, unexpectedFailure(deps, tool.name, error));
  }
  // Refused (queue or store full, no gateway key): the task was never accepted, so the tool's own error result.
  if ("refused" in started) return sseResult(call.id, started.refused);
  const found = deps.jobs.inspect(started.jobId, principal);
  if (!found) return sseResult(call.id, INTERNAL_FAILURE);
  const result: CreateTaskResult = {
    task: taskOf(found.row, found.view, deps.jobs.retentionMs),
    _meta: {
      // What a host may hand the model at once while the task runs (MCP tasks, "Creating Tasks").
      "io.modelcontextprotocol/model-immediate-response": `Hermes is working on this as task ${started.jobId}. Its answer comes with tasks/result (or hermes_check with job_id "${started.jobId}").`,
    },
  };
  return sseResult(call.id, result);
}
