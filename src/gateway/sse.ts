// Incremental Server-Sent Events parser: string chunks in (split anywhere, LF/CRLF/CR), whole frames and comments out; no I/O.

/** One dispatched frame: `event` is absent for unnamed frames; several `data:` lines are joined with "\n". */
export interface SseEvent {
  type: "event";
  event?: string;
  data: string;
  id?: string;
}

/** A comment line (`: keepalive`), its text without the colon and one leading space. */
export interface SseComment {
  type: "comment";
  comment: string;
}

export type SseMessage = SseEvent | SseComment;

/**
 * Feed it chunks with `push`; each call returns the frames and comments completed by that chunk, in order.
 * A frame is dispatched at its terminating blank line; a frame without `data:` lines is dropped (as the spec says),
 * and `end()` drops an unterminated trailing frame, reporting whether there was one.
 */
export class SseParser {
  private buffer = "";
  private started = false;
  /** The previous chunk ended with "\r": a "\n" starting the next chunk belongs to that line ending. */
  private pendingCr = false;
  private eventName: string | undefined;
  private dataLines: string[] = [];
  private lastId: string | undefined;
  private frameOpen = false;

  push(chunk: string): SseMessage[] {
    if (chunk.length === 0) return [];
    let text = chunk;
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.pendingCr = false;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    this.buffer += text;
    const out: SseMessage[] = [];
    const endings = /\r\n|\r|\n/g;
    let start = 0;
    for (let match = endings.exec(this.buffer); match !== null; match = endings.exec(this.buffer)) {
      this.line(this.buffer.slice(start, match.index), out);
      start = match.index + match[0].length;
      // A lone "\r" closing the buffer may be the first half of a "\r\n" split across chunks.
      if (match[0] === "\r" && start === this.buffer.length) this.pendingCr = true;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** Ends the stream; returns true when an unterminated frame (or line) was dropped. */
  end(): boolean {
    const dropped = this.frameOpen || this.buffer.length > 0;
    this.buffer = "";
    this.resetFrame();
    this.pendingCr = false;
    return dropped;
  }

  /** The `id:` last seen (kept across frames, as the spec's "last event ID"). */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === "") {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(":")) {
      const body = line.slice(1);
      out.push({ type: "comment", comment: body.startsWith(" ") ? body.slice(1) : body });
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    this.frameOpen = true;
    switch (field) {
      case "event":
        this.eventName = value;
        break;
      case "data":
        this.dataLines.push(value);
        break;
      case "id":
        if (!value.includes("\0")) this.lastId = value;
        break;
      default:
        // `retry:` and unknown fields carry nothing this client uses.
        break;
    }
  }

  private dispatch(out: SseMessage[]): void {
    if (this.dataLines.length > 0) {
      const event: SseEvent = { type: "event", data: this.dataLines.join("\n") };
      if (this.eventName !== undefined && this.eventName !== "") event.event = this.eventName;
      if (this.lastId !== undefined) event.id = this.lastId;
      out.push(event);
    }
    this.resetFrame();
  }

  private resetFrame(): void {
    this.eventName = undefined;
    this.dataLines = [];
    this.frameOpen = false;
  }
}

/** Parses a complete SSE text in one go (handy in tests); an unterminated trailing frame is dropped. */
export function parseSse(text: string): SseMessage[] {
  const parser = new SseParser();
  const out = parser.push(text);
  parser.end();
  return out;
}
