// Bare JSON-RPC over Streamable HTTP (one POST, JSON or SSE answer): what the crash loop and fuzz use where an SDK client would hide a dropped connection.

export interface ToolAnswer {
  isError: boolean;
  /** structuredContent, or {} when there is none. */
  data: Record<string, unknown>;
  text: string;
}

let nextId = 1;

/** POSTs one JSON-RPC request to /mcp and returns its result (throws on a transport failure, a non-200 or a JSON-RPC error). */
export async function rpc(url: string, token: string, method: string, params: Record<string, unknown>): Promise<unknown> {
  const id = nextId++;
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  const messages = (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
    : [JSON.parse(text) as Record<string, unknown>];
  const answer = messages.find((m) => m.id === id && ("result" in m || "error" in m));
  if (!answer) throw new Error(`${method}: no answer to request ${id} in ${text.slice(0, 200)}`);
  if (answer.error) throw new Error(`${method}: JSON-RPC error ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** tools/call, with the tool's structured answer. */
export async function callTool(url: string, token: string, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = (await rpc(url, token, "tools/call", { name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content?: { text?: string }[];
  };
  return {
    isError: result.isError === true,
    data: result.structuredContent ?? {},
    text: (result.content ?? []).map((c) => c.text ?? "").join("\n"),
  };
}
