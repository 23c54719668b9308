// How tool results are shaped: structured content typed by the tool's output schema with the same JSON as text, or an error the model can read.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { publicStorageMessage } from "../store/storage-failure.ts";
import type { ToolDeps } from "./deps.ts";

/**
 * Structured result plus the same JSON as text, for clients that read only `content` (MCP tools spec, structured
 * content). `shape` is the tool's output schema: a value that does not fit it fails the type check.
 */
export function structured<S extends z.ZodType>(_shape: S, value: z.output<S> & object): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

export function failure(message: string, extra?: object): CallToolResult {
  return { content: [{ type: "text", text: extra ? `${message}\n${JSON.stringify(extra)}` : message }], isError: true };
}

/** The one wording of an unexpected failure inside a tool, whichever path served the call (details go to the log). */
export const INTERNAL_FAILURE: CallToolResult = failure("internal error in hermes-mcp; see its log");

/**
 * The result of a call that failed unexpectedly: a database refusing writes (a full disk) says so and that it passes;
 * anything else is INTERNAL_FAILURE. Either way the owner hears of it in the log.
 */
export function unexpectedFailure(deps: Pick<ToolDeps, "jobs" | "log">, tool: string, error: unknown): CallToolResult {
  const storage = deps.jobs.storageAlarm.report(error, `answer a ${tool} call`);
  if (storage) return failure(publicStorageMessage(storage));
  deps.log.error("tool call failed", { tool, error: (error as Error).message });
  return INTERNAL_FAILURE;
}
