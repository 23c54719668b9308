// A fake Hermes gateway on loopback, faithful to the gateway API contract (hermes-gateway-api.md), steered by [[directives]] in prompts; records every request.
import type { Server } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const FAKE_GATEWAY_KEY = "test-gateway-key-0123456789";
export const FAKE_GATEWAY_VERSION = "0.19.2";

export interface FakeGatewayOptions {
  /** The gateway's API_SERVER_KEY (default FAKE_GATEWAY_KEY). */
  apiKey?: string;
  /** What /health reports (default FAKE_GATEWAY_VERSION). */
  version?: string;
  /** Model ids /v1/models lists (default ["hermes-agent"]). */
  models?: string[];
  /** Turns at once before 429 rate_limit_exceeded (the gateway's max_concurrent_runs, default 10). */
  maxConcurrentRuns?: number;
  /** Serve https with the test-only self-signed certificate (tests/support/tls), as a gateway behind a TLS proxy would. */
  tls?: boolean;
}

/** The test-only certificate an https fake gateway serves: its own CA, for NODE_EXTRA_CA_CERTS. */
export const FAKE_GATEWAY_CERT = join(import.meta.dir, "tls", "localhost-cert.pem");

/** How a request ended: still running, answered in full, or closed by the client first (the gateway's interrupt). */
export type RequestOutcome = "open" | "completed" | "disconnected";

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  hasOrigin: boolean;
  authOk: boolean;
  /** X-Hermes-Session-Id as sent, or null. */
  sessionIdSent: string | null;
  /** X-Hermes-Session-Id the fake answered with (chat only), or null. */
  sessionIdReturned: string | null;
  /** The parsed JSON body, or null (no body or not JSON). */
  body: unknown;
  /** The last message's text (chat only). */
  prompt: string | null;
  /** The body's `stream` flag (chat only). */
  stream: boolean | null;
  /** Status answered; null while nothing was answered yet; 499 when the client left before any answer ([[hang]]). */
  status: number | null;
  outcome: RequestOutcome;
  /** When the request arrived and when its answer ended: epoch milliseconds to the microsecond (preciseNow). */
  startedAt: number;
  endedAt: number | null;
  /** The client's TCP port: two requests with the same one came over one kept-alive connection. */
  clientPort: number | null;
}

export interface FakeGatewayBehavior {
  /** Directives added to every chat prompt, e.g. "[[delay:100]]". */
  directives: string;
  /** Answer every chat with 503 gateway_draining, as a restarting gateway does. */
  draining: boolean;
}

export interface FakeGateway {
  url: string;
  port: number;
  apiKey: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** The POST /v1/chat/completions requests only. */
  readonly chats: RecordedRequest[];
  /** Chat requests the client closed before the answer was complete. */
  readonly disconnects: number;
  /** Chat turns running now. */
  readonly active: number;
  setBehavior(patch: Partial<FakeGatewayBehavior>): void;
  /** Resolves once `predicate()` holds (checked on every change), rejects after timeoutMs. */
  waitFor(predicate: () => boolean, timeoutMs: number, what?: string): Promise<void>;
  /** Resolves once at least `count` (default 1) disconnects were observed. */
  waitForDisconnect(timeoutMs: number, count?: number): Promise<void>;
  /** Resolves once exactly `n` chat turns are running. */
  waitForActive(n: number, timeoutMs: number): Promise<void>;
  /** Resolves once at least `n` requests (any route) arrived. */
  waitForRequests(n: number, timeoutMs: number): Promise<void>;
  /** Closes every connection and timer; open turns end as "disconnected" (not counted in `disconnects`), pending waits reject. */
  stop(): Promise<void>;
}

/**
 * A loopback port with nothing listening on it (for "connection refused"), below the ephemeral range: a port handed
 * out for port 0 (freePort's, a gateway's) could be handed out again, and a daemon that got this one as its BIND_PORT
 * answered its own gateway calls with 404 (CI, once).
 */
