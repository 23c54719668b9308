// GatewayClient: one streaming chat turn against the Hermes gateway (retries, one deadline, real cancel), plus health and model checks.
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import { type Logger, silentLogger } from "../log.ts";
import { type GatewayFetch, gatewayFetchFor } from "./http1.ts";
import { MalformedAnswer } from "./http1-response.ts";
import {
  abortedError,
  GatewayError,
  incompleteError,
  malformedError,
  statusError,
  timeoutError,
  noTlsThereError,
  unreachableError,
  untrustedCertificateError,
} from "./errors.ts";
import { type SseMessage, SseParser } from "./sse.ts";
import { errorFieldSchema, type HermesFacts, hermesSchema, readStreamChunk, type Usage, usageSchema } from "./stream-chunk.ts";
import {
  firstCode,
  gatewayCallId,
  gatewayCode,
  gatewayLabel,
  gatewayModelId,
  gatewaySessionId,
  UNKNOWN_STATUS,
  UNNAMED_TOOL,
} from "./untrusted.ts";
import { noTlsThere, untrustedCertificateCode } from "../web/tls-failure.ts";

export type GatewayEvent =
  | { type: "text"; delta: string }
  | { type: "tool"; tool: string; status: string; label?: string; emoji?: string; toolCallId?: string }
  | { type: "keepalive" };

export interface ChatRequest {
  prompt: string;
  /** The gateway-effective id to send as X-Hermes-Session-Id. */
  sessionId?: string | null;
  /** Wall-clock bound for the whole call, retries included. */
  timeoutMs: number;
  /** Aborting closes the stream, which makes the gateway interrupt the agent. */
  signal?: AbortSignal;
  onEvent?: (event: GatewayEvent) => void;
  onRetry?: (info: { status: number; attempt: number; waitMs: number }) => void;
}

export interface ChatResult {
  text: string;
  /** The id the gateway says the session now has (it can rotate); the sent one if it said nothing; else null. */
  sessionId: string | null;
  finishReason: string;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
}

export interface GatewayClientOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  log?: Logger;
  /** Defaults to gatewayFetchFor(baseUrl): our own HTTP/1.1 client for plain http, Bun's fetch otherwise. */
  fetch?: GatewayFetch;
  /** Retries after 429/503 (default 3). */
  maxRetries?: number;
  /** Cap on one Retry-After wait (default 10 s). */
  maxRetryWaitMs?: number;
}

const DEFAULT_CHECK_TIMEOUT_MS = 5000;
const DEFAULT_RETRY_WAIT_MS = 1000;
const DEBUG_BODY_LIMIT = 2048;
/** setTimeout fires at once beyond this. */
const MAX_TIMER_MS = 2_147_483_647;
const SESSION_HEADER = "X-Hermes-Session-Id";
/** Longest tool label and emoji passed on as progress (the job view shortens labels further). */
const MAX_LABEL_CHARS = 200;
const MAX_EMOJI_CHARS = 8;

// ---- what comes off the wire (each streamed chunk: stream-chunk.ts) ------------------------------------------------

const completionSchema = builtOnFirstUse(() =>
  z.object({
    choices: z
      .array(
        z.object({
          message: z.object({ content: z.string().nullish() }),
          finish_reason: z.string().nullish(),
        }),
      )
      .min(1),
    usage: usageSchema.nullish().catch(null),
    hermes: hermesSchema.nullish().catch(null),
  }),
);

const toolProgressSchema = builtOnFirstUse(() =>
  z.object({
    tool: z.string().min(1),
    status: z.string().min(1),
    label: z.string().nullish(),
    emoji: z.string().nullish(),
    toolCallId: z.string().nullish(),
  }),
);

const errorEnvelopeSchema = builtOnFirstUse(() =>
  z.object({
    error: errorFieldSchema.nullish().catch(null),
    hermes: hermesSchema.nullish().catch(null),
  }),
);

const healthSchema = builtOnFirstUse(() => z.object({ version: z.string().nullish().catch(null) }));
const modelsSchema = builtOnFirstUse(() => z.object({ data: z.array(z.object({ id: z.string() })) }));

// ---- one call's deadline and cancellation ---------------------------------------------------------------------------

