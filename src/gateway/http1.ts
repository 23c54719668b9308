// A fetch for plain-http gateways: HTTP/1.1 over Bun.connect on the daemon's own thread, connections kept alive.
import type { Socket } from "bun";

/**
 * Why not Bun's fetch: it runs on an HTTP thread of its own, so every request and every streamed chunk crosses two
 * threads, and each body read gets a fresh 64 KiB buffer (garbage collections every ~20 calls). Here the socket lives on
 * the event loop that parses the stream: a sync hermes_ask answers sooner and allocates what arrives, not 64 KiB.
 * Only the part of HTTP/1.1 a gateway speaks: Content-Length, chunked or close-delimited bodies, 1xx skipped, no
 * redirects followed, no compression asked for (so none is sent).
 */
export interface GatewayRequestInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "manual";
}

export type GatewayFetch = (url: string, init: GatewayRequestInit) => Promise<Response>;

/** The longest status line and headers read before the answer is called malformed. */
const MAX_HEAD_BYTES = 64 * 1024;
/** The longest chunk-size or trailer line. */
const MAX_LINE_BYTES = 8 * 1024;
/** Idle connections kept per gateway, and how long one may stay idle (the gateway's own keep-alive is 75 s). */
const MAX_IDLE_PER_ORIGIN = 16;
const IDLE_SECONDS = 30;

// RFC 9110 §5.1 token; a value is visible characters, spaces and tabs only (RFC 9110 §5.5): no CR or LF to inject a header.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE_FORBIDDEN = /[^\t\x20-\x7E\x80-\xFF]/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const CRLF_CRLF = [13, 10, 13, 10] as const;

type BodyFraming = { kind: "none" } | { kind: "length"; remaining: number } | { kind: "chunked" } | { kind: "close" };

/** The request being answered on one connection: parses the bytes in, feeds the body stream, settles the fetch. */
class Exchange {
  private headBuffer: Uint8Array | null = null;
  private headLength = 0;
  private framing: BodyFraming | null = null;
  private chunkState: "size" | "data" | "data-crlf" | "trailers" = "size";
  private chunkRemaining = 0;
  private line: number[] = [];
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private keepAlive = true;
  /** Bytes seen from the server at all: a reused connection that closes before any is safe to retry. */
  private received = 0;
  private settled = false;
  private done = false;
  private reported = false;

  constructor(
    private readonly method: string,
    /** Whether the connection carried an earlier exchange (a closed one may then be retried). */
    private readonly reused: boolean,
    private readonly resolve: (response: Response) => void,
    private readonly reject: (error: unknown) => void,
    /** Called once, when the exchange is over for any reason: whether the connection may carry another request. */
    private readonly over: (reusable: boolean) => void,
  ) {}

  /** Bytes from the socket. */
  feed(bytes: Uint8Array): void {
    this.received += bytes.length;
    let rest: Uint8Array | null = bytes;
    while (rest && rest.length > 0 && !this.done) {
      rest = this.framing === null ? this.feedHead(rest) : this.feedBody(rest);
    }
    // Anything after the end of the answer was never asked for: the connection is not trusted with another request.
    if (rest && rest.length > 0) this.keepAlive = false;
    if (this.done) this.report(this.keepAlive);
  }

  /** The connection ended; a close-delimited body ends here, anything else is cut short. */
  closed(error?: Error): void {
    if (this.done) return;
    if (this.framing?.kind === "close" && !error) {
      this.end();
      this.report(false);
      return;
    }
    const cut = error ?? new Error("the gateway closed the connection before the answer was complete");
    this.fail(this.reused && this.received === 0 ? new StaleConnection(cut) : cut);
  }

  /** Stops the exchange with this reason: rejects the fetch, or errors the body already handed out. */
  fail(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.keepAlive = false;
    if (!this.settled) {
      this.settled = true;
      this.reject(reason);
    } else {
      try {
        this.controller?.error(reason);
      } catch {
        // The reader already went away.
      }
    }
    this.report(false);
  }

