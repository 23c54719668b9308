// Test harness: the MCP SDK's real client over real HTTP, speaking either the 2025 (legacy) or 2026-07-28 (modern) protocol; and one plain-HTTP hermes_ask.
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

/** One tools/call hermes_ask over plain HTTP, no SDK: the status, and the answer's text as sent. */
export async function askOverHttp(url: string, token: string, prompt = "hi"): Promise<{ status: number; text: string }> {
  return callOverHttp(url, token, "hermes_ask", { prompt });
}

/** One tools/call as a bare POST (no session), its raw response text. */
export async function callOverHttp(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  return { status: response.status, text: await response.text() };
}
