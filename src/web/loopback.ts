// The names that always mean this machine, and the 127.0.0.0/8 test: one list for the Host guard, redirect URIs and config.

/** Loopback host names as URL hostnames spell them ("[::1]") and as people write them in settings ("::1"). */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** localhost, 127.0.0.1 or ::1 (bracketed or not), in any letter case. */
export function isLoopbackName(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase());
}

/** Any dotted 127.x.x.x address (the whole 127.0.0.0/8 block is loopback, RFC 1122 §3.2.1.3). */
export function isLoopbackIpv4(host: string): boolean {
  return /^127(\.\d{1,3}){3}$/.test(host);
}

/** A loopback name or any 127.x.x.x address. */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackName(host) || isLoopbackIpv4(host);
}
