// The one redirect-URI matcher: parsing and refusing dangerous URIs, exact matching, loopback any-port, and the static client's allow-list.
import { isLoopbackName } from "../web/loopback.ts";

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
const CUSTOM_SCHEME = /^[a-z][a-z0-9+.-]*:$/;
const MAX_URI_LENGTH = 2048;

/** Claude.ai / Claude Desktop / mobile connectors' callbacks: the static client's built-in targets. */
export const CLAUDE_CALLBACKS: readonly string[] = ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"];

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
  if (CUSTOM_SCHEME.test(scheme)) return { ok: true, url, kind: "custom" };
  return { ok: false, reason: `the scheme ${scheme} is not a valid redirect scheme` };
}

/** Same loopback target ignoring the port: scheme, host, path and query must still be identical (RFC 8252 §7.3). */
function loopbackMatches(requested: URL, registered: string): boolean {
  let reg: URL;
  try {
    reg = new URL(registered);
  } catch {
    return false;
  }
  return (
    isLoopbackRedirect(reg) &&
    reg.protocol === requested.protocol &&
    reg.hostname.toLowerCase() === requested.hostname.toLowerCase() &&
    reg.pathname === requested.pathname &&
    reg.search === requested.search
  );
}

/**
 * Dynamic clients: the requested URI must equal one registered URI byte for byte (RFC 9700 §2.1 / OAuth 2.1 §4.1.3),
 * except that a loopback URI matches on any port (RFC 8252 §7.3).
 */
export function matchRegisteredRedirect(requested: string, registered: readonly string[]): boolean {
  const parsed = parseRedirectUri(requested);
  if (!parsed.ok) return false;
  if (registered.includes(requested)) return true;
  return parsed.kind === "loopback" && registered.some((r) => loopbackMatches(parsed.url, r));
}

export interface StaticRedirectPolicy {
  /** Custom app schemes (OAUTH_ALLOWED_REDIRECT_SCHEMES), lower case, without ':'. */
  schemes: readonly string[];
  /** Exact extra URIs (OAUTH_ALLOWED_REDIRECT_URIS). */
  uris: readonly string[];
}

/**
 * The static client has no registered list: it may use Claude's two callbacks, loopback on any port and path, the
 * configured app schemes and the configured exact URIs — nothing else (the original's any-https rule was an open redirector).
 */
export function staticClientAllows(requested: string, policy: StaticRedirectPolicy): boolean {
  const parsed = parseRedirectUri(requested);
  if (!parsed.ok) return false;
  if (CLAUDE_CALLBACKS.includes(requested) || policy.uris.includes(requested)) return true;
  if (parsed.kind === "loopback") return true;
  return parsed.kind === "custom" && policy.schemes.includes(parsed.url.protocol.slice(0, -1).toLowerCase());
}

/** A short, human description of where a redirect goes, for the consent page. */
export function describeRedirect(uri: string): string {
  const parsed = parseRedirectUri(uri);
  if (!parsed.ok) return uri;
  if (parsed.kind === "loopback") return `an app on this computer (${parsed.url.host})`;
  if (parsed.kind === "custom") return `the app that opens ${parsed.url.protocol}// links`;
  return parsed.url.host;
}

/** The CSP form-action source that lets the consent form's redirect reach this target (Chrome applies form-action to redirects). */
export function formActionSource(uri: string): string | null {
  const parsed = parseRedirectUri(uri);
  if (!parsed.ok) return null;
  return parsed.kind === "custom" ? parsed.url.protocol : parsed.url.origin;
}
