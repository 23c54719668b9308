// The IP address parser and subnet test against node:net itself: isIP and BlockList as oracles, on curated and generated spellings.
import { describe, expect, test } from "bun:test";
import { BlockList, isIP } from "node:net";
import { ipFamily, inSubnet, parseIp, subnet, unmapIpv4 } from "../../src/oauth/ip-address.ts";
import { isForbiddenAddress, PRIVATE_RANGES } from "../../src/oauth/ssrf.ts";

/** A seeded generator (mulberry32): the same cases every run, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CURATED = [
  "1.2.3.4",
  "0.0.0.0",
  "255.255.255.255",
  "256.1.1.1",
  "01.2.3.4",
  "1.2.3",
  "1.2.3.4.5",
  "1.2.3.4 ",
  "",
  ".",
  "::",
  ":::",
  "::1",
  "1::",
  "1:2:3:4:5:6:7::",
  "::2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8:9",
  "1:2:3:4:5:6::7:8",
  "1::2::3",
  "12345::",
  "::ffff:1.2.3.4",
  "::ffff:01.2.3.4",
  "::1.2.3.4",
  "1:2:3:4:5:6:1.2.3.4",
  "1:2:3:4:5:6:7:1.2.3.4",
  "1.2.3.4::",
  "::1.2.3.4:5",
  "fe80::1%eth0",
  "fe80::1%",
  "1.2.3.4%eth0",
  "FE80::ABCD",
  "[::1]",
  "::1/128",
  "0x1.2.3.4",
  "g::1",
  ":1::",
  "1:::2",
  "1::2:",
  "0000:0000:0000:0000:0000:0000:0000:0001",
  "00000::1",
];

/** Valid addresses in many spellings, then mutated: inserted, deleted and replaced characters. */
function generated(count: number): string[] {
  const next = random(0x1b873593);
  const int = (n: number): number => Math.floor(next() * n);
  const hex = (): string => int(0x10000).toString(16)[next() < 0.2 ? "toUpperCase" : "toLowerCase"]();
  const v4 = (): string => Array.from({ length: 4 }, () => String(next() < 0.3 ? [0, 127, 255, 10][int(4)] : int(256))).join(".");
  const v6 = (): string => {
    const groups = Array.from({ length: 8 }, () => (next() < 0.4 ? "0" : hex()));
    if (next() < 0.3) groups.splice(6, 2, v4());
    const text = groups.join(":");
    const start = int(groups.length);
    const len = int(groups.length - start + 1);
    return next() < 0.7 ? `${groups.slice(0, start).join(":")}::${groups.slice(start + len).join(":")}` : text;
  };
  const alphabet = "0123456789abcdefABCDEF:.%x -[]/g";
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = next() < 0.5 ? v4() : v6();
    for (let edits = int(3); edits > 0; edits--) {
      const at = int(text.length + 1);
      const char = alphabet[int(alphabet.length)] as string;
      const kind = int(3);
      text =
        kind === 0
          ? text.slice(0, at) + char + text.slice(at)
          : kind === 1
            ? text.slice(0, at) + text.slice(at + 1)
            : text.slice(0, at) + char + text.slice(at + 1);
    }
    out.push(text);
  }
  return out;
}

describe("ipFamily agrees with node:net's isIP", () => {
  test("on curated edge cases", () => {
    const mismatches = CURATED.filter((text) => ipFamily(text) !== isIP(text));
    expect(mismatches).toEqual([]);
  });

  test("on 20,000 generated and mutated spellings, a fifth or more of them valid", () => {
    const cases = generated(20_000);
    const mismatches = cases
      .filter((text) => ipFamily(text) !== isIP(text))
      .map((text) => ({ text, ours: ipFamily(text), node: isIP(text) }));
    expect(mismatches.slice(0, 10)).toEqual([]);
    // The generator must exercise both answers, or agreeing would prove little.
    expect(cases.filter((text) => isIP(text) === 4).length).toBeGreaterThan(2000);
    expect(cases.filter((text) => isIP(text) === 6).length).toBeGreaterThan(2000);
  });
});

