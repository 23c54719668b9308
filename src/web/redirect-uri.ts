// Redirect URIs parsed once, for the OAuth endpoints and the configuration: what no client may ever be sent back to, and why.
import { isLoopbackName } from "./loopback.ts";

/** Schemes a browser would execute or read locally: never a redirect target, for any client (XSS / local file disclosure). */
const DANGEROUS_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "blob:",
  "about:",
  "filesystem:",
  "view-source:",
  "ws:",
  "wss:",
  "ftp:",
]);
/** Is this scheme (without its ":") one no redirect may ever use? */
export const isDangerousScheme = (name: string): boolean => DANGEROUS_SCHEMES.has(`${name.toLowerCase()}:`);
/** RFC 3986 §3.1: a letter, then letters, digits, "+", "-" or "." (a private-use scheme of RFC 8252 §7.1, without its ":"). */
export const isSchemeName = (name: string): boolean => /^[a-z][a-z0-9+.-]*$/.test(name);
const MAX_URI_LENGTH = 2048;

export type ParsedRedirect = { ok: true; url: URL; kind: "https" | "loopback" | "custom" } | { ok: false; reason: string };

/** Is this a loopback http redirect (RFC 8252 §7.3: native apps listen on an ephemeral port)? */
export function isLoopbackRedirect(url: URL): boolean {
  // The loopback names only, not all of 127.0.0.0/8: native apps listen on 127.0.0.1, [::1] or localhost.
  return url.protocol === "http:" && isLoopbackName(url.hostname);
}

/** Parses a redirect URI and refuses what no client may ever use; says why in one sentence. */
export function parseRedirectUri(raw: string): ParsedRedirect {
  if (raw.length === 0 || raw.length > MAX_URI_LENGTH) return { ok: false, reason: `redirect URI must be 1–${MAX_URI_LENGTH} characters` };
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) return { ok: false, reason: "redirect URI contains whitespace or control characters" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "redirect URI is not an absolute URI" };
  }
  const scheme = url.protocol.toLowerCase();
  // XSS / local-file redirects (javascript:, data:, file:, …) are refused for every client.
  if (DANGEROUS_SCHEMES.has(scheme)) return { ok: false, reason: `the ${scheme} scheme is never allowed as a redirect URI` };
  // RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment.
  if (raw.includes("#")) return { ok: false, reason: "redirect URI must not contain a fragment (RFC 6749 §3.1.2)" };
  // Credentials in a URI are a phishing device (https://claude.ai@evil.example/…).
  if (url.username || url.password) return { ok: false, reason: "redirect URI must not contain user information" };
  if (scheme === "https:") return url.hostname ? { ok: true, url, kind: "https" } : { ok: false, reason: "https redirect URI has no host" };
  if (scheme === "http:") {
    // OAuth 2.1 §2.3.1 / RFC 8252 §8.3: plain http only to loopback, where the code never crosses a network.
    return isLoopbackRedirect(url)
      ? { ok: true, url, kind: "loopback" }
      : { ok: false, reason: "http redirect URIs are allowed only on loopback (127.0.0.1, [::1], localhost); use https" };
  }
  // RFC 8252 §7.1: private-use URI schemes for native apps (cursor://, claude://, vscode://).
  if (isSchemeName(scheme.slice(0, -1))) return { ok: true, url, kind: "custom" };
  return { ok: false, reason: `the scheme ${scheme} is not a valid redirect scheme` };
}
