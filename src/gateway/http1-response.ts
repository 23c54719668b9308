// Reads one HTTP/1.1 response off a gateway connection: status line and headers, then its body into a stream.

/** The longest status line and headers read before the answer is called malformed. */
const MAX_HEAD_BYTES = 64 * 1024;
/** The longest chunk-size or trailer line. */
const MAX_LINE_BYTES = 8 * 1024;

/** RFC 9110 §5.1: a header name is a token. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const CRLF_CRLF = [13, 10, 13, 10] as const;

type BodyFraming = { kind: "none" } | { kind: "length"; remaining: number } | { kind: "chunked" } | { kind: "close" };

/** The request being answered on one connection: parses the bytes in, feeds the body stream, settles the fetch. */
export class Exchange {
  private headBuffer: Uint8Array | null = null;
  private headLength = 0;
  private framing: BodyFraming | null = null;
  private chunkState: "size" | "data" | "data-crlf" | "trailers" = "size";
  private chunkRemaining = 0;
  private line: number[] = [];
  /** Body bytes of the current socket read, handed to the stream together when the read is parsed. */
  private pieces: Uint8Array[] = [];
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
    this.deliver();
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
      // What arrived before the fault reaches a reader already waiting, as it would have without the gathering.
      this.deliver();
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
    if (parsed.status < 100 || parsed.status > 599) {
      this.fail(new MalformedAnswer(`status ${parsed.status}`));
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
    let response: Response;
    try {
      response = new Response(body, { status: parsed.status, statusText: parsed.reason, headers: parsed.headers });
    } catch {
      this.fail(new MalformedAnswer("a status line a response cannot carry"));
      return null;
    }
    this.settled = true;
    this.resolve(response);
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
          this.fail(new MalformedAnswer("an overlong chunk line"));
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
    this.fail(new MalformedAnswer(`a malformed chunked body: ${what}`));
    return null;
  }

  private push(bytes: Uint8Array): void {
    if (bytes.length > 0) this.pieces.push(bytes);
  }

  /**
   * One socket read's body bytes go to the stream as one chunk, however many HTTP chunks carried them: a gateway's
   * last packet (the final delta, the finish chunk, [DONE]) is then one read for the consumer, not three.
   */
  private deliver(): void {
    const pieces = this.pieces;
    if (pieces.length === 0) return;
    this.pieces = [];
    // The socket's buffer is not ours to keep: the stream gets a copy.
    this.controller?.enqueue(pieces.length === 1 ? (pieces[0] as Uint8Array).slice() : Buffer.concat(pieces));
  }

  private end(): void {
    if (this.done) return;
    this.deliver();
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

/** The gateway answered, but not in HTTP/1.1 we can read: the answer is malformed, the gateway not unreachable. */
export class MalformedAnswer extends TypeError {
  constructor(what: string) {
    super(`the gateway sent a malformed response: ${what}`);
  }
}

/** A reused connection that failed before a single byte came back. */
export class StaleConnection extends Error {
  constructor(override readonly cause: unknown) {
    super("stale keep-alive connection");
  }
}
