// Reads OAuth parameters: a size-capped x-www-form-urlencoded body or a query, refusing repeated parameters (RFC 6749 §3.1, §3.2).
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

/** A form POST body, capped at `maxBytes` (an oversized body is refused unread beyond the cap). */
export async function readForm(request: Request, maxBytes: number): Promise<ParamsResult> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    return { ok: false, status: 400, description: "send the parameters as application/x-www-form-urlencoded (RFC 6749 §3.2)" };
  }
  const text = await readBodyLimited(request, maxBytes);
  if (text === null) return { ok: false, status: 413, description: `request body is larger than ${maxBytes} bytes` };
  return singleParams(new URLSearchParams(text));
}
