// Test harness: the MCP SDK's real client over real HTTP, speaking either the 2025 (legacy) or 2026-07-28 (modern) protocol.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export type Era = "legacy" | "modern";

export async function connectClient(baseUrl: string, token: string, era: Era = "legacy"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: "hermes-mcp-tests", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: "auto" } } : undefined,
  );
  await client.connect(transport);
  return client;
}

/** The JSON a tool returned as structuredContent (asserting it matches the text block). */
export function structuredOf(result: unknown): Record<string, unknown> {
  const r = result as { structuredContent?: Record<string, unknown>; content?: { type: string; text?: string }[] };
  if (!r.structuredContent) throw new Error(`no structuredContent in ${JSON.stringify(result)}`);
  return r.structuredContent;
}

export function textOf(result: unknown): string {
  const r = result as { content?: { type: string; text?: string }[] };
  return (r.content ?? []).map((c) => c.text ?? "").join("\n");
}
