// Child process of the memory benchmark: holds N sync hermes_ask calls open against hermes-mcp until it is killed.
// (A process of its own so that BUN_CONFIG_MAX_HTTP_REQUESTS can lift fetch's default cap of 256 open requests.)
const [url, token, count] = [process.argv[2] as string, process.argv[3] as string, Number(process.argv[4])];
for (let i = 0; i < count; i++) {
  fetch(`${url}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params: { name: "hermes_ask", arguments: { prompt: `pending ${i}` } },
    }),
  })
    .then((r) => r.text())
    .catch(() => undefined);
}
console.log("SENT");
await Bun.sleep(600_000);
export {};
