// GET /.well-known/hermes-mcp/probe: lets `hermes-mcp doctor` prove the public URL reaches *this* daemon, and that streams pass unbuffered.
import { hmacSha256 } from "../crypto/primitives.ts";
import { Hono } from "hono";

export const PROBE_PATH = "/.well-known/hermes-mcp/probe";
/** The gap between the stream's two events: a tunnel that buffers delivers both together, at the end. */
export const PROBE_STREAM_GAP_MS = 1000;

const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The proof for a challenge: HMAC-SHA256 under the key this daemon drew at start. The key never leaves the machine
 * (doctor reads it from the daemon's 0600 lock record), so a daemon elsewhere — an old tunnel target, another user's —
 * cannot answer it, and a fresh challenge each run means no recorded answer can be replayed.
 */
export function probeProof(key: string, challenge: string): string {
  return hmacSha256(key, challenge, "hex");
}

export function tunnelProbeRoutes(key: string): Hono {
  const app = new Hono();
  app.get(PROBE_PATH, (c) => {
    const challenge = c.req.query("challenge") ?? "";
    if (!CHALLENGE.test(challenge))
      return c.json({ error: "invalid_request", error_description: "challenge must be 16–128 URL-safe characters" }, 400);
    const encoder = new TextEncoder();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Server-sent events with /mcp's stream headers (mcp-route.ts), so a tunnel treats the probe as it treats a tool call's progress.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(`event: proof\ndata: ${JSON.stringify({ proof: probeProof(key, challenge) })}\n\n`));
        timer = setTimeout(() => {
          controller.enqueue(encoder.encode(`event: end\ndata: {}\n\n`));
          controller.close();
        }, PROBE_STREAM_GAP_MS);
      },
      cancel() {
        clearTimeout(timer);
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
    });
  });
  return app;
}