export function reserveClosedPort(): number {
  const below = ephemeralRangeStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = below - 1 - Math.floor(Math.random() * Math.min(8000, below - 1025));
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
      return port;
    } catch {
      // Taken: another.
    }
  }
  throw new Error(`no free loopback port below ${below}`);
}

/** Where the ports handed out for port 0 start: Linux's setting (32768 by default); macOS's start higher, at 49152. */
export function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // Not Linux.
  }
  return 32768;
}

// ---- directives ---------------------------------------------------------------------------------------------------

/**
 * Directives read from the prompt (and setBehavior's), all optional:
 * [[delay:MS]] [[keepalive:MS]] [[tools:N]] [[step:MS]] [[odd-tools]] [[status:CODE]] [[fail-times:K]] [[retry-after:S]]
 * [[code:ID]] [[hang]] [[partial]] [[malformed]] [[malformed:sse]] [[malformed:json]] [[drop]] [[drop:reset]]
 * [[rotate]] [[json]] [[not-completed]]
 * and, to play a hostile gateway (the values are sent as they are):
 * [[finish:REASON]] (the final finish_reason) [[error-code:CODE]] (hermes.error_code) [[hermes-error:TEXT]] (hermes.error
 * and X-Hermes-Error) [[session:ID]] (the X-Hermes-Session-Id answered) [[tool-name:X]] [[tool-status:X]] [[tool-label:X]]
 * [[tool-emoji:X]] [[tool-call-id:X]] (the fields of every "running" tool event).
 * An unknown directive throws (UnknownDirectiveError), so a typo cannot silently test nothing.
 */
export interface Directives {
  delayMs: number;
  keepaliveMs: number | null;
  tools: number;
  stepMs: number;
  oddTools: boolean;
  status: number | null;
  failTimes: number | null;
  retryAfter: string;
  code: string | null;
  hang: boolean;
  partial: boolean;
  malformed: "body" | "sse" | "json" | null;
  drop: "close" | "reset" | null;
  rotate: boolean;
  json: boolean;
  notCompleted: boolean;
  finish: string | null;
  errorCode: string | null;
  hermesError: string | null;
  session: string | null;
  tool: { name: string | null; status: string | null; label: string | null; emoji: string | null; callId: string | null };
}

export class UnknownDirectiveError extends Error {
  override name = "UnknownDirectiveError";
}

const DIRECTIVE = /\[\[([a-z-]+)(?::([^\]]*))?\]\]/g;

export function parseDirectives(text: string): Directives {
  const d: Directives = {
    delayMs: 0,
    keepaliveMs: null,
    tools: 0,
    stepMs: 2,
    oddTools: false,
    status: null,
    failTimes: null,
    retryAfter: "1",
    code: null,
    hang: false,
    partial: false,
    malformed: null,
    drop: null,
    rotate: false,
    json: false,
    notCompleted: false,
    finish: null,
    errorCode: null,
    hermesError: null,
    session: null,
    tool: { name: null, status: null, label: null, emoji: null, callId: null },
  };
  for (const match of text.matchAll(DIRECTIVE)) {
    const name = match[1];
    const arg = match[2] ?? "";
    const num = Number(arg);
    switch (name) {
      case "delay":
        d.delayMs = num;
        break;
      case "keepalive":
        d.keepaliveMs = num;
        break;
      case "tools":
        d.tools = num;
        break;
      case "step":
        d.stepMs = num;
        break;
      case "odd-tools":
        d.oddTools = true;
        break;
      case "status":
        d.status = num;
        break;
      case "fail-times":
        d.failTimes = num;
        break;
      case "retry-after":
        d.retryAfter = arg;
        break;
      case "code":
        d.code = arg;
        break;
      case "hang":
        d.hang = true;
        break;
      case "partial":
        d.partial = true;
        break;
      case "malformed":
        d.malformed = arg === "sse" ? "sse" : arg === "json" ? "json" : "body";
        break;
      case "drop":
        d.drop = arg === "reset" ? "reset" : "close";
        break;
      case "rotate":
        d.rotate = true;
        break;
      case "json":
        d.json = true;
        break;
      case "not-completed":
        d.notCompleted = true;
        break;
      case "finish":
        d.finish = arg;
        break;
      case "error-code":
        d.errorCode = arg;
        break;
      case "hermes-error":
        d.hermesError = arg;
        break;
      case "session":
        d.session = arg;
        break;
      case "tool-name":
        d.tool.name = arg;
        break;
      case "tool-status":
        d.tool.status = arg;
        break;
      case "tool-label":
        d.tool.label = arg;
        break;
      case "tool-emoji":
        d.tool.emoji = arg;
        break;
      case "tool-call-id":
        d.tool.callId = arg;
        break;
      default:
        throw new UnknownDirectiveError(`fake gateway: unknown directive [[${name}]] — see parseDirectives for the ones it knows`);
    }
  }
  return d;
}

