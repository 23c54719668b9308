// `hermes-mcp jobs list|show|cancel`: the owner, at the machine, sees every caller's jobs and can stop any of them.
import { defineCommand } from "citty";
import { cancelJob, findJob, JobAdminError, listJobs, parseStatus } from "../jobs/admin.ts";
import type { Store } from "../store/index.ts";
import type { JobRow, JobSummary } from "../store/jobs.ts";
import { escapeBreakingChars, escapeBreakingCharsInBlock } from "../unsafe-text.ts";
import { asCliExit, CliExit, guarded, loadConfigOrExit, ui, withStore } from "./common.ts";
import { writeStdout } from "./output.ts";
import { printTable, utcTime } from "./table.ts";

/** --status as a job status, or the command ends naming the statuses there are. */
function parseStatusOrExit(value: string): ReturnType<typeof parseStatus> {
  try {
    return parseStatus(value);
  } catch (error) {
    throw asCliExit(error, [JobAdminError]);
  }
}

/** The database's jobs, a JobAdminError told as it is. */
const withJobs = <T>(body: (store: Store) => T): T => withStore(loadConfigOrExit().config.dbPath, body, [JobAdminError]);

// Threat: text chosen by a remote caller or by Hermes (labels, errors, answers) rewriting the owner's terminal —
// escape sequences, bidi overrides and other invisible controls are shown as \uXXXX instead of being obeyed.
/** Safe to print on one line (a table cell). */
const cell = escapeBreakingChars;
/** Safe to print as a block (an answer keeps its line breaks and tabs). */
const block = escapeBreakingCharsInBlock;

const span = (from: number | null, to: number | null): string =>
  from === null || to === null ? "-" : `${((to - from) / 1000).toFixed(1)} s`;
const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function parseLimit(value: string | undefined): number {
  if (value === undefined) return 50;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new CliExit(`--limit must be a whole number from 1 to 100000 (got "${value}")`);
  return n;
}

const list = defineCommand({
  meta: { name: "list", description: "List jobs, newest first: id, client, status, timings, prompt length — never prompts or answers" },
  args: {
    client: {
      type: "string",
      description:
        "Only this client's jobs: a principal (pat:dave#1a2b3c4d) or an id from `hermes-mcp clients list` (pat:dave: every token ever named dave)",
    },
    status: { type: "string", description: "Only jobs with this status: pending, running, completed, failed or cancelled" },
    limit: { type: "string", description: "At most this many jobs (default 50)" },
    json: { type: "boolean", description: "Print JSON (one array) for scripts" },
  },
  run: ({ args }) =>
    guarded(() => {
      const status = args.status === undefined ? undefined : parseStatusOrExit(args.status);
      const limit = parseLimit(args.limit);
      const jobs = withJobs((store) => listJobs(store, { client: args.client, status, limit }));
      if (args.json) {
        writeStdout(`${JSON.stringify(jobs)}\n`);
        return;
      }
      if (jobs.length === 0) {
        ui.info(args.client || args.status ? "No jobs match." : "No jobs stored. Jobs appear here when a client calls hermes_ask.");
        return;
      }
      printTable(
        ["ID", "CLIENT", "STATUS", "MODE", "CREATED", "WAITED", "RAN", "PROMPT", "SESSION"],
        jobs.map((job: JobSummary) => [
          job.id,
          cell(clip(job.principal, 40)),
          job.status,
          job.mode,
          utcTime(job.created_at),
          span(job.created_at, job.started_at),
          span(job.started_at, job.finished_at ?? (job.status === "running" ? Date.now() : null)),
          `${job.prompt_chars} ch`,
          cell(clip(job.session_label ?? "-", 24)),
        ]),
      );
    }),
});

function describeJob(job: JobRow, withAnswer: boolean): string {
  const lines: [string, string][] = [
    ["id", job.id],
    ["client", cell(job.principal)],
    ["status", job.end_reason && job.end_reason !== job.status ? `${job.status} (${job.end_reason})` : job.status],
    ["mode", job.mode],
    ["session", cell(job.session_label ?? "-")],
    ["prompt", `${job.prompt_chars} characters (prompts are never stored)`],
    ["created", utcTime(job.created_at)],
    ["started", job.started_at === null ? "-" : `${utcTime(job.started_at)} (waited ${span(job.created_at, job.started_at)})`],
    [
      "finished",
      job.finished_at === null ? "-" : `${utcTime(job.finished_at)} (ran ${span(job.started_at ?? job.created_at, job.finished_at)})`,
    ],
  ];
  if (job.error !== null) lines.push(["error", cell(job.error)]);
  const kept = job.result ?? job.partial;
  if (!withAnswer && kept !== null)
    lines.push([job.result !== null ? "answer" : "partial", `${kept.length} characters (add --answer to print it)`]);
  const width = Math.max(...lines.map(([key]) => key.length));
  let text = lines.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join("\n");
  if (withAnswer && kept !== null) text += `\n\n${job.result !== null ? "answer" : "partial answer"}:\n${block(kept)}`;
  return `${text}\n`;
}

const show = defineCommand({
  meta: { name: "show", description: "Show one job: client, status, timings, prompt length, error; the answer only with --answer" },
  args: {
    id: { type: "positional", required: true, description: "The job id (or a unique prefix of 4+ characters) from `hermes-mcp jobs list`" },
    answer: { type: "boolean", description: "Also print the answer (or the partial answer of a failed job)" },
    json: { type: "boolean", description: "Print JSON for scripts" },
  },
  run: ({ args }) =>
    guarded(() => {
      const job = withJobs((store) => findJob(store, args.id));
      if (args.json) {
        const { result, partial, ...rest } = job;
        writeStdout(`${JSON.stringify(args.answer ? { ...rest, result, partial } : rest)}\n`);
        return;
      }
      writeStdout(describeJob(job, Boolean(args.answer)));
    }),
});

const cancel = defineCommand({
  meta: { name: "cancel", description: "Cancel a pending or running job; the daemon closes its gateway request, which makes Hermes stop" },
  args: { id: { type: "positional", required: true, description: "The job id (or a unique prefix of 4+ characters)" } },
  run: ({ args }) =>
    guarded(() => {
      const { job, cancelled } = withJobs((store) => cancelJob(store, args.id));
      if (cancelled) {
        ui.success(
          `Job ${job.id} cancelled. The running daemon closes its request to Hermes within a second; anything Hermes already did is not undone.`,
        );
      } else {
        ui.info(`Job ${job.id} had already ended (${job.status}); nothing to cancel.`);
      }
    }),
});

export default defineCommand({
  meta: { name: "jobs", description: "See and stop every client's jobs (you, at the machine, see them all)" },
  subCommands: { list, show, cancel },
});
