// How tool results are shaped: structured content with the same JSON as text, or an error the model can read.
import type { CallToolResult } from "@modelcontextprotocol/server";

/** Structured result plus the same JSON as text, for clients that read only `content` (MCP tools spec, structured content). */
export function structured<T extends object>(value: T): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

export function failure(message: string, extra?: object): CallToolResult {
  return { content: [{ type: "text", text: extra ? `${message}\n${JSON.stringify(extra)}` : message }], isError: true };
}