/** The prompt without its directives: what the fake echoes. */
export function stripDirectives(text: string): string {
  return text.replace(DIRECTIVE, "").replace(/\s+/g, " ").trim();
}

// ---- wire helpers -------------------------------------------------------------------------------------------------

const SESSION_HEADER = "X-Hermes-Session-Id";
/** Epoch milliseconds with the monotonic clock's precision: the bench splits added latency by these stamps. */
export const preciseNow = (): number => performance.timeOrigin + performance.now();
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const MAX_TEXT_PART = 65_536;
const TOOLS = [
  { tool: "web_search", emoji: "🔎", label: (i: number) => `web_search: "fake query ${i}"` },
  { tool: "read_file", emoji: "📖", label: (i: number) => `read_file: notes-${i}.md` },
  { tool: "terminal", emoji: "💻", label: (i: number) => `terminal: ls -la /tmp/${i}` },
] as const;

function envelope(
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Response {
  return Response.json({ error: { message, type, param: null, code }, ...extra }, { status, headers });
}

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/** Like the gateway: an id derived from the first user message when the client sends none. */
function derivedSessionId(prompt: string): string {
  return `api-${new Bun.CryptoHasher("sha256").update(prompt).digest("hex").slice(0, 16)}`;
}

function badSessionId(id: string): boolean {
  return id.length === 0 || id.length > 256 || /[\r\n\0]/.test(id) || id.includes("/") || id.includes("\\") || id.includes("..");
}

/** The text of the last message: a string, or text parts. */
function lastMessageText(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return null;
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages) || messages.length === 0) return null;
  const last: unknown = messages[messages.length - 1];
  if (typeof last !== "object" || last === null) return null;
  const content = (last as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts = content.map((part: unknown) =>
      typeof part === "object" && part !== null ? (part as { text?: unknown }).text : undefined,
    );
    if (parts.every((part) => typeof part === "string")) return parts.join("");
  }
  return null;
}

function splitAnswer(answer: string): string[] {
  if (answer.length < 3) return [answer];
  const third = Math.ceil(answer.length / 3);
  return [answer.slice(0, third), answer.slice(third, 2 * third), answer.slice(2 * third)].filter((part) => part.length > 0);
}

function usageFor(prompt: string, answer: string): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const promptTokens = prompt.split(/\s+/).filter(Boolean).length + 10;
  const completionTokens = answer.split(/\s+/).filter(Boolean).length;
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

const TRUNCATED = {
  completed: false,
  partial: true,
  failed: false,
  error: "Output truncated: the model hit its output limit",
  error_code: "output_truncated",
};

/** The `hermes` facts of an incomplete run: truncated ([[partial]]) or failed, with any hostile overrides. */
function incompleteFacts(d: Directives): Record<string, unknown> {
  const facts: Record<string, unknown> = d.partial
    ? { ...TRUNCATED }
    : { completed: false, partial: false, failed: true, error: "the run failed" };
  if (d.hermesError !== null) facts.error = d.hermesError;
  if (d.errorCode !== null) facts.error_code = d.errorCode;
  return facts;
}