describe("parseIp", () => {
  test("gives IPv4 as two groups and IPv6 as eight, an IPv4 tail and a zone id handled", () => {
    expect(parseIp("192.168.1.2")).toEqual({ family: 4, groups: [0xc0a8, 0x0102] });
    expect(parseIp("::ffff:192.168.1.2")).toEqual({ family: 6, groups: [0, 0, 0, 0, 0, 0xffff, 0xc0a8, 0x0102] });
    expect(parseIp("fe80::1%eth0")).toEqual({ family: 6, groups: [0xfe80, 0, 0, 0, 0, 0, 0, 1] });
    expect(parseIp("1.2.3")).toBeNull();
  });

  test("unmapIpv4 finds the IPv4 address only in ::ffff:0:0/96", () => {
    expect(unmapIpv4(parseIp("::ffff:7f00:1") as never)).toEqual({ family: 4, groups: [0x7f00, 1] });
    expect(unmapIpv4(parseIp("::7f00:1") as never)).toBeNull();
    expect(unmapIpv4(parseIp("127.0.0.1") as never)).toBeNull();
  });
});

describe("inSubnet agrees with node:net's BlockList", () => {
  test("on generated addresses against prefixes of every length", () => {
    const next = random(0x5bd1e995);
    const int = (n: number): number => Math.floor(next() * n);
    const mismatches: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const family = next() < 0.5 ? 4 : 6;
      const groups = Array.from({ length: family === 4 ? 2 : 8 }, () => int(0x10000));
      const text = (g: number[]): string =>
        family === 4 ? [g[0]! >> 8, g[0]! & 255, g[1]! >> 8, g[1]! & 255].join(".") : g.map((x) => x.toString(16)).join(":");
      const bits = int(groups.length * 16 + 1);
      const base = text(groups);
      // Addresses near the base: the same with one random bit flipped, so both answers occur.
      const flipped = [...groups];
      const bit = int(groups.length * 16);
      flipped[bit >> 4] = (flipped[bit >> 4] as number) ^ (0x8000 >> (bit & 15));
      const list = new BlockList();
      list.addSubnet(base, bits, family === 4 ? "ipv4" : "ipv6");
      for (const address of [base, text(flipped)]) {
        const ours = inSubnet(parseIp(address) as never, subnet(base, bits));
        if (ours !== list.check(address, family === 4 ? "ipv4" : "ipv6")) mismatches.push(`${address} in ${base}/${bits}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe("isForbiddenAddress agrees with the BlockList guard it replaced", () => {
  // The previous implementation, kept here as the oracle.
  const LOOPBACK = new BlockList();
  LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
  LOOPBACK.addAddress("::1", "ipv6");
  const PRIVATE = new BlockList();
  // The same ranges (their edges are tested in ssrf.test.ts): what is compared here is the matching.
  for (const [net, bits] of PRIVATE_RANGES) PRIVATE.addSubnet(net, bits, net.includes(":") ? "ipv6" : "ipv4");
  const oracle = (address: string, allowLoopback: boolean): boolean => {
    const family = isIP(address);
    if (family === 0) return true;
    const type = family === 4 ? "ipv4" : "ipv6";
    if (LOOPBACK.check(address, type)) return !allowLoopback;
    return PRIVATE.check(address, type);
  };

  test("on every generated spelling, mapped and special ranges included, with and without the loopback switch", () => {
    const next = random(0x27d4eb2d);
    const int = (n: number): number => Math.floor(next() * n);
    const octet = (): number => (next() < 0.5 ? ([0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255][int(12)] as number) : int(256));
    const v4 = (): string => [octet(), octet(), octet(), octet()].join(".");
    const prefixes = ["", "::ffff:", "::", "64:ff9b::", "::ffff:0:", "2001:db8::", "fe80::", "fc00::", "2606:4700::", "ff02::", "2002:"];
    const cases = [...CURATED, ...generated(5000)];
    for (let i = 0; i < 5000; i++) cases.push(`${prefixes[int(prefixes.length)]}${v4()}`);
    const mismatches = cases.flatMap((address) =>
      [false, true]
        .filter((allow) => isForbiddenAddress(address, allow) !== oracle(address, allow))
        .map((allow) => ({ address, allow, ours: isForbiddenAddress(address, allow) })),
    );
    expect(mismatches.slice(0, 10)).toEqual([]);
  });
});
