// Host and Origin checks in front of /mcp and the OAuth endpoints: the DNS-rebinding and cross-site defences the SDK leaves to us.
import type { MiddlewareHandler } from "hono";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Host header → lower-case host name without port ("[::1]" keeps its brackets); null when absent or malformed. */
export function hostnameOf(hostHeader: string | null | undefined): string | null {
  if (!hostHeader) return null;
  const host = hostHeader.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/.exec(host);
  return match ? (match[1] as string) : null;
}

export function isAllowedHost(hostname: string, allowedHosts: readonly string[]): boolean {
  return LOOPBACK_NAMES.includes(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname) || allowedHosts.includes(hostname);
}

/** DNS rebinding (MCP transport spec, "Security Warning"): only our own names may reach us → else 421. */
export function hostGuard(allowedHosts: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const hostname = hostnameOf(c.req.header("host"));
    if (!hostname || !isAllowedHost(hostname, allowedHosts)) {
      return c.json(
        {
          error: "misdirected_request",
          error_description: `Host "${c.req.header("host") ?? ""}" is not served here — add it to MCP_ALLOWED_HOSTS (or set OAUTH_ISSUER_URL to it)`,
        },
        421,
      );
    }
    await next();
  };
}

/** A browser page from a foreign site must not drive the bridge (cross-site request forgery): present and foreign Origin → 403. */
export function originGuard(allowedHosts: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      let hostname: string | null = null;
      try {
        const url = new URL(origin);
        if (url.protocol === "http:" || url.protocol === "https:") hostname = hostnameOf(url.host);
      } catch {
        hostname = null;
      }
      if (!hostname || !isAllowedHost(hostname, allowedHosts)) {
        return c.json({ error: "forbidden_origin", error_description: `Origin "${origin}" may not call this server` }, 403);
      }
    }
    await next();
  };
}
