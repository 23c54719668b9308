// RFC 8707 resource indicators: is a requested resource this server's MCP endpoint?

/**
 * The one protected resource is `<issuer>/mcp`. A client may spell it with a trailing slash or a differently-cased
 * host; anything else (another path, query, fragment, host) names a different audience and is refused.
 */
export function isOurResource(requested: string, resourceUrl: string): boolean {
  if (requested === resourceUrl) return true;
  let url: URL;
  let ours: URL;
  try {
    url = new URL(requested);
    ours = new URL(resourceUrl);
  } catch {
    return false;
  }
  if (url.hash || url.search || url.username || url.password) return false;
  return url.origin === ours.origin && url.pathname.replace(/\/+$/, "") === ours.pathname.replace(/\/+$/, "");
}
