// Baseline: a bare Bun.serve that forwards each POST to the gateway with fetch and answers when the stream ends (no auth, no store, no MCP).
const gateway = process.env.BENCH_GATEWAY_URL ?? "";
const key = process.env.BENCH_GATEWAY_KEY ?? "";

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const prompt = await request.text();
    const upstream = await fetch(`${gateway}/v1/chat/completions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ model: "hermes-agent", stream: true, messages: [{ role: "user", content: prompt }] }),
    });
    if (!upstream.body) return new Response("no body", { status: 502 });
    const reader = upstream.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.includes("[DONE]")) break;
    }
    void reader.cancel().catch(() => {});
    return new Response(`event: message\ndata: ${JSON.stringify({ chars: text.length })}\n\n`, {
      headers: { "Content-Type": "text/event-stream" },
    });
  },
});
console.log(`LISTENING ${server.port}`);