  private feedHead(bytes: Uint8Array): Uint8Array | null {
    // Usually the whole head comes in one piece and is parsed in place; a head in pieces is gathered in one buffer,
    // scanning only what is new (a gateway sending a byte at a time costs linear work, not quadratic).
    const from = Math.max(0, this.headLength - 3);
    const all = this.headLength === 0 ? bytes : this.gather(bytes);
    const end = indexOfCrlfCrlf(all, from);
    if (end > MAX_HEAD_BYTES || (end < 0 && all.length > MAX_HEAD_BYTES)) {
      this.fail(new MalformedAnswer("headers larger than 64 KiB"));
      return null;
    }
    if (end < 0) {
      if (this.headLength === 0) this.gather(bytes);
      return null;
    }
    this.headBuffer = null;
    this.headLength = 0;
    const rest = all.subarray(end + 4);
    const parsed = parseHead(Buffer.from(all.buffer, all.byteOffset, end).toString("latin1"));
    if (typeof parsed === "string") {
      this.fail(new MalformedAnswer(parsed));
      return null;
    }
    // 1xx answers are interim (RFC 9110 §15.2): the real one follows on the same connection.
    if (parsed.status < 200) {
      if (parsed.status === 101) this.fail(new MalformedAnswer("a switch of protocols nobody asked for"));
      return rest;
    }
    const framing = framingOf(this.method, parsed.status, parsed.headers);
    if (typeof framing === "string") {
      this.fail(new MalformedAnswer(framing));
      return null;
    }
    this.framing = framing;
    const connection = (parsed.headers.get("connection") ?? "").toLowerCase();
    this.keepAlive = framing.kind !== "close" && (parsed.minor === 1 ? !connection.includes("close") : connection.includes("keep-alive"));
    const nullBody = framing.kind === "none";
    const body = nullBody
      ? null
      : new ReadableStream<Uint8Array>({
          start: (controller) => {
            this.controller = controller;
          },
          cancel: () => {
            if (this.done) return;
            this.done = true;
            this.report(false);
          },
        });
    this.settled = true;
    this.resolve(new Response(body, { status: parsed.status, statusText: parsed.reason, headers: parsed.headers }));
    if (nullBody) this.end();
    return rest;
  }

  /** Appends to the gathered head; what was gathered so far, as one view. */
  private gather(bytes: Uint8Array): Uint8Array {
    const needed = this.headLength + bytes.length;
    if (!this.headBuffer || this.headBuffer.length < needed) {
      const grown = new Uint8Array(Math.max(needed, (this.headBuffer?.length ?? 2048) * 2));
      if (this.headBuffer) grown.set(this.headBuffer.subarray(0, this.headLength));
      this.headBuffer = grown;
    }
    this.headBuffer.set(bytes, this.headLength);
    this.headLength = needed;
    return this.headBuffer.subarray(0, needed);
  }

  private feedBody(bytes: Uint8Array): Uint8Array | null {
    const framing = this.framing as BodyFraming;
    if (framing.kind === "close") {
      this.push(bytes);
      return null;
    }
    if (framing.kind === "length") {
      const take = Math.min(framing.remaining, bytes.length);
      if (take > 0) this.push(bytes.subarray(0, take));
      framing.remaining -= take;
      if (framing.remaining === 0) this.end();
      return bytes.subarray(take);
    }
    return this.feedChunked(bytes);
  }

