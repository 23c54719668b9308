// Reads OAuth parameters: a size-capped x-www-form-urlencoded body (a dropped connection is a 400, not a 500) or a query, refusing repeated parameters (RFC 6749 §3.1, §3.2).
import { readBodyLimited } from "../web/body.ts";

export type Params = Record<string, string>;
export type ParamsResult = { ok: true; params: Params } | { ok: false; status: number; description: string };

/** RFC 6749 §3.1/§3.2: a parameter sent more than once makes the request invalid (which one would we honour?). */
export function singleParams(search: URLSearchParams): ParamsResult {
  const params: Params = {};
  for (const [key, value] of search) {
    if (Object.hasOwn(params, key)) return { ok: false, status: 400, description: `the parameter "${key.slice(0, 40)}" is repeated` };
    params[key] = value;
  }
  return { ok: true, params };
}

/**
 * A request body under a size cap (413 beyond it). A client that disconnects mid-body is its own problem, not a
 * server error: it is answered 400 (which nobody reads) and never logged as an ERROR.
 */
export async function readBody(
  request: Request,
  maxBytes: number,
): Promise<{ ok: true; text: string } | { ok: false; status: number; description: string }> {
  let text: string | null;
  try {
    text = await readBodyLimited(request, maxBytes);
  } catch {
    return { ok: false, status: 400, description: "the request body could not be read completely (the connection ended early)" };
  }
  if (text === null) return { ok: false, status: 413, description: `request body is larger than ${maxBytes} bytes` };
  return { ok: true, text };
}

/** A form POST body, capped at `maxBytes` (an oversized body is refused unread beyond the cap). */
export async function readForm(request: Request, maxBytes: number): Promise<ParamsResult> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    return { ok: false, status: 400, description: "send the parameters as application/x-www-form-urlencoded (RFC 6749 §3.2)" };
  }
  const body = await readBody(request, maxBytes);
  return body.ok ? singleParams(new URLSearchParams(body.text)) : body;
}