/** One deadline and the caller's signal folded into a single AbortController; dispose() leaves no timer or listener behind. */
class CallScope {
  readonly deadline: number;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private stopped: "timeout" | "aborted" | null = null;
  private readonly onCallerAbort = (): void => this.stop("aborted");

  constructor(
    readonly timeoutMs: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    // On the monotonic clock: a wall clock set forward meanwhile must not skip the retries the deadline still allows.
    this.deadline = performance.now() + timeoutMs;
    this.timer = setTimeout(() => this.stop("timeout"), Math.min(Math.max(0, timeoutMs), MAX_TIMER_MS));
    if (callerSignal?.aborted) this.stop("aborted");
    else callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the call was cut short, or null while it runs on its own terms. */
  get reason(): "timeout" | "aborted" | null {
    return this.stopped;
  }

  /** Waits ms, or rejects as soon as the call is cut short. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) {
        reject(this.signal.reason);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(this.signal.reason);
      };
      const timer = setTimeout(() => {
        this.signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }

  private stop(why: "timeout" | "aborted"): void {
    if (this.stopped) return;
    this.stopped = why;
    clearTimeout(this.timer);
    this.controller.abort(new DOMException(why === "timeout" ? "gateway call timed out" : "gateway call cancelled", "AbortError"));
  }
}

/** What a chat call has seen so far, for the error it may end with and the log line it always ends with. */
interface ChatProgress {
  text: string;
  status: number | null;
  attempts: number;
}

// ---- the client -----------------------------------------------------------------------------------------------------

export class GatewayClient {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly model: string;
  private readonly log: Logger;
  private readonly fetchImpl: GatewayFetch;
  private readonly maxRetries: number;
  private readonly maxRetryWaitMs: number;

  constructor(options: GatewayClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.model = options.model;
    this.log = options.log ?? silentLogger;
    this.fetchImpl = options.fetch ?? gatewayFetchFor(this.baseUrl);
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.maxRetryWaitMs = Math.max(0, options.maxRetryWaitMs ?? 10_000);
  }

  /** One agent turn, streamed. Resolves only on finish_reason "stop"; every other ending throws a GatewayError. */
  async chat(request: ChatRequest): Promise<ChatResult> {
    const started = performance.now();
    const scope = new CallScope(request.timeoutMs, request.signal);
    const progress: ChatProgress = { text: "", status: null, attempts: 0 };
    const sentSession = request.sessionId ?? null;
    try {
      const result = await this.runChat(request, scope, progress);
      this.log.info("gateway chat completed", {
        duration_ms: Math.round(performance.now() - started),
        answer_chars: result.text.length,
        finish_reason: result.finishReason,
        session: result.sessionId,
        status: progress.status,
        attempts: progress.attempts,
      });
      return result;
    } catch (caught) {
      const error = this.settleError(caught, scope, progress.text);
      this.log.info("gateway chat failed", {
        duration_ms: Math.round(performance.now() - started),
        answer_chars: progress.text.length,
        reason: error instanceof GatewayError ? error.kind : "internal",
        session: sentSession,
        status: progress.status,
        attempts: progress.attempts,
      });
      throw error;
    } finally {
      scope.dispose();
    }
  }

  /** GET /v1/health (no key needed): is a gateway there, and which version. */
  async health(timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<{ version: string | null }> {
    const body = await this.getJson("/v1/health", false, timeoutMs);
    const parsed = healthSchema.safeParse(body);
    if (!parsed.success) throw malformedError(200);
    // Printed by doctor: a version that is not a plain identifier is not shown.
    return { version: gatewayCode(parsed.data.version) };
  }

  /** GET /v1/models: the model ids (route aliases) the gateway offers; proves the key too. */
  async models(timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<string[]> {
    const body = await this.getJson("/v1/models", true, timeoutMs);
    const parsed = modelsSchema.safeParse(body);
    if (!parsed.success) throw malformedError(200);
    // Printed by doctor: ids that are not plain route names are left out.
    return parsed.data.data.map((model) => model.id).filter(gatewayModelId);
  }

  // ---- chat internals ----

  private async runChat(request: ChatRequest, scope: CallScope, progress: ChatProgress): Promise<ChatResult> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.apiKey}`,
      "Content-Type": "application/json",
      Accept: "text/event-stream",
    };
    if (request.sessionId) headers[SESSION_HEADER] = request.sessionId;
    const body = JSON.stringify({ model: this.model, messages: [{ role: "user", content: request.prompt }], stream: true });
    this.log.debug("gateway chat request", { prompt_chars: request.prompt.length, session: request.sessionId ?? null });

    for (let attempt = 0; ; attempt++) {
      progress.attempts = attempt + 1;
      const response = await this.send("/v1/chat/completions", { method: "POST", headers, body }, scope);
      progress.status = response.status;

      if (response.status === 429 || response.status === 503) {
        const { code } = await this.readErrorBody(response);
        const waitMs = retryWaitMs(response.headers.get("retry-after"), this.maxRetryWaitMs);
        if (attempt < this.maxRetries && performance.now() + waitMs < scope.deadline) {
          this.log.debug("gateway busy, retrying", { status: response.status, attempt: attempt + 1, wait_ms: waitMs });
          this.safely(() => request.onRetry?.({ status: response.status, attempt: attempt + 1, waitMs }), "onRetry");
          await scope.sleep(waitMs);
          continue;
        }
        throw statusError(response.status, code);
      }
      if (response.status < 200 || response.status >= 300) {
        const { code, incompleteReason } = await this.readErrorBody(response);
        if (response.status >= 400) throw statusError(response.status, code, incompleteReason);
        throw malformedError(response.status);
      }

      const sessionId = this.returnedSession(response) ?? request.sessionId ?? null;
      const contentType = (response.headers.get("content-type") ?? "").toLowerCase();
      if (response.status === 200 && contentType.startsWith("text/event-stream")) {
        return await this.readStream(response, request, progress, sessionId);
      }
      if (response.status === 200 && contentType.startsWith("application/json")) {
        return await this.readCompletion(response, request, progress, sessionId);
      }
      this.log.debug("gateway answered an unexpected content type", { status: response.status, content_type: contentType });
      await discard(response);
      throw malformedError(response.status);
    }
  }

  /** Reads the SSE answer to its end: text deltas, tool progress, keep-alives, the final chunk, [DONE]. */
  private async readStream(
    response: Response,
    request: ChatRequest,
    progress: ChatProgress,
    sessionId: string | null,
  ): Promise<ChatResult> {
    if (!response.body) throw malformedError(response.status);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const final: { finishReason: string | null; usage: Usage | null; hermes: HermesFacts | null; errorCode: string | null; done: boolean } =
      {
        finishReason: null,
        usage: null,
        hermes: null,
        errorCode: null,
        done: false,
      };
    const handle = (message: SseMessage): void => {
      if (message.type === "comment") {
        this.emit(request, { type: "keepalive" });
        return;
      }
      if (message.event === "hermes.tool.progress") {
        this.handleToolProgress(message.data, request);
        return;
      }
      if (message.event !== undefined && message.event !== "message") {
        this.log.debug("gateway sent an event this client ignores", { event: message.event.slice(0, 64) });
        return;
      }
      if (message.data.trim() === "[DONE]") {
        final.done = true;
        return;
      }
      const chunk = readStreamChunk(parseJson(message.data));
      if (chunk === null) {
        this.log.debug("gateway sent an unreadable stream chunk", { body: truncate(message.data) });
        throw malformedError(response.status, progress.text);
      }
      for (const choice of chunk.choices) {
        const delta = choice.delta?.content;
        if (delta) {
          progress.text += delta;
          this.emit(request, { type: "text", delta });
        }
        if (choice.finish_reason) final.finishReason = choice.finish_reason;
      }
      if (chunk.usage) final.usage = chunk.usage;
      if (chunk.hermes) final.hermes = chunk.hermes;
      const code = chunk.error?.code;
      if (typeof code === "string" && code) final.errorCode = code;
    };

    try {
      while (!final.done) {
        let read: Awaited<ReturnType<typeof reader.read>>;
        try {
          read = await reader.read();
        } catch (error) {
          // Our own abort lands here too; chat() turns that into timeout/aborted.
          this.log.debug("gateway stream broke", { error: (error as Error).message });
          // A body framed wrongly (a broken chunk) is the gateway answering badly, not a stream that broke off.
          if (error instanceof MalformedAnswer) throw malformedError(response.status, progress.text);
          throw incompleteError("stream ended early", progress.text, response.status);
        }
        if (read.done) {
          for (const message of parser.push(decoder.decode())) handle(message);
          if (parser.end()) this.log.debug("gateway stream ended inside a frame");
          break;
        }
        for (const message of parser.push(decoder.decode(read.value, { stream: true }))) {
          handle(message);
          if (final.done) break;
        }
      }
    } finally {
      // Closing our side is what tells the gateway to interrupt the agent; after [DONE] it just frees the connection.
      reader.cancel().catch(() => {});
    }

    if (final.finishReason === null) {
      throw incompleteError(final.done ? "no final chunk" : "stream ended early", progress.text, response.status);
    }
    if (final.finishReason !== "stop" || final.hermes?.completed === false) {
      const reason = firstCode(
        [final.hermes?.error_code, final.finishReason !== "stop" ? final.finishReason : final.errorCode],
        "not completed",
      );
      throw incompleteError(reason, progress.text, response.status);
    }
    if (!final.done) this.log.debug("gateway stream ended after its final chunk without [DONE]");
    return { text: progress.text, sessionId, finishReason: final.finishReason, ...usageField(final.usage) };
  }

  /** Accepts a non-streaming chat.completion body (some deployments answer that way), with the same completion rules. */
  private async readCompletion(
    response: Response,
    request: ChatRequest,
    progress: ChatProgress,
    sessionId: string | null,
  ): Promise<ChatResult> {
    const raw = await this.readBody(response);
    const parsed = completionSchema.safeParse(parseJson(raw));
    if (!parsed.success) {
      this.log.debug("gateway sent an unreadable completion", { body: truncate(raw) });
      throw malformedError(response.status);
    }
    const choice = parsed.data.choices[0] as (typeof parsed.data.choices)[number];
    const text = choice.message.content ?? "";
    progress.text = text;
    if (text) this.emit(request, { type: "text", delta: text });
    const finishReason = choice.finish_reason ?? null;
    const hermes = parsed.data.hermes ?? null;
    const completed = response.headers.get("x-hermes-completed")?.trim().toLowerCase() !== "false" && hermes?.completed !== false;
    if (finishReason !== "stop" || !completed) {
      const reason = firstCode([hermes?.error_code, finishReason !== "stop" ? finishReason : null], "not completed");
      throw incompleteError(reason, text, response.status);
    }
    return { text, sessionId, finishReason, ...usageField(parsed.data.usage ?? null) };
  }

  private handleToolProgress(data: string, request: ChatRequest): void {
    const parsed = toolProgressSchema.safeParse(parseJson(data));
    if (!parsed.success) {
      this.log.debug("gateway sent an unreadable tool progress event", { body: truncate(data) });
      return;
    }
    // Shown to the client as progress: names and statuses pass the allow-list, labels become one bounded visible line.
    const { tool, status, label, emoji, toolCallId } = parsed.data;
    const event: GatewayEvent = { type: "tool", tool: gatewayCode(tool) ?? UNNAMED_TOOL, status: gatewayCode(status) ?? UNKNOWN_STATUS };
    const shownLabel = gatewayLabel(label, MAX_LABEL_CHARS);
    const shownEmoji = gatewayLabel(emoji, MAX_EMOJI_CHARS);
    const callId = gatewayCallId(toolCallId);
    if (shownLabel) event.label = shownLabel;
    if (shownEmoji) event.emoji = shownEmoji;
    if (callId) event.toolCallId = callId;
    this.emit(request, event);
  }

  /** The session id the gateway answered with, if it is one we may store and send back; a hostile one is dropped. */
  private returnedSession(response: Response): string | null {
    const returned = response.headers.get(SESSION_HEADER);
    if (!returned) return null;
    const sessionId = gatewaySessionId(returned);
    if (sessionId === null) this.log.warn("gateway returned an unusable session id; keeping the one sent", { length: returned.length });
    return sessionId;
  }

  // ---- plumbing ----

  /** GET a JSON route with its own deadline; non-2xx and unreadable bodies become GatewayErrors. */
  private async getJson(path: string, withKey: boolean, timeoutMs: number): Promise<unknown> {
    const scope = new CallScope(timeoutMs);
    try {
      const headers: Record<string, string> = { Accept: "application/json" };
      if (withKey) headers.Authorization = `Bearer ${this.apiKey}`;
      const response = await this.send(path, { method: "GET", headers }, scope);
      if (response.status < 200 || response.status >= 300) {
        const { code } = await this.readErrorBody(response);
        throw response.status >= 400 ? statusError(response.status, code) : malformedError(response.status);
      }
      const raw = await this.readBody(response);
      const body = parseJson(raw);
      if (body === undefined) {
        this.log.debug("gateway sent unreadable JSON", { path, body: truncate(raw) });
        throw malformedError(response.status);
      }
      return body;
    } catch (caught) {
      throw this.settleError(caught, scope, "");
    } finally {
      scope.dispose();
    }
  }

  /** fetch under the call's signal; a failure before any response means nothing useful is listening. */
  private async send(
    path: string,
    init: { method: string; headers: Record<string, string>; body?: string },
    scope: CallScope,
  ): Promise<Response> {
    try {
      // No Origin header, ever: the gateway answers 403 to any request carrying one.
      return await this.fetchImpl(`${this.baseUrl}${path}`, { ...init, signal: scope.signal, redirect: "manual" });
    } catch (error) {
      if (scope.reason) throw error;
      if (error instanceof MalformedAnswer) {
        this.log.debug("gateway answer unreadable", { path, error: error.message });
        throw malformedError();
      }
      this.log.debug("gateway connection failed", { path, error: (error as Error).message });
      const tls = untrustedCertificateCode(error);
      if (tls) throw untrustedCertificateError(this.baseUrl, tls, error);
      const https = this.baseUrl.startsWith("https:");
      throw https && noTlsThere(error) ? noTlsThereError(this.baseUrl, error) : unreachableError(this.baseUrl, error);
    }
  }

  /** The body as text; a connection that breaks while reading it is a malformed answer (or our own abort). */
  private async readBody(response: Response): Promise<string> {
    try {
      return await response.text();
    } catch (error) {
      this.log.debug("gateway body unreadable", { status: response.status, error: (error as Error).message });
      throw malformedError(response.status);
    }
  }

  /** Reads an error answer for the debug log and the envelope's code; never throws on a bad body. */
  private async readErrorBody(response: Response): Promise<{ code: string | null; incompleteReason: string | null }> {
    let raw = "";
    try {
      raw = await response.text();
    } catch {
      return { code: null, incompleteReason: null };
    }
    this.log.debug("gateway error answer", { status: response.status, body: truncate(raw) });
    const envelope = errorEnvelopeSchema.safeParse(parseJson(raw));
    if (!envelope.success) return { code: null, incompleteReason: null };
    const code = envelope.data.error?.code;
    return { code: typeof code === "string" ? code : null, incompleteReason: envelope.data.hermes?.error_code ?? null };
  }

  /** Our own timeout/abort wins over whatever error it caused; anything else is passed through. */
  private settleError(caught: unknown, scope: CallScope, partialText: string): unknown {
    if (scope.reason === "timeout") return timeoutError(scope.timeoutMs, partialText);
    if (scope.reason === "aborted") return abortedError(partialText);
    return caught;
  }

  private emit(request: ChatRequest, event: GatewayEvent): void {
    this.safely(() => request.onEvent?.(event), "onEvent");
  }

  /** A failing caller callback must not break the stream. */
  private safely(run: () => void, what: string): void {
    try {
      run();
    } catch (error) {
      this.log.warn(`gateway ${what} callback failed`, { error: (error as Error).message });
    }
  }
}

// ---- small helpers ------------------------------------------------------------------------------------------------

/** Retry-After in seconds (or an HTTP date), capped; 1 s when absent or unreadable. */
export function retryWaitMs(header: string | null, capMs: number): number {
  const value = header?.trim() ?? "";
  let ms = DEFAULT_RETRY_WAIT_MS;
  if (value !== "") {
    const seconds = Number(value);
    if (Number.isFinite(seconds)) ms = seconds * 1000;
    else {
      const at = Date.parse(value);
      if (!Number.isNaN(at)) ms = at - Date.now();
    }
  }
  return Math.max(0, Math.min(Math.round(ms), capMs));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length > DEBUG_BODY_LIMIT ? `${text.slice(0, DEBUG_BODY_LIMIT)}…` : text;
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

function usageField(usage: Usage | null): Pick<ChatResult, "usage"> {
  if (!usage) return {};
  return { usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens } };
}
