// Baseline: the least a bridge can add on this machine — a bare Bun.serve that forwards each POST over one kept-alive TCP socket (Bun.connect, no fetch) and answers when the stream ends.
/*
 * proxy-server.ts asks the gateway with fetch, which Bun runs on a thread of its own: one more hand-over each way.
 * hermes-mcp talks to a plain-http gateway over its own HTTP/1.1 client on Bun.connect (src/gateway/http1.ts), so this
 * one does too, with nothing else: no auth, no store, no MCP, no parsing beyond where the answer ends. One request at
 * a time (the latency bench's calls are sequential); a second one while the first is open is refused.
 *
 * With BENCH_STORE_PATH (a database file), it also keeps the durability promise hermes-mcp keeps for a sync call, with
 * hermes-mcp's own store (src/store): the job's row written within a millisecond after its request leaves, a WAL
 * checkpoint every CHECKPOINT_EVERY_JOBS calls run right after a request leaves, and the ending committed before the
 * answer. The answer's length stands in for its text (this proxy parses no events). What that adds is what durability
 * costs a bridge here, apart from authentication, MCP and reading the gateway's events.
 */
import type { Store } from "../../src/store/index.ts";

const gateway = new URL(process.env.BENCH_GATEWAY_URL ?? "");
const key = process.env.BENCH_GATEWAY_KEY ?? "";
// Loaded only to store: the bare proxy runs none of hermes-mcp's code, not even at start.
const store = process.env.BENCH_STORE_PATH ? (await import("../../src/store/index.ts")).openStore(process.env.BENCH_STORE_PATH) : null;

/** The end of a chunked body (RFC 9112 §7.1): the last chunk, no trailers. */
const LAST_CHUNK = "\r\n0\r\n\r\n";

interface Waiting {
  resolve: (answer: string) => void;
  reject: (error: Error) => void;
  received: string;
}
let waiting: Waiting | null = null;
let closed = false;

const connection = await Bun.connect({
  hostname: gateway.hostname,
  port: Number(gateway.port),
  socket: {
    data(_socket, bytes) {
      if (!waiting) return;
      waiting.received += bytes.toString("latin1");
      const head = waiting.received.indexOf("\r\n\r\n");
      if (head < 0) return;
      const headers = waiting.received.slice(0, head).toLowerCase();
      const length = /\r\ncontent-length: *(\d+)/.exec(headers)?.[1];
      const complete =
        length !== undefined
          ? waiting.received.length - head - 4 >= Number(length)
          : headers.includes("\r\ntransfer-encoding: chunked") && waiting.received.endsWith(LAST_CHUNK);
      if (!complete) return;
      const done = waiting;
      waiting = null;
      done.resolve(done.received.slice(head + 4));
    },
    close() {
      closed = true;
      waiting?.reject(new Error("the gateway closed the connection"));
      waiting = null;
    },
  },
});

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const prompt = await request.text();
    if (closed) return new Response("the gateway closed the connection", { status: 502 });
    if (waiting) return new Response("one request at a time", { status: 503 });
    const body = JSON.stringify({ model: "hermes-agent", stream: true, messages: [{ role: "user", content: prompt }] });
    const answered = new Promise<string>((resolve, reject) => {
      waiting = { resolve, reject, received: "" };
      connection.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: ${gateway.host}\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    const id = store ? storeStarted(store, prompt) : null;
    const answer = await answered;
    // The ending's status, read back from the committed row (null without a store): the bench checks it.
    const stored =
      store && id
        ? (store.jobs.finish(id, { status: "completed", finishedAt: Date.now(), result: String(answer.length), endReason: "completed" })
            ?.status ?? null)
        : null;
    return new Response(`event: message\ndata: ${JSON.stringify({ chars: answer.length, stored })}\n\n`, {
      headers: { "Content-Type": "text/event-stream" },
    });
  },
});
console.log(`LISTENING ${server.port}`);

/** A sync call's row, as JobService stores one whose gateway request has just left; its id. */
function storeStarted(store: Store, prompt: string): string {
  const id = crypto.randomUUID();
  const now = Date.now();
  const job = {
    id,
    principal: "bench",
    mode: "sync" as const,
    promptChars: prompt.length,
    sessionLabel: null,
    createdAt: now,
    startedAt: now,
  };
  store.jobs.insertSoon(job, (error) => console.error(`could not store ${id}: ${error.message}`));
  setImmediate(() => store.checkpointIfDue());
  return id;
}

// A module of its own (its names are not the other baselines' globals).
export {};
