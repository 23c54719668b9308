// SSRF guard for fetching client metadata documents: which addresses are off-limits, and a DNS lookup that refuses them at connect time.
import type { LookupAddress } from "node:dns";
import { inAnySubnet, isLoopback, parseIp, type Subnet, subnet } from "./ip-address.ts";

/** Private, loopback, link-local, shared, documentation, multicast and reserved ranges (RFC 6890 special-purpose registries). */
export const PRIVATE_RANGES = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
  // ::/96 holds the unspecified address, loopback and deprecated IPv4-compatible addresses (::127.0.0.1).
  ["::", 96],
  // IPv4-translated addresses (RFC 2765): another way to spell an IPv4 target.
  ["::ffff:0:0:0", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const;
const PRIVATE: Subnet[] = PRIVATE_RANGES.map(([base, bits]) => subnet(base, bits));

/** True when a connection to `address` could reach this machine or its private network (IPv4-mapped IPv6 included). */
export function isForbiddenAddress(address: string, allowLoopback = false): boolean {
  const ip = parseIp(address);
  if (ip === null) return true;
  if (isLoopback(ip)) return !allowLoopback;
  return inAnySubnet(ip, PRIVATE);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) that resolves, then refuses if ANY address is forbidden. Checking inside the connect
 * path (not before it) closes the DNS-rebinding window between "check" and "use".
 */
export function guardedLookup(allowLoopback: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void => {
    const opts = typeof options === "number" ? { family: options } : (options ?? {});
    // node:dns is loaded on the first lookup, not at start-up: only a client metadata document fetch needs it.
    import("node:dns").then(
      ({ lookup }) =>
        lookup(hostname, { all: true, family: opts.family ?? 0 }, (error, addresses) => {
          if (error) return callback(error, []);
          const list = addresses as LookupAddress[];
          const bad = list.find((a) => isForbiddenAddress(a.address, allowLoopback));
          if (list.length === 0 || bad) {
            const refusal = Object.assign(new Error(`${hostname} resolves to a private or loopback address`), {
              code: "EFORBIDDENADDRESS",
            });
            return callback(refusal, []);
          }
          if (opts.all) return callback(null, list);
          const first = list[0] as LookupAddress;
          callback(null, first.address, first.family);
        }),
      // Only the module failing to load lands here: a throw from the callback itself must not call it twice.
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
