// How tool results are shaped: structured content typed by the tool's output schema with the same JSON as text, or an error the model can read.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { z } from "zod";

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
