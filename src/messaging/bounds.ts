// Bounds what a messaging result may carry back to a remote client: large attachments are replaced by a note saying so.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { sizeText } from "../size-text.ts";

/** At most this much of a result goes back to a client (base64 attachments count at their encoded size). */
export const MAX_RESULT_BYTES = 4 * 1024 * 1024;

const sizeOf = (value: unknown): number => JSON.stringify(value)?.length ?? 0;

/**
 * Content blocks are kept in order while they fit in `maxBytes`; a block that does not fit (an image, audio, or an
 * embedded resource too large to send) is replaced by a short text note naming its type and size, so the model knows
 * it exists. Structured content that does not fit is dropped the same way (its text twin is bounded with the rest).
 */
export function boundResult(result: CallToolResult, maxBytes = MAX_RESULT_BYTES): CallToolResult {
  let budget = maxBytes;
  const content = (result.content ?? []).map((block) => {
    const size = sizeOf(block);
    if (size <= budget) {
      budget -= size;
      return block;
    }
    const mime = "mimeType" in block && typeof block.mimeType === "string" ? `, ${block.mimeType}` : "";
    return {
      type: "text" as const,
      text: `[${block.type}${mime} of ${sizeText(size)} omitted: larger than hermes-mcp's ${sizeText(maxBytes)} limit per messaging result]`,
    };
  });
  const bounded: CallToolResult = { ...result, content };
  if (result.structuredContent !== undefined && sizeOf(result.structuredContent) > budget) delete bounded.structuredContent;
  return bounded;
}