/** The final finish_reason: [[finish]], else "length" for [[partial]], else "stop". */
function finishReasonOf(d: Directives): string {
  return d.finish ?? (d.partial ? "length" : "stop");
}

// ---- one chat turn's connection -------------------------------------------------------------------------------------

/** Per-turn state: its timers, and the one place a disconnect or completion is recorded. */
class Turn {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly wakers = new Set<() => void>();
  ended = false;

  constructor(
    readonly record: RecordedRequest,
    private readonly onEnd: (turn: Turn, outcome: RequestOutcome) => void,
  ) {}

  /** Waits ms; resolves early (returning false) if the turn ended meanwhile. */
  sleep(ms: number): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.wakers.delete(wake);
        resolve(!this.ended);
      }, ms);
      this.timers.add(timer);
      this.wakers.add(wake);
    });
  }

  /** Resolves when the turn ends (client disconnect or stop()). */
  untilEnded(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => this.wakers.add(resolve));
  }

  end(outcome: Exclude<RequestOutcome, "open">): void {
    if (this.ended) return;
    this.ended = true;
    this.record.outcome = outcome;
    this.record.endedAt = preciseNow();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const wake of wakers) wake();
    this.onEnd(this, outcome);
  }
}

// ---- the server -----------------------------------------------------------------------------------------------------

class FakeGatewayServer implements FakeGateway {
  url: string;
  port: number;
  readonly apiKey: string;
  requests: RecordedRequest[] = [];
  private server: Server<undefined> | null = null;
  private readonly version: string;
  private readonly models: string[];
  private readonly maxConcurrentRuns: number;
  private behavior: FakeGatewayBehavior = { directives: "", draining: false };
  private readonly turns = new Set<Turn>();
  private readonly failures = new Map<string, number>();
  /** Pending waitFor() calls: their check, their timeout, and how to fail them when the fake stops. */
  private readonly waiters = new Map<() => void, { timer: ReturnType<typeof setTimeout>; reject: (error: Error) => void }>();
  private disconnectCount = 0;
  private stopping = false;
  private readonly tls: boolean;

  constructor(options: FakeGatewayOptions) {
    this.apiKey = options.apiKey ?? FAKE_GATEWAY_KEY;
    this.version = options.version ?? FAKE_GATEWAY_VERSION;
    this.models = options.models ?? ["hermes-agent"];
    this.maxConcurrentRuns = options.maxConcurrentRuns ?? 10;
    this.tls = options.tls === true;
    this.url = "";
    this.port = 0;
  }

