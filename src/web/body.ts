// Reads a request body as text under a size cap, without buffering more than the cap (oversized bodies → null).
export function readBodyLimited(request: Request, maxBytes: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) return Promise.resolve(null);
  // Bun enforces Content-Length framing, so a declared size within the cap is the size we read. (Read before
  // touching `request.body`: building that stream costs more than the whole small body.)
  if (Number.isFinite(declared)) return request.text();
  return readChunked(request, maxBytes);
}

/** A body without Content-Length (chunked): counted as it comes, abandoned at the cap. */
async function readChunked(request: Request, maxBytes: number): Promise<string | null> {
  if (!request.body) return "";
  // Chunked: count as we go and stop at the cap.
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
