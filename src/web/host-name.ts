// The host name a Host header or a setting names, as the Host guard compares them: lower case, no port, IPv6 in brackets.

/** Host header → lower-case host name without port ("[::1]" keeps its brackets); null when absent or malformed. */
export function hostnameOf(hostHeader: string | null | undefined): string | null {
  if (!hostHeader) return null;
  const host = hostHeader.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/.exec(host);
  return match ? (match[1] as string) : null;
}

/**
 * One MCP_ALLOWED_HOSTS entry as hostnameOf would read the Host header that names it. People write a port (ignored, as
 * the guard ignores it), the Python SDK's `host:*`, an IPv6 address without brackets or a non-ASCII name (sent as
 * punycode): each is read as the host. A URL is read as its host, with a note saying what to write. A wildcard or
 * anything else names no host: `problem` says why (the caller ignores the entry, as the original did in effect).
 */
export function allowedHostOf(entry: string): { host: string; note?: string } | { problem: string } {
  const raw = entry.trim();
  if (raw.includes("/")) {
    const host = hostnameOf(URL.parse(raw.includes("://") ? raw : `http://${raw}`)?.host);
    return host
      ? { host, note: `takes host names, not URLs: read "${raw}" as ${host} (write ${host})` }
      : { problem: `takes host names, not URLs: "${raw}" names none` };
  }
  // Threat: DNS rebinding (MCP transport spec, "Security Warning"); a wildcard would turn the Host guard off.
  if (raw === "*" || raw.startsWith("*.")) return { problem: `takes host names, not wildcards ("${raw}"): list each name clients use` };
  const withoutAnyPort = raw.replace(/:\*$/, "");
  const bracketed = /^[0-9a-f]*:[0-9a-f]*:[0-9a-f:.]*$/i.test(withoutAnyPort) ? `[${withoutAnyPort}]` : withoutAnyPort;
  const host = hostnameOf(bracketed) ?? hostnameOf(URL.parse(`http://${bracketed}`)?.host);
  return host ? { host } : { problem: `"${raw}" is not a host name (write it as in the URL, e.g. hermes.example.com)` };
}
