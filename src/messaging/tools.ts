// Which of the child's tools are re-exposed, and to whom: known messaging tools only, the include/exclude rule, and the caller's level.
import type { Tool } from "@modelcontextprotocol/client";
import { MESSAGING_READ_TOOLS, MESSAGING_SEND_TOOLS, type MessagingLevel } from "../config/schema.ts";
import { allows } from "./level.ts";

/** One of Hermes's tools as hermes-mcp offers it: `hermes_<name>`, its schema and description straight from the child. */
export interface MessagingTool {
  /** The name callers see. */
  name: string;
  /** The child's own name for it. */
  upstream: string;
  /** The level a caller needs to see and call it. */
  needs: Exclude<MessagingLevel, "off">;
  /** The child's declaration, as it sent it. */
  declaration: Tool;
}

export const EXPOSED_PREFIX = "hermes_";

const READ: readonly string[] = MESSAGING_READ_TOOLS;
const SEND: readonly string[] = MESSAGING_SEND_TOOLS;

export interface ToolRule {
  include: string[];
  exclude: string[];
}

/**
 * The child's tools that may be offered at all. Only the known messaging tools pass: never permissions_* (they do not
 * work outside Hermes's own process), and never a tool a newer Hermes adds until hermes-mcp knows what it does.
 * Hermes's filtering rule: a non-empty include list is the allow-list and wins over exclude.
 */
export function exposedTools(childTools: readonly Tool[], rule: ToolRule): MessagingTool[] {
  const exposed: MessagingTool[] = [];
  for (const tool of childTools) {
    const needs = READ.includes(tool.name) ? "read" : SEND.includes(tool.name) ? "send" : null;
    if (!needs) continue;
    if (rule.include.length > 0 ? !rule.include.includes(tool.name) : rule.exclude.includes(tool.name)) continue;
    exposed.push({ name: `${EXPOSED_PREFIX}${tool.name}`, upstream: tool.name, needs, declaration: tool });
  }
  return exposed;
}

/** The tools a caller at `level` may see and call. */
export const toolsFor = (tools: readonly MessagingTool[], level: MessagingLevel): MessagingTool[] =>
  tools.filter((tool) => allows(level, tool.needs));
