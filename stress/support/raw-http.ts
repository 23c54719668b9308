// Sends exact bytes over a fresh loopback TCP connection and reads what comes back: the fuzz's transport, so nothing is normalised on the way.

export interface RawAnswer {
  /** The first final (non-1xx) response's status, or null when the server answered nothing. */
  status: number | null;
  /** The server closed the connection (after answering, or without a word). */
  closed: boolean;
  /** Neither an answer nor a close within the bound. */
  timedOut: boolean;
  /** We closed first, as asked (giveUpAfterMs): a server waiting for the rest of a broken request is not a hang. */
  gaveUp: boolean;
  ms: number;
  /** The first bytes of the answer, for the report. */
  head: string;
}

export interface RawOptions {
  /** Send only this many bytes (a client that dies mid-request). */
  truncateAt?: number;
  /** Close after this long without an answer, and call it giving up rather than a hang (broken or cut requests). */
  giveUpAfterMs?: number;
  /** No answer and no close within this is a hang. */
  timeoutMs: number;
}

/** Resolves once a full status line arrived and the server closed, or on timeout. Never rejects. */
export function sendRaw(port: number, bytes: Uint8Array, options: RawOptions): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let received = "";
    let settled = false;
    const done = (closed: boolean, timedOut: boolean, gaveUp = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (answered) clearTimeout(answered);
      open?.end();
      // The first final answer: a 100 Continue (Expect: 100-continue) is only a step towards it.
      const status = /(?:^|\r\n)HTTP\/1\.[01] ([2-5]\d\d)/.exec(received);
      resolve({
        status: status ? Number(status[1]) : null,
        closed,
        timedOut,
        gaveUp,
        ms: performance.now() - started,
        head: received.slice(0, 200),
      });
    };
    let open: { end(): void } | null = null;
    const giveUp = options.giveUpAfterMs;
    const timer =
      giveUp === undefined ? setTimeout(() => done(false, true), options.timeoutMs) : setTimeout(() => done(false, false, true), giveUp);
    let answered: ReturnType<typeof setTimeout> | null = null;
    const payload = options.truncateAt === undefined ? bytes : bytes.subarray(0, options.truncateAt);
    let offset = 0;
    // No half-close: Bun drops a connection at the client's FIN before its handler runs, which would test nothing.
    const pump = (s: { write(data: Uint8Array): number }): void => {
      while (offset < payload.length) {
        const wrote = s.write(payload.subarray(offset));
        if (wrote <= 0) return; // wait for drain
        offset += wrote;
      }
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(s) {
          open = s;
          pump(s);
        },
        drain: pump,
        data(_s, chunk) {
          if (received.length < 4096) received += chunk.toString("latin1");
          // An answer on a kept-alive connection: give the server a moment to close, then stop waiting.
          if (!answered && /(?:^|\r\n)HTTP\/1\.[01] [2-5]\d\d/.test(received)) answered = setTimeout(() => done(false, false), 100);
        },
        close() {
          done(true, false);
        },
        error() {
          done(true, false);
        },
        connectError() {
          done(true, false);
        },
      },
    }).catch(() => done(true, false));
  });
}
