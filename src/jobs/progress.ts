// What a running job is doing, in bounded memory: elapsed time, current and recent Hermes tool events, answer length.
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import type { GatewayEvent } from "../gateway/client.ts";

/** A Hermes tool event, as the gateway client parses it (declared there once). */
export type ToolEvent = Omit<Extract<GatewayEvent, { type: "tool" }>, "type">;

/** The progress hermes_check shows for a running job (the MCP output schema uses this very schema). */
export const ProgressSnapshotSchema = builtOnFirstUse(() =>
  z.object({
    elapsed_seconds: z.number(),
    current_tool: z.string().nullable(),
    recent_events: z.array(z.string()),
    answer_chars: z.number(),
    tool_events: z.number(),
    note: z.string().nullable(),
  }),
);
export type ProgressSnapshot = z.output<typeof ProgressSnapshotSchema>;

const RECENT_LIMIT = 8;

/** A running Hermes tool silent this long may be blocked on an approval the owner has to give on a messaging platform. */
export const APPROVAL_STALL_MS = 60_000;

/** The hint hermes_check's progress carries then (the README's "Approvals that stall" explains the settings). */
export const approvalStallNote = (seconds: number): string =>
  `The running Hermes tool has been silent for ${seconds} s: Hermes may be waiting for an approval on one of its messaging platforms (Telegram, Discord, Slack…). Approve or deny it there; see the hermes-mcp README on approvals for API-server runs.`;

/** Formats one tool event the way a person reads it: "🔎 web_search: searching for X (running)". */
export function describeToolEvent(event: ToolEvent): string {
  const label = event.label?.slice(0, 160);
  // Hermes labels often start with the tool's name already ("web_search: \"query\""): don't say it twice.
  const what = label ? (label.startsWith(event.tool) ? label : `${event.tool}: ${label}`) : event.tool;
  return `${event.emoji ? `${event.emoji} ` : ""}${what} (${event.status})`;
}

export class ProgressTracker {
  private readonly recent: string[] = [];
  private readonly runningTools = new Map<string, string>();
  private answerChars = 0;
  private toolEvents = 0;
  private note: string | null = null;
  private lastToolEventAt: number;

  /** Times are on the monotonic clock (performance.now): elapsed time and the approval stall ignore a clock step. */
  constructor(private readonly startedAt: number) {
    this.lastToolEventAt = startedAt;
  }

  text(delta: string): void {
    this.answerChars += delta.length;
  }

  tool(event: ToolEvent, at = performance.now()): string {
    const line = describeToolEvent(event);
    this.lastToolEventAt = at;
    this.toolEvents += 1;
    this.recent.push(line);
    if (this.recent.length > RECENT_LIMIT) this.recent.shift();
    const key = event.toolCallId ?? event.tool;
    if (event.status === "running" || event.status === "started") this.runningTools.set(key, line);
    else this.runningTools.delete(key);
    this.note = null;
    return line;
  }

  /** A transient remark, such as "gateway busy, retrying in 1 s"; cleared by the next tool event. */
  remark(note: string): void {
    this.note = note;
  }

  snapshot(now: number): ProgressSnapshot {
    const current = [...this.runningTools.values()].at(-1) ?? null;
    const silentMs = now - this.lastToolEventAt;
    const stalled = current !== null && this.note === null && silentMs > APPROVAL_STALL_MS;
    return {
      elapsed_seconds: Math.max(0, Math.round((now - this.startedAt) / 1000)),
      current_tool: current,
      recent_events: [...this.recent],
      answer_chars: this.answerChars,
      tool_events: this.toolEvents,
      note: stalled ? approvalStallNote(Math.round(silentMs / 1000)) : this.note,
    };
  }
}
