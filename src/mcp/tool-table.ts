// The one table of tools: each declared once (name, description, input and output schema, annotations, handler); the SDK registration and the fast lane both read it.
import type { CallToolResult, StandardSchemaWithJSON, ToolAnnotations, ToolExecution } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { CallChannel } from "./channel.ts";
import type { ToolDeps } from "./deps.ts";
import { askDescription, CANCEL_DESCRIPTION, CHECK_DESCRIPTION, RESET_DESCRIPTION } from "./descriptions.ts";
import { askAsync, cancelJob, checkNow, resetJobs, startJob, type JobStart } from "./instant.ts";
import { unexpectedFailure } from "./results.ts";
import { withCachedJsonSchema } from "./schema-cache.ts";
import { AskInput, AskOutput, CheckInput, JobIdInput, JobViewOutput, ResetInput, ResetOutput } from "./schemas.ts";
import { checkJob, checkWaitMs, syncAsk } from "./waiting.ts";

type ToolResult = CallToolResult | Promise<CallToolResult>;

interface ToolSpec<In extends z.ZodType> {
  name: string;
  title: string;
  description(deps: ToolDeps): string;
  input: In;
  output: z.ZodType;
  annotations: ToolAnnotations;
  /** Whether this call may wait, so it is served as a stream that carries progress; otherwise it answers at once. */
  waits(deps: ToolDeps, args: z.output<In>): boolean;
  run(deps: ToolDeps, args: z.output<In>, call: CallChannel): ToolResult;
  /** Starts the call as an MCP task (a durable job, answered at once); tools without it refuse task-augmented calls. */
  startTask?(deps: ToolDeps, args: z.output<In>, principal: string, ttlMs: number | null): JobStart;
}

/** A tool with its arguments validated and its handler bound, ready to run in either path. */
export interface PreparedCall {
  waits: boolean;
  run(call: CallChannel): ToolResult;
  /** Present when the tool can run as a task. */
  startTask?(principal: string, ttlMs: number | null): JobStart;
}

export interface Tool {
  name: string;
  title: string;
  description(deps: ToolDeps): string;
  /** The schemas as the SDK takes them, JSON Schema converted once per process (not once per request). */
  inputSchema: StandardSchemaWithJSON<unknown, unknown>;
  outputSchema: StandardSchemaWithJSON<unknown, unknown>;
  /** The output schema itself (tests check fast-lane answers against it). */
  output: z.ZodType;
  annotations: ToolAnnotations;
  /** MCP tasks (2025-11-25): `taskSupport: "optional"` for a tool that can run as a task, absent (forbidden) otherwise. */
  execution?: ToolExecution;
  /** Runs the handler on arguments the SDK already validated against `inputSchema`. */
  handle(deps: ToolDeps, args: unknown, call: CallChannel): ToolResult;
  /** Validates raw arguments as the SDK would; null when they do not validate (then `refusal` words why). */
  prepare(deps: ToolDeps, rawArgs: unknown): PreparedCall | null;
  /**
   * The tool error the SDK answers for arguments this tool's schema refuses (McpServer.validateToolInput): the
   * schema's issues, each as "path: message", after the SDK's own prefix. Tests hold the two answers equal.
   */
  refusal(rawArgs: unknown): CallToolResult;
}

/** Runs a handler so that any unexpected failure, thrown or rejected, becomes the one internal-error result (and a log line). */
function guarded(deps: ToolDeps, name: string, run: () => ToolResult): ToolResult {
  const fail = (error: unknown): CallToolResult => unexpectedFailure(deps, name, error);
  try {
    const result = run();
    return result instanceof Promise ? result.catch(fail) : result;
  } catch (error) {
    return fail(error);
  }
}

function defineTool<In extends z.ZodType>(spec: ToolSpec<In>): Tool {
  const call = (deps: ToolDeps, args: z.output<In>, channel: CallChannel): ToolResult =>
    guarded(deps, spec.name, () => spec.run(deps, args, channel));
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: withCachedJsonSchema(spec.input) as StandardSchemaWithJSON<unknown, unknown>,
    outputSchema: withCachedJsonSchema(spec.output) as StandardSchemaWithJSON<unknown, unknown>,
    output: spec.output,
    annotations: spec.annotations,
    ...(spec.startTask ? { execution: { taskSupport: "optional" as const } } : {}),
    handle: (deps, args, channel) => call(deps, args as z.output<In>, channel),
    refusal(rawArgs) {
      const issues = spec.input.safeParse(rawArgs).error?.issues ?? [];
      const worded = issues.map((issue) => (issue.path.length ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message));
      const text = `Input validation error: Invalid arguments for tool ${spec.name}: ${worded.join(", ")}`;
      return { content: [{ type: "text", text }], isError: true };
    },
    prepare(deps, rawArgs) {
      const parsed = spec.input.safeParse(rawArgs);
      if (!parsed.success) return null;
      const { startTask } = spec;
      return {
        waits: spec.waits(deps, parsed.data),
        run: (channel) => call(deps, parsed.data, channel),
        ...(startTask ? { startTask: (principal: string, ttlMs: number | null) => startTask(deps, parsed.data, principal, ttlMs) } : {}),
      };
    },
  };
}

export const TOOLS: readonly Tool[] = [
  defineTool({
    name: "hermes_ask",
    title: "Ask Hermes",
    description: (deps) => askDescription(Math.round(deps.timeouts.syncBudgetMs / 1000)),
    input: AskInput,
    output: AskOutput,
    annotations: { title: "Ask Hermes", readOnlyHint: false, openWorldHint: true },
    waits: (_deps, args) => !args.async_mode,
    run: (deps, args, call) => (args.async_mode ? askAsync(deps.jobs, args, call.principal) : syncAsk(deps, call, args)),
    // A task is an async job whatever async_mode says: the call answers at once, the job runs under the job timeout.
    startTask: (deps, args, principal, ttlMs) => startJob(deps.jobs, { ...args, async_mode: true }, principal, { ttlMs }),
  }),
  defineTool({
    name: "hermes_check",
    title: "Check a Hermes job",
    description: () => CHECK_DESCRIPTION,
    input: CheckInput,
    output: JobViewOutput,
    annotations: { title: "Check a Hermes job", readOnlyHint: true, openWorldHint: false },
    waits: (deps, args) => checkWaitMs(deps, args) > 0,
    run: (deps, args, call) =>
      checkWaitMs(deps, args) > 0 ? checkJob(deps, call, args) : checkNow(deps.jobs, args.job_id, call.principal),
  }),
  defineTool({
    name: "hermes_cancel",
    title: "Cancel a Hermes job",
    description: () => CANCEL_DESCRIPTION,
    input: JobIdInput,
    output: JobViewOutput,
    annotations: { title: "Cancel a Hermes job", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    waits: () => false,
    run: (deps, args, call) => cancelJob(deps.jobs, args.job_id, call.principal),
  }),
  defineTool({
    name: "hermes_reset",
    title: "Clear my Hermes jobs",
    description: () => RESET_DESCRIPTION,
    input: ResetInput,
    output: ResetOutput,
    annotations: { title: "Clear my Hermes jobs", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    waits: () => false,
    run: (deps, _args, call) => resetJobs(deps.jobs, call.principal),
  }),
];

export const TOOL_BY_NAME: ReadonlyMap<string, Tool> = new Map(TOOLS.map((tool) => [tool.name, tool]));
