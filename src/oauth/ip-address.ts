// IP address text parsed strictly into 16-bit groups, and subnet membership: what node:net's isIP and BlockList did, without loading node:net.

/*
 * Why not node:net: Bun implements it in JavaScript, and an import anywhere in the bundle runs at start-up — 2.0 MiB
 * of idle RSS in a bare compiled server; without it, node:http and node:crypto the daemon idles 1.4 MiB lower
 * (measured) — for two functions. The parsing rules are Node's: tests compare this module with node:net on thousands
 * of generated spellings (tests/oauth/ip-address.test.ts).
 */

/** An address as 16-bit groups: 2 for IPv4, 8 for IPv6. */
export interface IpAddress {
  family: 4 | 6;
  groups: number[];
}

const OCTET = /^(?:0|[1-9]\d{0,2})$/;
const HEXTET = /^[0-9a-fA-F]{1,4}$/;
// An IPv6 zone id (fe80::1%eth0), as Node accepts it: it names an interface, not part of the address.
const ZONE = /%[0-9a-zA-Z\-.:]+$/;

/** A dotted-quad IPv4 address, decimal without leading zeros (octal, hex and short forms are not addresses), or null. */
function ipv4Groups(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (!OCTET.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    octets.push(octet);
  }
  const [a, b, c, d] = octets as [number, number, number, number];
  return [(a << 8) | b, (c << 8) | d];
}

/** The groups of one side of "::" (an IPv4 tail allowed last when `tail`), or null. */
function hextets(part: string, tail: boolean): number[] | null {
  if (part === "") return [];
  const pieces = part.split(":");
  const groups: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (tail && i === pieces.length - 1 && piece.includes(".")) {
      const v4 = ipv4Groups(piece);
      if (!v4) return null;
      groups.push(...v4);
    } else if (HEXTET.test(piece)) groups.push(Number.parseInt(piece, 16));
    else return null;
  }
  return groups;
}

/** The eight groups of an IPv6 address (an IPv4 tail converted, a zone id ignored), or null. */
function ipv6Groups(text: string): number[] | null {
  const halves = text.replace(ZONE, "").split("::");
  if (halves.length > 2) return null;
  if (halves.length === 1) {
    const groups = hextets(halves[0] as string, true);
    return groups?.length === 8 ? groups : null;
  }
  const head = hextets(halves[0] as string, false);
  const tail = hextets(halves[1] as string, true);
  // "::" stands for one group or more.
  if (!head || !tail || head.length + tail.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** The address `text` spells, or null when it is not exactly an IP address (no brackets, ports, prefixes or spaces). */
export function parseIp(text: string): IpAddress | null {
  const v4 = ipv4Groups(text);
  if (v4) return { family: 4, groups: v4 };
  const v6 = text.includes(":") ? ipv6Groups(text) : null;
  return v6 ? { family: 6, groups: v6 } : null;
}

/** 4, 6, or 0 when `text` is not an IP address: node:net's isIP. */
export function ipFamily(text: string): 0 | 4 | 6 {
  return parseIp(text)?.family ?? 0;
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), or null. */
export function unmapIpv4(ip: IpAddress): IpAddress | null {
  const g = ip.groups;
  if (ip.family !== 6 || g[0] || g[1] || g[2] || g[3] || g[4] || g[5] !== 0xffff) return null;
  return { family: 4, groups: [g[6] as number, g[7] as number] };
}

/** A subnet: an address and how many leading bits of it count. */
export interface Subnet {
  family: 4 | 6;
  groups: number[];
  bits: number;
}

/** A subnet from its base address and prefix length; throws on a base that is not an address (a programming error). */
export function subnet(base: string, bits: number): Subnet {
  const ip = parseIp(base);
  if (!ip || bits < 0 || bits > ip.groups.length * 16) throw new Error(`not a subnet: ${base}/${bits}`);
  return { ...ip, bits };
}

/** True when `ip` lies in `net` (same family, the first `bits` bits equal). */
export function inSubnet(ip: IpAddress, net: Subnet): boolean {
  if (ip.family !== net.family) return false;
  for (let i = 0, left = net.bits; left > 0; i++, left -= 16) {
    const mask = left >= 16 ? 0xffff : (0xffff << (16 - left)) & 0xffff;
    if (((ip.groups[i] as number) & mask) !== ((net.groups[i] as number) & mask)) return false;
  }
  return true;
}

const LOOPBACK: readonly Subnet[] = [subnet("127.0.0.0", 8), subnet("::1", 128)];

/**
 * True for this machine's loopback addresses in any spelling: 127.0.0.0/8, ::1, and 127.x written IPv4-mapped. (Names
 * such as localhost, in Host headers and settings, are web/loopback.ts's.)
 */
export function isLoopback(ip: IpAddress): boolean {
  return inAnySubnet(ip, LOOPBACK);
}

/** In any of `nets`, as spelled or, for an IPv4-mapped IPv6 address (::ffff:a.b.c.d, which connects to a.b.c.d), as IPv4. */
export function inAnySubnet(ip: IpAddress, nets: readonly Subnet[]): boolean {
  const v4 = unmapIpv4(ip);
  return nets.some((net) => inSubnet(ip, net) || (v4 !== null && inSubnet(v4, net)));
}