  /** RFC 9112 §7.1: size line, data, CRLF, …, a zero size, trailers, an empty line. */
  private feedChunked(bytes: Uint8Array): Uint8Array | null {
    let at = 0;
    while (at < bytes.length && !this.done) {
      if (this.chunkState === "data") {
        const take = Math.min(this.chunkRemaining, bytes.length - at);
        this.push(bytes.subarray(at, at + take));
        at += take;
        this.chunkRemaining -= take;
        if (this.chunkRemaining === 0) this.chunkState = "data-crlf";
        continue;
      }
      const byte = bytes[at++] as number;
      if (byte !== 10) {
        if (this.line.length >= MAX_LINE_BYTES) {
          this.fail(new Error("the gateway sent an overlong chunk line"));
          return null;
        }
        this.line.push(byte);
        continue;
      }
      const line = String.fromCharCode(...this.line).replace(/\r$/, "");
      this.line = [];
      if (this.chunkState === "data-crlf") {
        if (line !== "") return this.malformedChunk("no line break after a chunk");
        this.chunkState = "size";
      } else if (this.chunkState === "size") {
        const size = /^([0-9A-Fa-f]{1,12})[ \t]*(;.*)?$/.exec(line);
        if (!size) return this.malformedChunk("an unreadable chunk size");
        this.chunkRemaining = Number.parseInt(size[1] as string, 16);
        this.chunkState = this.chunkRemaining === 0 ? "trailers" : "data";
      } else if (line === "") {
        this.end();
      }
    }
    return bytes.subarray(at);
  }

  private malformedChunk(what: string): null {
    this.fail(new Error(`the gateway sent a malformed chunked body: ${what}`));
    return null;
  }

  private push(bytes: Uint8Array): void {
    // The socket's buffer is not ours to keep: the stream gets a copy.
    if (bytes.length > 0) this.controller?.enqueue(bytes.slice());
  }

  private end(): void {
    if (this.done) return;
    this.done = true;
    try {
      this.controller?.close();
    } catch {
      // The reader already went away.
    }
  }

  /** Hands the connection back once, whatever ended the exchange. */
  private report(reusable: boolean): void {
    if (this.reported) return;
    this.reported = true;
    this.over(reusable);
  }
}

interface Head {
  minor: number;
  status: number;
  reason: string;
  headers: Headers;
}

function parseHead(text: string): Head | string {
  const lines = text.split("\r\n");
  const status = STATUS_LINE.exec(lines[0] ?? "");
  if (!status) return "an unreadable status line";
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!HEADER_NAME.test(name)) return "an unreadable header line";
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      return "an unreadable header value";
    }
  }
  return { minor: Number(status[1]), status: Number(status[2]), reason: status[3] ?? "", headers };
}

/** RFC 9112 §6.3: how the body's end is known. */
function framingOf(method: string, status: number, headers: Headers): BodyFraming | string {
  if (method === "HEAD" || status === 204 || status === 304) return { kind: "none" };
  const transfer = headers.get("transfer-encoding");
  if (transfer !== null) {
    // Both present is how requests get smuggled (RFC 9112 §6.1): refused rather than guessed.
    if (headers.has("content-length")) return "both Transfer-Encoding and Content-Length";
    const codings = transfer.toLowerCase().split(",");
    return codings[codings.length - 1]?.trim() === "chunked" ? { kind: "chunked" } : { kind: "close" };
  }
  const length = headers.get("content-length");
  if (length === null) return { kind: "close" };
  const values = new Set(length.split(",").map((value) => value.trim()));
  const [only] = values;
  if (values.size !== 1 || only === undefined || !/^\d{1,15}$/.test(only)) return "an unreadable Content-Length";
  const remaining = Number(only);
  return remaining === 0 ? { kind: "none" } : { kind: "length", remaining };
}

