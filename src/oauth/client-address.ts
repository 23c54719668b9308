// Who is asking, for per-address abuse limits: the TCP peer, or — only behind a loopback proxy or tunnel — the address it forwards.
import { type IpAddress, isLoopback, parseIp, unmapIpv4 } from "./ip-address.ts";

/** An address as text (IPv4-mapped IPv6 peers, ::ffff:a.b.c.d in any spelling, are their IPv4 address; zone ids are dropped) and parsed. */
function normalise(text: string): { text: string; ip: IpAddress } | null {
  const bare = text
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  const parsed = parseIp(bare);
  if (parsed === null) return null;
  const v4 = unmapIpv4(parsed);
  if (v4 === null) return { text: bare.toLowerCase(), ip: parsed };
  const [high, low] = v4.groups as [number, number];
  return { text: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, ip: v4 };
}

/**
 * The source address of a request. A direct (non-loopback) peer is the answer and its headers are ignored: anyone
 * can send them. A loopback peer is a local proxy or tunnel (cloudflared, Caddy…), so its CF-Connecting-IP is
 * trusted, then the last X-Forwarded-For hop (the one the proxy appended; earlier hops are the client's own claims).
 * Malformed headers are ignored. "unknown" when there is no peer at all (in-process requests).
 */
export function clientAddress(peer: string | null | undefined, headers: Headers): string {
  const direct = peer ? normalise(peer) : null;
  if (direct === null) return "unknown";
  if (!isLoopback(direct.ip)) return direct.text;
  const cf = headers.get("cf-connecting-ip");
  const fromCf = cf ? normalise(cf) : null;
  if (fromCf) return fromCf.text;
  const lastHop = headers.get("x-forwarded-for")?.split(",").at(-1);
  const fromXff = lastHop ? normalise(lastHop) : null;
  return (fromXff ?? direct).text;
}

/**
 * The key an address is counted under: an IPv4 address itself; for IPv6 its /64, since one subscriber is routinely
 * given a whole /64 and could otherwise rotate through addresses to escape per-address limits.
 */
export function addressKey(address: string): string {
  const ip = parseIp(address);
  if (ip?.family !== 6) return address;
  return `${ip.groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}
