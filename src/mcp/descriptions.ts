// What the calling model reads about each tool: when to use it, sync versus async, and what cancel really does.
export const SERVER_INSTRUCTIONS =
  "hermes-mcp delegates work to the user's own Hermes Agent (email, messages, browser research, documents, scheduled jobs, " +
  "anything that must persist in Hermes' memory and skills). Use hermes_ask to delegate; for long work use async_mode and " +
  "poll with hermes_check(job_id, wait_seconds). Pass the same session_id across calls in one conversation so Hermes keeps context.";

export function askDescription(syncBudgetSeconds: number): string {
  const overflow =
    syncBudgetSeconds > 0
      ? `A sync call still running after ${syncBudgetSeconds} s is not lost: it turns into a job and returns {"job_id", "status", "note"} — then poll it with hermes_check; do not call hermes_ask again for the same task.`
      : "Sync calls wait for the whole answer, so a long task can hit your client's timeout: prefer async_mode when in doubt.";
  return [
    "Delegate a task to the user's Hermes Agent and get its answer. Hermes can run shell commands, browse the web, send email and messages (WhatsApp, Slack, Telegram…), write documents, schedule cron jobs, and remember things across sessions.",
    "",
    "Choose async_mode=true when ANY of these holds: three or more external actions; browser work; document generation or outreach to several recipients; a multi-step agentic chain; likely to take over ~30 s; approvals may be needed; or you are unsure.",
    "Choose sync (the default) only when ALL hold: at most one external action, confidently under ~30 s, no approval likely.",
    'A wrong async guess costs a few polls; a wrong sync guess can lose the whole answer to a client timeout. Async returns {"job_id", "status": "pending"} at once: then call hermes_check(job_id, wait_seconds=30) until the status is completed, failed or cancelled.',
    overflow,
    "",
    "session_id: any label you choose (e.g. one per conversation). Reuse it across calls so Hermes builds on earlier steps; the bridge keeps the gateway's own session id behind it.",
    "Progress (Hermes tool use, elapsed time) is sent as MCP progress notifications while a sync call runs.",
  ].join("\n");
}

export const CHECK_DESCRIPTION = [
  "Get the status and result of one of your jobs started by hermes_ask (async, or a sync call that turned into a job). Each caller sees only its own jobs.",
  "Statuses: pending (waiting for a free slot; see queue_position), running (see progress: elapsed_seconds, current_tool, recent_events, answer_chars), completed (see result), failed (see error, and partial_result if Hermes stopped mid-answer), cancelled, unknown (never issued to you, expired, or cleared by hermes_reset).",
  "wait_seconds (optional, up to the server's limit, default 0) holds the call open until the job ends or the time is up, so you need few polls: use 30 for a running job.",
].join("\n");

export const CANCEL_DESCRIPTION = [
  "Cancel one of your jobs. A pending job never starts. A running job's request to the Hermes gateway is closed, which makes Hermes interrupt the agent at its next step;",
  "anything Hermes already did (messages sent, files written, commands run) is not undone. A job that already ended is returned unchanged.",
].join(" ");

export const RESET_DESCRIPTION =
  "Clear all of your own jobs (other callers' jobs are not touched), interrupting any that are still pending or running the same way hermes_cancel does. " +
  'Returns {"cleared": n, "by_status": {...}}: your jobs, counted before the reset. Use only when the user asks to start over.';
