// Host and Origin checks in front of /mcp and the OAuth endpoints: the DNS-rebinding and cross-site defences the SDK leaves to us.
import type { MiddlewareHandler } from "hono";
import { hostnameOf } from "../web/host-name.ts";
import { isLoopbackHost } from "../web/loopback.ts";

const JSON_HEADERS = { "Content-Type": "application/json" };

export function isAllowedHost(hostname: string, allowedHosts: readonly string[]): boolean {
  return isLoopbackHost(hostname) || allowedHosts.includes(hostname);
}

/**
 * Host header values already judged allowed, per allow-list: a client sends the same Host on every request, so the
 * parse runs once. Only allowed values are kept (a stream of made-up Hosts cannot grow it), at most 64 of them.
 */
const allowedHostValues = new WeakMap<readonly string[], Set<string>>();

/** DNS rebinding (MCP transport spec, "Security Warning"): only our own names may reach us → else 421. */
export function rejectForeignHost(request: Request, allowedHosts: readonly string[]): Response | null {
  const header = request.headers.get("host");
  let known = allowedHostValues.get(allowedHosts);
  if (header !== null && known?.has(header)) return null;
  const hostname = hostnameOf(header);
  if (hostname && header !== null && isAllowedHost(hostname, allowedHosts)) {
    if (!known) allowedHostValues.set(allowedHosts, (known = new Set()));
    if (known.size < 64) known.add(header);
    return null;
  }
  return Response.json(
    {
      error: "misdirected_request",
      error_description: `Host "${header ?? ""}" is not served here — add it to MCP_ALLOWED_HOSTS (or set OAUTH_ISSUER_URL to it)`,
    },
    { status: 421, headers: JSON_HEADERS },
  );
}

/** A browser page from a foreign site must not drive the bridge (cross-site request forgery): present and foreign Origin → 403. */
export function rejectForeignOrigin(request: Request, allowedHosts: readonly string[]): Response | null {
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  let hostname: string | null = null;
  try {
    const url = new URL(origin);
    if (url.protocol === "http:" || url.protocol === "https:") hostname = hostnameOf(url.host);
  } catch {
    hostname = null;
  }
  if (hostname && isAllowedHost(hostname, allowedHosts)) return null;
  return Response.json(
    { error: "forbidden_origin", error_description: `Origin "${origin}" may not call this server` },
    { status: 403, headers: JSON_HEADERS },
  );
}

/** The same checks as Hono middleware, for routes mounted on the app. */
export const hostGuard =
  (allowedHosts: readonly string[]): MiddlewareHandler =>
  async (c, next) =>
    rejectForeignHost(c.req.raw, allowedHosts) ?? (await next());

export const originGuard =
  (allowedHosts: readonly string[]): MiddlewareHandler =>
  async (c, next) =>
    rejectForeignOrigin(c.req.raw, allowedHosts) ?? (await next());
