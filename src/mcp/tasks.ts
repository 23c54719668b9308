// MCP tasks (2025-11-25) over durable jobs: tasks/get, tasks/result, tasks/list and tasks/cancel as request handlers on the per-request SDK server, each seeing only the caller's jobs.
import { ProtocolError, ProtocolErrorCode, type McpServer, type ServerContext, type Task } from "@modelcontextprotocol/server";
import { z } from "zod";
import { jobView, type JobView } from "../jobs/view.ts";
import { isActiveStatus, type JobPageCursor, type JobSummary } from "../store/jobs.ts";
import { callChannel } from "./channel.ts";
import type { ToolDeps } from "./deps.ts";
import { cursorAfter, ListTasksParams, RELATED_TASK, TaskIdParams, taskOf, TASKS_PAGE_SIZE } from "./task-shape.ts";
import { endedAskResult, watchJob } from "./waiting.ts";

/**
 * The one answer for a task the caller cannot see. Threat: ids revealing other callers' work — another principal's
 * task, an expired one and one never issued read exactly alike (MCP tasks: -32602 for a nonexistent taskId).
 */
const taskNotFound = (): ProtocolError =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "Failed to retrieve task: Task not found (never issued to you, expired, or cleared by hermes_reset)",
  );

const CursorSchema = z.tuple([z.number(), z.string()]);

function parseCursor(cursor: string): JobPageCursor {
  try {
    const [createdAt, id] = CursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return { createdAt, id };
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor for tasks/list: pass back a nextCursor exactly as received");
  }
}

/** tasks/result holds its stream open in slices this long (a timer cannot span a whole job timeout); keep-alives flow meanwhile. */
const RESULT_WAIT_SLICE_MS = 10 * 60_000;

const isActive = (view: JobView): boolean => view.status === "pending" || view.status === "running";

/** The caller's task, or the one "not found" error (never issued, expired, cleared, or another principal's). */
function findTask(deps: ToolDeps, taskId: string, principal: string): Task {
  const found = deps.jobs.inspect(taskId, principal);
  if (!found) throw taskNotFound();
  return taskOf(found.row, found.view, deps.jobs.retentionMs);
}

/**
 * Waits for the caller's task to end, then answers what hermes_ask would have answered (MCP tasks: tasks/result
 * blocks until a terminal status). While it waits, Hermes' tool use and a heartbeat go out as progress (the
 * request's own progressToken) or log notifications, the SDK's SSE keep-alive comments keep tunnels from cutting the
 * stream, and the ending is announced as notifications/tasks/status. A client that goes away leaves the task running.
 */
async function taskResult(deps: ToolDeps, taskId: string, principal: string, ctx: ServerContext): Promise<Record<string, unknown>> {
  const found = deps.jobs.inspect(taskId, principal);
  if (!found) throw taskNotFound();
  const related = { [RELATED_TASK]: { taskId } };
  let view = found.view;
  if (isActive(view)) {
    const { signal } = ctx.mcpReq;
    const channel = callChannel(
      { principal, requestId: ctx.mcpReq.id, signal, progressToken: ctx.mcpReq._meta?.progressToken },
      (n) => ctx.mcpReq.notify({ method: n.method, params: { ...n.params, _meta: related } }),
      deps.log,
    );
    while (isActive(view) && !signal.aborted) view = await watchJob(deps, channel, taskId, RESULT_WAIT_SLICE_MS, false);
    const ended = deps.jobs.inspect(taskId, principal);
    if (ended && !isActive(ended.view)) {
      await ctx.mcpReq
        .notify({ method: "notifications/tasks/status", params: taskOf(ended.row, ended.view, deps.jobs.retentionMs) })
        .catch((error: unknown) => deps.log.debug("task status notification not delivered", { error: (error as Error).message }));
    }
  }
  // Cleared by hermes_reset while we waited, or the client left before it ended: nothing to answer with.
  if (view.status === "unknown") throw taskNotFound();
  if (isActive(view)) throw new ProtocolError(ProtocolErrorCode.InternalError, "tasks/result was cancelled before the task ended");
  const result = endedAskResult(view);
  return { ...result, _meta: { ...result._meta, ...related } };
}

/** One page of the caller's tasks, newest first; `nextCursor` while more remain. */
function listTasks(deps: ToolDeps, principal: string, cursor: string | undefined): { tasks: Task[]; nextCursor?: string } {
  const rows = deps.jobs.page(principal, cursor === undefined ? null : parseCursor(cursor), TASKS_PAGE_SIZE + 1);
  const page = rows.slice(0, TASKS_PAGE_SIZE);
  // An active task's view carries live progress (a few reads at most); an ended one's is its summary (no answer read).
  const viewOf = (row: JobSummary): JobView =>
    (isActiveStatus(row.status) ? deps.jobs.inspect(row.id, principal)?.view : undefined) ??
    jobView({ ...row, result: null, partial: null });
  const tasks = page.map((row) => taskOf(row, viewOf(row), deps.jobs.retentionMs));
  const last = page.at(-1);
  return rows.length > TASKS_PAGE_SIZE && last ? { tasks, nextCursor: cursorAfter(last) } : { tasks };
}

/** Cancels the caller's active task the way hermes_cancel does (its gateway request is closed); an ended task is refused. */
function cancelTask(deps: ToolDeps, taskId: string, principal: string): Task {
  const found = deps.jobs.inspect(taskId, principal);
  if (!found) throw taskNotFound();
  if (!isActive(found.view)) {
    // MCP tasks: cancelling a task already in a terminal status is -32602.
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task: it has already ended (${found.view.status})`);
  }
  deps.jobs.stop(taskId, "task_cancelled", principal);
  return findTask(deps, taskId, principal);
}

/** Runs a handler so that an unexpected failure becomes one fixed -32603 (details go to the log, never to the client). */
async function guarded<T>(deps: ToolDeps, method: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    deps.log.error("task request failed", { method, error: (error as Error).message });
    throw new ProtocolError(ProtocolErrorCode.InternalError, "internal error in hermes-mcp; see its log");
  }
}

/** Adds the tasks/* methods to one request's server; `principal` is who the request's token belongs to. */
export function registerTaskHandlers(server: McpServer, deps: ToolDeps, principal: string): void {
  // The SDK carries the 2025-11-25 task vocabulary as wire types only, with no runtime: these are its custom-method
  // handlers (params validated by our schemas), so its framing, errors, SSE and keep-alives still apply.
  const low = server.server;
  low.setRequestHandler("tasks/get", { params: TaskIdParams }, ({ taskId }) =>
    guarded(deps, "tasks/get", () => findTask(deps, taskId, principal)),
  );
  low.setRequestHandler("tasks/result", { params: TaskIdParams }, ({ taskId }, ctx) =>
    guarded(deps, "tasks/result", () => taskResult(deps, taskId, principal, ctx)),
  );
  low.setRequestHandler("tasks/list", { params: ListTasksParams }, ({ cursor }) =>
    guarded(deps, "tasks/list", () => listTasks(deps, principal, cursor)),
  );
  low.setRequestHandler("tasks/cancel", { params: TaskIdParams }, ({ taskId }) =>
    guarded(deps, "tasks/cancel", () => cancelTask(deps, taskId, principal)),
  );
}
