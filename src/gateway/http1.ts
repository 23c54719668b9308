// A fetch for plain-http gateways: HTTP/1.1 over Bun.connect on the daemon's own thread, connections kept alive.
import type { Socket } from "bun";
import { isHeaderValue } from "../web/header-value.ts";
import { Exchange, HEADER_NAME, StaleConnection } from "./http1-response.ts";

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

/**
 * Idle connections kept per gateway, and how long one may stay idle: under the gateway's own keep-alive of 75 s even
 * with Bun's socket timeouts, which tick every 4 s (30 s ends within a tick of 30 s).
 */
const MAX_IDLE_PER_ORIGIN = 16;
const IDLE_SECONDS = 30;

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

  /** `idleSeconds`: how long an unused connection is kept (tests shorten it). */
  constructor(private readonly idleSeconds = IDLE_SECONDS) {}

  /** fetch's shape, for what GatewayClient sends. */
  readonly fetch: GatewayFetch = (url, init) => this.request(this.parsed(url), init, true);
  /** The few URLs a gateway client uses, parsed once. */
  private readonly urls = new Map<string, URL>();

  /** Closes every idle connection; returns how many there were. */
  close(): number {
    // Taken out of the lists first: end() may run the close handler at once, and its forget() would splice the list
    // being walked (every other connection was skipped, left open until its idle timeout).
    const idle = [...this.idle.values()].flat();
    this.idle.clear();
    for (const connection of idle) {
      connection.idle = false;
      connection.socket.end();
    }
    return idle.length;
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
            if (exchange) {
              // Whatever a hostile answer makes the parser throw ends this exchange, never the daemon.
              try {
                exchange.feed(data);
              } catch (error) {
                exchange.fail(error);
              }
            }
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
    connection.socket.timeout(this.idleSeconds);
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

function encodeRequest(url: URL, init: GatewayRequestInit): string {
  let head = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const name in init.headers) {
    const value = init.headers[name] as string;
    if (!HEADER_NAME.test(name)) throw new TypeError(`invalid header name: ${JSON.stringify(name)}`);
    if (!isHeaderValue(value)) throw new TypeError(`invalid value for header ${name}`);
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

/**
 * Closes the idle connections every plain-http gateway client shares; returns how many. The daemon calls it once quiet:
 * kept, each would time out up to IDLE_SECONDS later and run its timeout and close handlers then, after the quiet
 * release, paging back in the code it handed back (measured on the memory bench: +6.5 MiB of the binary's code, 19 s
 * after the release). Closed now, the next call after a quiet spell opens a fresh connection (loopback: well under 1 ms).
 */
export function closeIdleGatewayConnections(): number {
  return agent?.close() ?? 0;
}