function indexOfCrlfCrlf(bytes: Uint8Array, from: number): number {
  const first = CRLF_CRLF[0];
  for (let i = bytes.indexOf(first, from); i >= 0 && i + 3 < bytes.length; i = bytes.indexOf(first, i + 1)) {
    if (bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

/** One TCP connection to the gateway and the exchange it carries, if any. */
interface Connection {
  socket: Socket<Connection>;
  origin: string;
  exchange: Exchange | null;
  /** Request bytes not yet taken by the socket (a large prompt meets backpressure). */
  outbox: Uint8Array | null;
  idle: boolean;
}

export class Http1Agent {
  private readonly idle = new Map<string, Connection[]>();

  /** fetch's shape, for what GatewayClient sends. */
  readonly fetch: GatewayFetch = (url, init) => this.request(this.parsed(url), init, true);
  /** The few URLs a gateway client uses, parsed once. */
  private readonly urls = new Map<string, URL>();

  /** Closes every idle connection. */
  close(): void {
    for (const list of this.idle.values()) for (const connection of list) connection.socket.end();
    this.idle.clear();
  }

  private parsed(url: string): URL {
    let parsed = this.urls.get(url);
    if (!parsed) {
      parsed = new URL(url);
      if (this.urls.size >= 32) this.urls.clear();
      this.urls.set(url, parsed);
    }
    return parsed;
  }

  private async request(url: URL, init: GatewayRequestInit, mayReuse: boolean): Promise<Response> {
    if (url.protocol !== "http:") throw new TypeError(`Http1Agent speaks plain http only, not ${url.protocol}`);
    const signal = init.signal;
    signal?.throwIfAborted();
    const message = encodeRequest(url, init);
    const reused = mayReuse ? this.takeIdle(url.host) : null;
    const connection = reused ?? (await untilAborted(this.connect(url), signal, (late) => late.socket.end()));
    try {
      return await this.exchange(connection, init.method, message, reused !== null, signal);
    } catch (error) {
      if (!(error instanceof StaleConnection)) throw error;
      // A kept-alive connection the gateway closed before answering a byte: it had gone idle-closed as we sent, so the
      // request was never read, and one retry on a fresh connection is safe (what browsers do for the same race).
      return this.request(url, init, false);
    }
  }

  private exchange(
    connection: Connection,
    method: string,
    message: string,
    reused: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      const onAbort = (): void => exchange.fail(signal?.reason);
      const exchange = new Exchange(method, reused, resolve, reject, (reusable) => {
        signal?.removeEventListener("abort", onAbort);
        this.release(connection, reusable);
      });
      connection.exchange = exchange;
      // (A fresh socket is referenced and has no timeout; an idle one had both changed.)
      if (reused) {
        connection.socket.ref();
        connection.socket.timeout(0);
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.send(connection, message);
    });
  }

  /** The request as one string write (the socket encodes it); what the socket could not take waits for its drain. */
  private send(connection: Connection, message: string): void {
    const written = connection.socket.write(message);
    const total = Buffer.byteLength(message, "utf8");
    connection.outbox = written >= 0 && written < total ? Buffer.from(message, "utf8").subarray(written) : null;
  }

  private write(connection: Connection, bytes: Uint8Array): void {
    const written = connection.socket.write(bytes);
    connection.outbox = written >= 0 && written < bytes.length ? bytes.subarray(written) : null;
  }

  private async connect(url: URL): Promise<Connection> {
    const origin = url.host;
    // An IPv6 literal comes bracketed in URL.hostname; the socket wants it bare.
    const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
    try {
      const socket = await Bun.connect<Connection | undefined>({
        hostname,
        port: url.port === "" ? 80 : Number(url.port),
        data: undefined,
        socket: {
          data: (socket, data) => {
            const exchange = socket.data?.exchange;
            if (exchange) exchange.feed(data);
            // Bytes nobody asked for (on an idle connection): it cannot be trusted with a request any more.
            else if (socket.data) this.release(socket.data, false);
          },
          drain: (socket) => {
            const pending = socket.data?.outbox;
            if (socket.data && pending) this.write(socket.data, pending);
          },
          timeout: (socket) => {
            if (socket.data?.idle) this.release(socket.data, false);
          },
          end: (socket) => {
            this.lost(socket.data);
            socket.end();
          },
          close: (socket, error) => this.lost(socket.data, error),
          error: (socket, error) => this.lost(socket.data, error),
        },
      });
      const connection: Connection = { socket: socket as Socket<Connection>, origin, exchange: null, outbox: null, idle: false };
      socket.data = connection;
      socket.setNoDelay(true);
      return connection;
    } catch (error) {
      throw new TypeError(`could not connect to ${origin}: ${(error as Error).message ?? String(error)}`, { cause: error });
    }
  }

  /** The connection ended from the other side: its exchange, if any, ends with it; it leaves the idle list. */
  private lost(connection: Connection | undefined, error?: Error): void {
    if (!connection) return;
    const exchange = connection.exchange;
    connection.exchange = null;
    exchange?.closed(error);
    this.forget(connection);
  }

  private takeIdle(origin: string): Connection | null {
    const connection = this.idle.get(origin)?.pop() ?? null;
    if (connection) connection.idle = false;
    return connection;
  }

  /** After an exchange: back to the idle list when reusable, else closed. */
  private release(connection: Connection, reusable: boolean): void {
    connection.exchange = null;
    connection.outbox = null;
    const list = this.idle.get(connection.origin) ?? [];
    if (!reusable || connection.idle || list.length >= MAX_IDLE_PER_ORIGIN) {
      this.forget(connection);
      connection.idle = false;
      connection.socket.end();
      return;
    }
    connection.idle = true;
    // An idle connection keeps no CLI process alive and does not outlive the gateway's own keep-alive.
    connection.socket.unref();
    connection.socket.timeout(IDLE_SECONDS);
    list.push(connection);
    this.idle.set(connection.origin, list);
  }

  private forget(connection: Connection): void {
    const list = this.idle.get(connection.origin);
    if (!list) return;
    const at = list.indexOf(connection);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.idle.delete(connection.origin);
  }
}

/** The promise, unless the signal aborts first (then `late` gets what the promise brings after all). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined, late: (value: T) => void): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) late(value);
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** The gateway answered, but not in HTTP/1.1 we can read: the answer is malformed, the gateway not unreachable. */
export class MalformedAnswer extends TypeError {
  constructor(what: string) {
    super(`the gateway sent a malformed response: ${what}`);
  }
}

/** A reused connection that failed before a single byte came back. */
class StaleConnection extends Error {
  constructor(override readonly cause: unknown) {
    super("stale keep-alive connection");
  }
}

function encodeRequest(url: URL, init: GatewayRequestInit): string {
  let head = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const name in init.headers) {
    const value = init.headers[name] as string;
    if (!HEADER_NAME.test(name)) throw new TypeError(`invalid header name: ${JSON.stringify(name)}`);
    if (HEADER_VALUE_FORBIDDEN.test(value)) throw new TypeError(`invalid value for header ${name}`);
    const lower = name.toLowerCase();
    if (lower === "host" || lower === "content-length" || lower === "transfer-encoding" || lower === "connection") continue;
    head += `${name}: ${value}\r\n`;
  }
  const body = init.body;
  if (body !== undefined || (init.method !== "GET" && init.method !== "HEAD")) {
    head += `Content-Length: ${body === undefined ? 0 : Buffer.byteLength(body, "utf8")}\r\n`;
  }
  return `${head}\r\n${body ?? ""}`;
}

/** The fetch GatewayClient uses for this base URL: ours for plain http, Bun's for https or when a proxy is configured. */
export function gatewayFetchFor(baseUrl: string, env: Record<string, string | undefined> = process.env): GatewayFetch {
  let protocol = "";
  try {
    protocol = new URL(baseUrl).protocol;
  } catch {
    return fetch;
  }
  // Bun's fetch honours HTTP_PROXY; a gateway reached through one keeps that path.
  const proxied = Boolean(env.HTTP_PROXY || env.http_proxy);
  return protocol === "http:" && !proxied ? sharedAgent().fetch : fetch;
}

let agent: Http1Agent | null = null;
function sharedAgent(): Http1Agent {
  agent ??= new Http1Agent();
  return agent;
}
