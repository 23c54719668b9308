// Decides which requests can skip the SDK's per-request server: simple 2025-era JSON-RPC calls and a session's own notifications.
import { isPlainObject } from "../web/plain-object.ts";

/**
 * 2025-era revisions the SDK serves statelessly (its SUPPORTED_PROTOCOL_VERSIONS before 2026, pinned here so the fast
 * lane does not load the SDK; tests/mcp/fast-lane.test.ts keeps the two equal); a 2026-07-28 (or unknown) revision
 * always goes to the SDK.
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
const LEGACY_VERSIONS = new Set(LEGACY_PROTOCOL_VERSIONS);
export const isLegacyProtocolVersion = (version: string): boolean => LEGACY_VERSIONS.has(version);
/** Methods this server does not have: the SDK answers each with -32601, and so does the fast lane (fast-session.ts). */
export const UNIMPLEMENTED_METHODS = [
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
] as const;
const FAST_METHODS = new Set<string>(["ping", "tools/list", "tools/call", "initialize", "logging/setLevel", ...UNIMPLEMENTED_METHODS]);
/** A 2025-era client's own notifications: it has connected, it cancels a call, its roots changed (nothing here uses them). */
const FAST_NOTIFICATIONS = new Set(["notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed"]);

export interface FastCall {
  id: string | number;
  method: "ping" | "tools/list" | "tools/call" | "initialize" | "logging/setLevel" | (typeof UNIMPLEMENTED_METHODS)[number];
  params: Record<string, unknown>;
  /** The caller's progress token, when it asked for progress notifications. */
  progressToken?: string | number;
}

export interface FastNotification {
  method: "notifications/initialized" | "notifications/cancelled" | "notifications/roots/list_changed";
  params: Record<string, unknown>;
}

/** A message's params as an object (absent reads as `{}`), or null: `params: null` is not absent, and the SDK refuses it. */
function paramsOf(message: Record<string, unknown>): Record<string, unknown> | null {
  const params = message.params === undefined ? {} : message.params;
  return isPlainObject(params) ? params : null;
}

/**
 * The JSON-RPC message of a 2025-era POST the SDK would accept at the HTTP level, or null: a modern or unknown protocol
 * header, an Accept or Content-Type the SDK would refuse, a batch or anything not a JSON-RPC 2.0 message with a method.
 */
function legacyMessageOf(headers: Headers, body: unknown): Record<string, unknown> | null {
  const version = headers.get("mcp-protocol-version");
  if (version !== null && !isLegacyProtocolVersion(version)) return null;
  const accept = headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return null;
  if (!(headers.get("content-type") ?? "").includes("application/json")) return null;
  if (!isPlainObject(body) || body.jsonrpc !== "2.0" || typeof body.method !== "string") return null;
  return body;
}

/**
 * A request the fast lane may answer, or null. Anything unusual — another method, a batch, a notification, a
 * per-request envelope, a modern or unknown protocol header, headers the SDK would refuse — is left to the SDK, which
 * stays the single authority on protocol errors.
 */
export function fastCallOf(headers: Headers, body: unknown): FastCall | null {
  const message = legacyMessageOf(headers, body);
  if (!message || !FAST_METHODS.has(message.method as string)) return null;
  const id = message.id;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isInteger(id)))) return null;
  const params = paramsOf(message);
  if (!params) return null;
  const meta = params._meta;
  let progressToken: string | number | undefined;
  if (meta !== undefined) {
    if (!isPlainObject(meta)) return null;
    // A 2026 per-request envelope belongs to the modern path.
    if (Object.keys(meta).some((key) => key.startsWith("io.modelcontextprotocol/"))) return null;
    const token = meta.progressToken;
    if (token !== undefined) {
      // The SDK's ProgressTokenSchema: a string or an integer.
      if (typeof token !== "string" && !(typeof token === "number" && Number.isInteger(token))) return null;
      progressToken = token;
    }
  }
  return { id, method: message.method as FastCall["method"], params, progressToken };
}

/** A 2025-era session's own notification (FAST_NOTIFICATIONS) with no id and no `_meta`, or null for the SDK. */
export function fastNotificationOf(headers: Headers, body: unknown): FastNotification | null {
  const message = legacyMessageOf(headers, body);
  if (!message || "id" in message || !FAST_NOTIFICATIONS.has(message.method as string)) return null;
  const params = paramsOf(message);
  if (!params || params._meta !== undefined) return null;
  return { method: message.method as FastNotification["method"], params };
}

// One Headers instance, copied by each Response (cheaper than converting an object literal every time).
const SSE_HEADERS = new Headers({
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
});

// One encoder for every streamed call: TextEncoder keeps no state between calls, so a pending call need not carry its own.
const encoder = new TextEncoder();

const resultEvent = (id: string | number, result: unknown): string => resultEventJson(id, JSON.stringify(result));
const resultEventJson = (id: string | number, resultJson: string): string =>
  `event: message\ndata: {"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n\n`;

/** The same single-event SSE answer the SDK's stateless transport sends. */
export function sseResult(id: string | number, result: unknown): Response {
  return new Response(resultEvent(id, result), { headers: SSE_HEADERS });
}

/** The same, for a result already serialised (a cached tools/list). */
export function sseResultJson(id: string | number, resultJson: string): Response {
  return new Response(resultEventJson(id, resultJson), { headers: SSE_HEADERS });
}

/** A JSON-RPC error as one SSE event, shaped as the SDK sends its own. */
export function sseError(id: string | number, code: number, message: string): Response {
  const event = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n\n`;
  return new Response(event, { headers: SSE_HEADERS });
}

/**
 * An SSE answer for a call that may report progress while `work` runs. Until the first notification there is nothing
 * to stream, so a call that finishes first gets the plain one-event answer (no chunked stream to set up and tear down);
 * from the first notification on, events stream as they come. `work` gets a signal aborted when the client goes away.
 */
export function sseStream(
  id: string | number,
  requestSignal: AbortSignal,
  work: (send: (notification: { method: string; params: Record<string, unknown> }) => void, signal: AbortSignal) => Promise<unknown>,
): Promise<Response> {
  const gone = new AbortController();
  const onRequestAbort = (): void => gone.abort("client disconnected");
  requestSignal.addEventListener("abort", onRequestAbort, { once: true });
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  return new Promise<Response>((resolve) => {
    const write = (text: string): void => {
      if (gone.signal.aborted) return;
      if (!controller) {
        const stream = new ReadableStream<Uint8Array>({
          start(c) {
            controller = c;
          },
          cancel() {
            gone.abort("client disconnected");
          },
        });
        resolve(new Response(stream, { headers: SSE_HEADERS }));
      }
      controller?.enqueue(encoder.encode(text));
    };
    work((n) => write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", ...n })}\n\n`), gone.signal)
      .then((result) => {
        if (!controller) return resolve(sseResult(id, result));
        write(resultEvent(id, result));
        if (!gone.signal.aborted) controller.close();
      })
      .finally(() => requestSignal.removeEventListener("abort", onRequestAbort));
  });
}