  start(): void {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      // A hanging turn must stay open until the client gives up, however long that is.
      idleTimeout: 0,
      ...(this.tls ? { tls: { cert: Bun.file(FAKE_GATEWAY_CERT), key: Bun.file(join(import.meta.dir, "tls", "localhost-key.pem")) } } : {}),
      fetch: (req, server) => this.route(req, server.requestIP(req)?.port ?? null),
      // [[drop:reset]] errors its body stream on purpose; that is not a fake-gateway bug worth printing. A typo'd directive is.
      error: (error) => {
        if (!(error instanceof UnknownDirectiveError)) return new Response(null, { status: 500 });
        console.error(error.message);
        return envelope(500, error.message, "server_error", "unknown_directive");
      },
    });
    this.port = this.server.port ?? 0;
    this.url = `${this.tls ? "https" : "http"}://127.0.0.1:${this.port}`;
  }

  get chats(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path === "/v1/chat/completions");
  }

  get disconnects(): number {
    return this.disconnectCount;
  }

  get active(): number {
    return this.turns.size;
  }

  setBehavior(patch: Partial<FakeGatewayBehavior>): void {
    if (patch.directives !== undefined) parseDirectives(patch.directives);
    this.behavior = { ...this.behavior, ...patch };
  }

  waitFor(predicate: () => boolean, timeoutMs: number, what = "condition"): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `fake gateway: timed out after ${timeoutMs} ms waiting for ${what} (active=${this.active}, disconnects=${this.disconnectCount}, requests=${this.requests.length})`,
          ),
        );
      }, timeoutMs);
      this.waiters.set(check, { timer, reject });
    });
  }

  waitForDisconnect(timeoutMs: number, count = 1): Promise<void> {
    return this.waitFor(() => this.disconnectCount >= count, timeoutMs, `${count} disconnect(s)`);
  }

  waitForActive(n: number, timeoutMs: number): Promise<void> {
    return this.waitFor(() => this.turns.size === n, timeoutMs, `${n} active turn(s)`);
  }

  waitForRequests(n: number, timeoutMs: number): Promise<void> {
    return this.waitFor(() => this.requests.length >= n, timeoutMs, `${n} request(s)`);
  }

  async stop(): Promise<void> {
    // Open turns end here (recorded as disconnected, not counted as client disconnects); pending waits fail.
    this.stopping = true;
    for (const turn of [...this.turns]) turn.end("disconnected");
    for (const [check, { timer, reject }] of [...this.waiters]) {
      clearTimeout(timer);
      this.waiters.delete(check);
      reject(new Error("fake gateway: stopped"));
    }
    await this.server?.stop(true);
    this.server = null;
  }

  private changed(): void {
    for (const check of [...this.waiters.keys()]) check();
  }

  // ---- routing ----

  private async route(req: Request, clientPort: number | null): Promise<Response> {
    const url = new URL(req.url);
    const headers: Record<string, string> = {};
    req.headers.forEach((value, key) => {
      headers[key.toLowerCase()] = value;
    });
    const record: RecordedRequest = {
      method: req.method,
      path: url.pathname,
      headers,
      hasOrigin: req.headers.has("origin"),
      authOk: req.headers.get("authorization") === `Bearer ${this.apiKey}`,
      sessionIdSent: req.headers.get(SESSION_HEADER),
      sessionIdReturned: null,
      body: null,
      prompt: null,
      stream: null,
      status: null,
      outcome: "open",
      startedAt: preciseNow(),
      endedAt: null,
      clientPort,
    };
    this.requests.push(record);
    this.changed();
    const response = await this.answer(req, url.pathname, record);
    if (record.status === null) record.status = response.status;
    if (record.outcome === "open" && !this.isTurnOpen(record)) {
      record.outcome = "completed";
      record.endedAt = preciseNow();
    }
    this.changed();
    return response;
  }

  private isTurnOpen(record: RecordedRequest): boolean {
    for (const turn of this.turns) if (turn.record === record) return true;
    return false;
  }

  private async answer(req: Request, path: string, record: RecordedRequest): Promise<Response> {
    // The gateway's CORS guard runs first: any Origin gets 403 with an empty body.
    if (record.hasOrigin) return new Response(null, { status: 403 });
    const isHealth = path === "/health" || path === "/v1/health";
    if (isHealth) {
      if (req.method !== "GET") return envelope(405, "Method not allowed", "invalid_request_error", "method_not_allowed");
      return Response.json({ status: "ok", platform: "hermes-agent", version: this.version });
    }
    if (!record.authOk) return envelope(401, "Invalid API key", "invalid_request_error", "invalid_api_key");
    switch (`${req.method} ${path}`) {
      case "GET /health/detailed":
        return Response.json({
          status: "ok",
          platform: "hermes-agent",
          version: this.version,
          gateway_state: this.behavior.draining ? "draining" : "running",
          active_agents: this.turns.size,
        });
      case "GET /v1/models":
        return Response.json({
          object: "list",
          data: this.models.map((id) => ({ id, object: "model", created: 1_760_000_000, owned_by: "hermes" })),
        });
      case "GET /v1/capabilities":
        return Response.json({
          object: "capabilities",
          platform: "hermes-agent",
          version: this.version,
          streaming: true,
          tool_progress_events: "hermes.tool.progress",
          session_continuity_header: SESSION_HEADER,
          session_key_header: "X-Hermes-Session-Key",
          runs_api: true,
        });
      case "POST /v1/chat/completions":
        return await this.chat(req, record);
      default:
        return envelope(404, "Not found", "invalid_request_error", "not_found");
    }
  }

  // ---- chat completions ----

  private async chat(req: Request, record: RecordedRequest): Promise<Response> {
    const raw = await req.text();
    if (raw.length > MAX_BODY_BYTES)
      return envelope(413, "Request body too large (limit 10 MB)", "invalid_request_error", "body_too_large");
    let body: unknown;
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      return envelope(400, "Invalid JSON in request body", "invalid_request_error", "invalid_json");
    }
    record.body = body;
    const prompt = lastMessageText(body);
    record.prompt = prompt;
    const stream = typeof body === "object" && body !== null && (body as { stream?: unknown }).stream === true;
    record.stream = stream;
    if (prompt === null)
      return envelope(400, "messages must end with a user message with text content", "invalid_request_error", "invalid_messages");
    if (prompt.length > MAX_TEXT_PART)
      return envelope(
        400,
        `Text part too long (${prompt.length} > ${MAX_TEXT_PART} characters)`,
        "invalid_request_error",
        "content_too_long",
      );
    if (record.sessionIdSent !== null && badSessionId(record.sessionIdSent)) {
      return envelope(400, `Invalid session id: ${record.sessionIdSent}`, "invalid_request_error", "invalid_session_id");
    }
    if (this.behavior.draining) {
      return envelope(503, "Gateway is draining; retry shortly", "server_error", "gateway_draining", { "Retry-After": "1" });
    }

    const d = parseDirectives(`${prompt} ${this.behavior.directives}`);
    if (d.status !== null) {
      const seen = (this.failures.get(prompt) ?? 0) + 1;
      this.failures.set(prompt, seen);
      if (d.failTimes === null || seen <= d.failTimes) return this.failure(d, prompt);
    }
    if (this.turns.size >= this.maxConcurrentRuns) {
      return envelope(429, `Too many concurrent runs (max ${this.maxConcurrentRuns})`, "rate_limit_error", "rate_limit_exceeded", {
        "Retry-After": "1",
      });
    }

    const sessionId = d.session ?? (d.rotate ? `api-${randomHex(8)}` : (record.sessionIdSent ?? derivedSessionId(prompt)));
    record.sessionIdReturned = sessionId;
    const model = typeof (body as { model?: unknown }).model === "string" ? (body as { model: string }).model : "hermes-agent";
    const turn = this.openTurn(record);
    req.signal.addEventListener("abort", () => turn.end("disconnected"), { once: true });

    if (d.hang) {
      // Never answers: not even headers. Ends when the client disconnects (or the fake stops).
      await turn.untilEnded();
      return new Response(null, { status: 499 });
    }
    const answer = `echo: ${stripDirectives(prompt)}`;
    if (d.malformed === "body" || d.malformed === "json" || (d.malformed === "sse" && (!stream || d.json)))
      return await this.garbage(turn, d, sessionId);
    if (!stream || d.json) return await this.completion(turn, d, { prompt, answer, sessionId, model });
    return this.streamed(turn, d, { prompt, answer, sessionId, model });
  }

  private openTurn(record: RecordedRequest): Turn {
    const turn = new Turn(record, (ended, outcome) => {
      this.turns.delete(ended);
      if (outcome === "disconnected" && !this.stopping) this.disconnectCount += 1;
      this.changed();
    });
    this.turns.add(turn);
    this.changed();
    return turn;
  }

  private failure(d: Directives, prompt: string): Response {
    const status = d.status ?? 500;
    const retry = { "Retry-After": d.retryAfter };
    switch (status) {
      case 429:
        return envelope(429, "Too many concurrent runs", "rate_limit_error", d.code ?? "rate_limit_exceeded", retry);
      case 503:
        return envelope(503, "Gateway is draining; retry shortly", "server_error", d.code ?? "gateway_draining", retry);
      case 502:
        return envelope(
          502,
          `The agent produced no response for: ${prompt}`,
          "server_error",
          d.code ?? "agent_incomplete",
          {},
          {
            hermes: {
              completed: false,
              partial: false,
              failed: true,
              error: d.hermesError ?? "provider returned an empty response (secret-detail)",
              error_code: d.errorCode ?? "agent_error",
            },
          },
        );
      case 413:
        return envelope(413, "Request body too large (limit 10 MB)", "invalid_request_error", d.code ?? "body_too_large");
      case 400:
        return envelope(400, `Unsupported content part in: ${prompt}`, "invalid_request_error", d.code ?? "unsupported_content");
      case 401:
        return envelope(401, "Invalid API key", "invalid_request_error", "invalid_api_key");
      case 403:
        return new Response(null, { status: 403 });
      case 500:
        return envelope(500, `Internal error: Traceback (most recent call last): secret-detail in ${prompt}`, "server_error", d.code);
      default:
        return envelope(status, `Failure ${status}: secret-detail`, status < 500 ? "invalid_request_error" : "server_error", d.code);
    }
  }

  /** [[malformed]]: a 200 HTML page; [[malformed:json]] (or :sse without streaming): JSON of the wrong shape. */
  private async garbage(turn: Turn, d: Directives, sessionId: string): Promise<Response> {
    if (!(await turn.sleep(d.delayMs))) return new Response(null, { status: 499 });
    turn.end("completed");
    const headers = { [SESSION_HEADER]: sessionId };
    if (d.malformed === "body") {
      return new Response("<html><body>502 Bad Gateway (secret-detail)</body></html>", {
        status: 200,
        headers: { ...headers, "Content-Type": "text/html" },
      });
    }
    return Response.json({ object: "chat.completion", choices: "secret-detail" }, { headers });
  }

  /** The non-streaming answer (stream false, or [[json]]). */
  private async completion(
    turn: Turn,
    d: Directives,
    a: { prompt: string; answer: string; sessionId: string; model: string },
  ): Promise<Response> {
    if (!(await turn.sleep(d.delayMs))) return new Response(null, { status: 499 });
    turn.end("completed");
    const headers: Record<string, string> = { [SESSION_HEADER]: a.sessionId };
    const base = { id: `chatcmpl-${randomHex(12)}`, object: "chat.completion", created: Math.floor(Date.now() / 1000), model: a.model };
    if (d.partial || finishReasonOf(d) !== "stop") {
      const content = d.partial ? a.answer.slice(0, Math.ceil(a.answer.length / 2)) : a.answer;
      const hermes = incompleteFacts(d);
      Object.assign(headers, {
        "X-Hermes-Completed": "false",
        "X-Hermes-Partial": String(d.partial),
        "X-Hermes-Error": String(hermes.error),
      });
      return Response.json(
        {
          ...base,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finishReasonOf(d) }],
          usage: usageFor(a.prompt, content),
          hermes,
        },
        { headers },
      );
    }
    if (d.notCompleted) Object.assign(headers, { "X-Hermes-Completed": "false", "X-Hermes-Error": d.hermesError ?? "run interrupted" });
    return Response.json(
      {
        ...base,
        choices: [{ index: 0, message: { role: "assistant", content: a.answer }, finish_reason: "stop" }],
        usage: usageFor(a.prompt, a.answer),
      },
      { headers },
    );
  }

  /** The SSE answer: role chunk, keep-alives while "thinking", tool progress, text deltas, final chunk, [DONE]. */
  private streamed(turn: Turn, d: Directives, a: { prompt: string; answer: string; sessionId: string; model: string }): Response {
    const encoder = new TextEncoder();
    let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      cancel() {
        // The client closed the stream: what makes the real gateway interrupt the agent.
        turn.end("disconnected");
      },
    });
    const write = (text: string): boolean => {
      if (turn.ended || controller === null) return false;
      try {
        controller.enqueue(encoder.encode(text));
        return true;
      } catch {
        turn.end("disconnected");
        return false;
      }
    };
    const base = {
      id: `chatcmpl-${randomHex(12)}`,
      object: "chat.completion.chunk",
      created: Math.floor(Date.now() / 1000),
      model: a.model,
    };
    const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }], ...extra })}\n\n`;
    const tool = (payload: Record<string, unknown>): string => `event: hermes.tool.progress\ndata: ${JSON.stringify(payload)}\n\n`;

    const script = async (): Promise<void> => {
      if (!write(chunk({ delta: { role: "assistant" }, finish_reason: null }))) return;
      // Thinking: silence, or keep-alive comments every keepaliveMs.
      let left = d.delayMs;
      while (left > 0) {
        const slice = d.keepaliveMs && d.keepaliveMs > 0 ? Math.min(d.keepaliveMs, left) : left;
        if (!(await turn.sleep(slice))) return;
        left -= slice;
        if (d.keepaliveMs && d.keepaliveMs > 0 && slice === d.keepaliveMs && !write(": keepalive\n\n")) return;
      }
      if (d.malformed === "sse") {
        write('data: {"choices": [ {secret-detail\n\n');
        return finish();
      }
      if (d.oddTools) {
        write(tool({ status: "running", label: "no tool name" }));
        write("event: hermes.tool.progress\ndata: {not json\n\n");
        write('event: hermes.other\ndata: {"x":1}\n\n');
        write(
          tool({ tool: "odd_tool", status: "running", emoji: "🧪", label: "odd", toolCallId: "call_odd", args: { q: 1 }, extra: true }),
        );
      }
      for (let i = 1; i <= d.tools; i++) {
        const t = TOOLS[(i - 1) % TOOLS.length] as (typeof TOOLS)[number];
        const name = d.tool.name ?? t.tool;
        const callId = d.tool.callId ?? `call_${i}`;
        const running = {
          tool: name,
          emoji: d.tool.emoji ?? t.emoji,
          label: d.tool.label ?? t.label(i),
          toolCallId: callId,
          status: d.tool.status ?? "running",
        };
        if (!write(tool(running))) return;
        if (!(await turn.sleep(d.stepMs))) return;
        if (!write(tool({ tool: name, toolCallId: callId, status: "completed" }))) return;
        if (!(await turn.sleep(d.stepMs))) return;
      }
      const parts = splitAnswer(d.partial || d.drop ? a.answer.slice(0, Math.ceil(a.answer.length / 2)) : a.answer);
      for (const [index, part] of parts.entries()) {
        if (!write(chunk({ delta: { content: part }, finish_reason: null }))) return;
        if (index < parts.length - 1 && !(await turn.sleep(d.stepMs))) return;
      }
      if (d.drop === "reset") {
        await turn.sleep(d.stepMs);
        // Erroring the body makes Bun reset the connection (an undefined reason keeps it from printing a stack).
        if (!turn.ended) controller?.error(undefined);
        turn.end("completed");
        return;
      }
      if (d.drop === "close") return finish();
      const text = parts.join("");
      if (d.partial || finishReasonOf(d) !== "stop") {
        const hermes = incompleteFacts(d);
        const error = { message: hermes.error, type: "server_error", code: d.code ?? (d.partial ? "output_truncated" : "agent_error") };
        write(chunk({ delta: {}, finish_reason: finishReasonOf(d) }, { usage: usageFor(a.prompt, text), error, hermes }));
      } else {
        write(chunk({ delta: {}, finish_reason: "stop" }, { usage: usageFor(a.prompt, text) }));
      }
      write("data: [DONE]\n\n");
      finish();
    };
    const finish = (): void => {
      if (turn.ended) return;
      turn.end("completed");
      try {
        controller?.close();
      } catch {
        // already closed by the client
      }
    };
    // Start after the Response is handed to Bun, like a gateway that answers headers first.
    queueMicrotask(() => void script());

    return new Response(body, {
      status: 200,
      headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", [SESSION_HEADER]: a.sessionId },
    });
  }
}

export async function startFakeGateway(options: FakeGatewayOptions = {}): Promise<FakeGateway> {
  const gateway = new FakeGatewayServer(options);
  gateway.start();
  return gateway;
}
