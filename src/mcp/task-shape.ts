// How a job looks as an MCP task (2025-11-25 tasks utility): status mapping, timestamps, ttl, poll interval, list cursors.
import type { Task } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { JobView } from "../jobs/view.ts";
import type { JobRow, JobSummary } from "../store/jobs.ts";

/** What a client is told to wait between tasks/get polls. */
export const TASK_POLL_INTERVAL_MS = 5_000;
/** Tasks per tasks/list page. */
export const TASKS_PAGE_SIZE = 50;
/** The `_meta` key that ties a message to its task (MCP tasks, "Associating Task-Related Messages"). */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

export const TaskIdParams = z.object({ taskId: z.string() });
export const ListTasksParams = z.object({ cursor: z.string().optional() });
/** The `task` field of a task-augmented request: the ttl the client asks for, in milliseconds. */
export const TaskRequest = z.looseObject({ ttl: z.number().nonnegative().optional() });

/**
 * The job statuses as task statuses: pending and running are both `working` (the statusMessage says which);
 * completed, failed and cancelled are the same words. `input_required` is never used: Hermes asks nothing mid-task.
 */
export function taskStatusOf(status: JobRow["status"]): Task["status"] {
  return status === "pending" || status === "running" ? "working" : status;
}

function statusMessageOf(view: JobView): string | undefined {
  if (view.status === "pending") return `waiting for a free Hermes slot${view.queue_position ? ` (#${view.queue_position} in line)` : ""}`;
  if (view.status === "running") {
    const p = view.progress;
    return `Hermes is working (${p?.elapsed_seconds ?? 0} s elapsed${p?.current_tool ? ` — ${p.current_tool}` : ""})`;
  }
  if (view.status === "completed") return "Hermes finished; get the answer with tasks/result";
  return view.error;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The task of one job. `ttl` is counted from creation: the task's own (already clamped) or, for a job created
 * without one, the daemon's retention — a lower bound, since a job is kept that long after it *ends*.
 */
export function taskOf(row: JobRow | JobSummary, view: JobView, retentionMs: number): Task {
  const task: Task = {
    taskId: row.id,
    status: taskStatusOf(row.status),
    createdAt: iso(row.created_at),
    lastUpdatedAt: iso(row.finished_at ?? row.started_at ?? row.created_at),
    ttl: row.task_ttl_ms ?? retentionMs,
  };
  const message = statusMessageOf(view);
  if (message) task.statusMessage = message;
  if (task.status === "working") task.pollInterval = TASK_POLL_INTERVAL_MS;
  return task;
}

/** Cursors are opaque to clients; inside, the last job of the page. A forged one can only page the caller's own jobs. */
export const cursorAfter = (row: JobSummary): string => Buffer.from(JSON.stringify([row.created_at, row.id])).toString("base64url");
