// The one redirect-URI matcher: exact matching, loopback any-port, and the static client's allow-list (parsing: src/web/redirect-uri.ts).
import { isLoopbackRedirect, parseRedirectUri } from "../web/redirect-uri.ts";

/** Claude.ai / Claude Desktop / mobile connectors' callbacks: the static client's built-in targets. */
export const CLAUDE_CALLBACKS: readonly string[] = ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"];

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
