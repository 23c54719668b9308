// tools/list of the tool table, worded as the SDK words it for a 2025-era client, without loading the SDK (the fast lane's answer).
import type { Tool as ListedTool } from "@modelcontextprotocol/server";
import type { ToolDeps } from "./deps.ts";
import { TOOLS } from "./tool-table.ts";

/** The JSON Schema dialect the SDK converts tool schemas to (its JSON_SCHEMA_CONVERSION_TARGET). */
const JSON_SCHEMA_TARGET = { target: "draft-2020-12" } as const;

/**
 * What the SDK's McpServer answers to tools/list for the table's tools: each schema converted through its standard
 * JSON Schema hook (object roots, as the SDK requires), `execution` where a tool declares it. tests/mcp/fast-lane.test.ts
 * proves it equal to the SDK's own answer.
 */
export function toolsListResult(deps: ToolDeps): { tools: ListedTool[] } {
  return {
    tools: TOOLS.map((tool) => {
      const input = tool.inputSchema["~standard"].jsonSchema.input(JSON_SCHEMA_TARGET);
      const output = tool.outputSchema["~standard"].jsonSchema.output(JSON_SCHEMA_TARGET);
      return {
        name: tool.name,
        title: tool.title,
        description: tool.description(deps),
        inputSchema: { type: "object", ...input } as ListedTool["inputSchema"],
        annotations: tool.annotations,
        ...(tool.execution ? { execution: tool.execution } : {}),
        outputSchema: output as ListedTool["outputSchema"],
      };
    }),
  };
}
