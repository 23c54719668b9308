// The SSRF address guard at its edges: range boundaries, every IPv6 spelling of an IPv4 target, non-canonical forms, and the connect-time lookup's answers.
import { describe, expect, test } from "bun:test";
import type { LookupAddress } from "node:dns";
import { guardedLookup, isForbiddenAddress } from "../../src/oauth/ssrf.ts";

const verdicts = (addresses: string[], allowLoopback = false): Record<string, boolean> =>
  Object.fromEntries(addresses.map((address) => [address, isForbiddenAddress(address, allowLoopback)]));
const all = (addresses: string[], forbidden: boolean): Record<string, boolean> =>
  Object.fromEntries(addresses.map((address) => [address, forbidden]));

describe("isForbiddenAddress: IPv4 ranges", () => {
  test("the first and last address of every private or special range is forbidden", () => {
    const edges = [
      "0.0.0.0",
      "0.255.255.255", // "this network"
      "10.0.0.0",
      "10.255.255.255",
      "100.64.0.0",
      "100.127.255.255", // CGNAT shared space
      "127.0.0.0",
      "127.255.255.255",
      "169.254.0.0",
      "169.254.169.254",
      "169.254.255.255", // link-local, cloud metadata
      "172.16.0.0",
      "172.31.255.255",
      "192.0.0.0",
      "192.0.0.255",
      "192.0.2.0",
      "198.51.100.7",
      "203.0.113.255", // documentation
      "192.168.0.0",
      "192.168.255.255",
      "198.18.0.0",
      "198.19.255.255", // benchmarking
      "224.0.0.0",
      "239.255.255.255", // multicast
      "240.0.0.0",
      "255.255.255.255", // reserved, broadcast
    ];
    expect(verdicts(edges)).toEqual(all(edges, true));
  });

  test("the public neighbours just outside those ranges are allowed", () => {
    const neighbours = [
      "1.0.0.0",
      "9.255.255.255",
      "11.0.0.0",
      "100.63.255.255",
      "100.128.0.0",
      "126.255.255.255",
      "128.0.0.0",
      "169.253.255.255",
      "169.255.0.0",
      "172.15.255.255",
      "172.32.0.0",
      "192.167.255.255",
      "192.169.0.0",
      "198.17.255.255",
      "198.20.0.0",
      "223.255.255.255",
    ];
    expect(verdicts(neighbours)).toEqual(all(neighbours, false));
  });

  test("non-canonical IPv4 spellings (octal, hex, short, integer) are refused as not-an-address", () => {
    const odd = [
      "0177.0.0.1",
      "0x7f.0.0.1",
      "0x7f000001",
      "127.1",
      "2130706433",
      "127.0.0.1.",
      " 127.0.0.1",
      "127.0.0.1:80",
      "1.1.1.1/32",
      "01.1.1.1",
    ];
    expect(verdicts(odd)).toEqual(all(odd, true));
  });
});

describe("isForbiddenAddress: IPv6", () => {
  test("IPv4-mapped addresses are judged by the IPv4 address they carry, in every spelling", () => {
    const mappedPrivate = [
      "::ffff:127.0.0.1",
      "::FFFF:127.0.0.1",
      "0:0:0:0:0:ffff:127.0.0.1",
      "0:0:0:0:0:ffff:7f00:1",
      "::ffff:7f00:0001",
      "::ffff:10.0.0.1",
      "::ffff:a00:1",
      "::ffff:192.168.1.1",
      "::ffff:c0a8:101",
      "::ffff:172.16.0.1",
      "::ffff:ac10:1",
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "::ffff:100.64.0.1",
      "::ffff:0.0.0.0",
      "::ffff:224.0.0.1",
      "::ffff:255.255.255.255",
    ];
    expect(verdicts(mappedPrivate)).toEqual(all(mappedPrivate, true));
    const mappedPublic = ["::ffff:8.8.8.8", "::ffff:808:808", "::ffff:1.0.0.1"];
    expect(verdicts(mappedPublic)).toEqual(all(mappedPublic, false));
  });

  test("unspecified, loopback, IPv4-compatible, translated and NAT64 forms are forbidden", () => {
    const forms = [
      "::",
      "0:0:0:0:0:0:0:0",
      "::1",
      "0:0:0:0:0:0:0:1",
      "::0.0.0.1",
      "::10.0.0.1",
      "::ffff:0:a00:1",
      "64:ff9b::10.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::a00:1",
    ];
    expect(verdicts(forms)).toEqual(all(forms, true));
  });

  test("unique-local, link-local, site-local, multicast, documentation, 6to4 and Teredo are forbidden", () => {
    const special = [
      "fc00::",
      "fc00::1",
      "fd00::1",
      "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
      "fe80::",
      "fe80::1",
      "febf:ffff::1",
      "fec0::1",
      "ff02::1",
      "ff05::1:3",
      "2001:db8::1",
      "2002:c0a8:101::1",
      "2001:0:4136:e378::1",
      "100::1",
    ];
    expect(verdicts(special)).toEqual(all(special, true));
  });

  test("a link-local address with a zone index is refused", () => {
    expect(isForbiddenAddress("fe80::1%eth0")).toBe(true);
    expect(isForbiddenAddress("fe80::1%1")).toBe(true);
  });

  test("global unicast addresses are allowed", () => {
    const global = ["2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001:80b::200e", "2620:fe::fe"];
    expect(verdicts(global)).toEqual(all(global, false));
  });
});

describe("isForbiddenAddress: the test-only loopback switch", () => {
  test("opens every loopback spelling", () => {
    const loopback = ["127.0.0.1", "127.255.255.254", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::ffff:7f00:1"];
    expect(verdicts(loopback, true)).toEqual(all(loopback, false));
  });

  test("keeps everything else shut, including addresses that reach this machine without being loopback", () => {
    const rest = [
      "0.0.0.0",
      "::",
      "10.0.0.1",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "::ffff:10.0.0.1",
      "::ffff:169.254.169.254",
      "fc00::1",
      "fe80::1",
      "64:ff9b::7f00:1",
      "not-an-ip",
    ];
    expect(verdicts(rest, true)).toEqual(all(rest, true));
  });
});

describe("guardedLookup", () => {
  type Answer = { code?: string; address?: string | LookupAddress[]; family?: number };
  const resolve = (host: string, options: { all?: boolean; family?: number } | number, allowLoopback = false): Promise<Answer> =>
    new Promise((done) =>
      guardedLookup(allowLoopback)(host, options, (error, address, family) =>
        done(error ? { code: (error as NodeJS.ErrnoException).code } : { address, family }),
      ),
    );

  test("a literal private or loopback address is refused, whatever the options", async () => {
    for (const host of ["127.0.0.1", "10.0.0.1", "169.254.169.254", "::1"]) {
      for (const options of [{}, { all: true }, 4]) {
        expect({ host, options, code: (await resolve(host, options)).code }).toEqual({ host, options, code: "EFORBIDDENADDRESS" });
      }
    }
  });

  test("the refusal carries no address a caller could connect to anyway", async () => {
    const answer = await new Promise<{ message: string; address: string | LookupAddress[] }>((done) =>
      guardedLookup(false)("localhost", { all: true }, (error, address) => done({ message: error?.message ?? "", address })),
    );
    expect(answer.message).toContain("localhost");
    expect(answer.address).toEqual([]);
  });

  test("the loopback switch does not open private addresses", async () => {
    expect((await resolve("10.0.0.1", {}, true)).code).toBe("EFORBIDDENADDRESS");
    expect((await resolve("169.254.169.254", {}, true)).code).toBe("EFORBIDDENADDRESS");
  });

  test("a public address resolves, as one address or as a list when all is asked for", async () => {
    expect(await resolve("1.1.1.1", {})).toEqual({ address: "1.1.1.1", family: 4 });
    expect(await resolve("1.1.1.1", 4)).toEqual({ address: "1.1.1.1", family: 4 });
    expect((await resolve("1.1.1.1", { all: true })).address).toEqual([{ address: "1.1.1.1", family: 4 }]);
  });

  test("with the switch, loopback names resolve in both callback shapes", async () => {
    const one = await resolve("localhost", 4, true);
    expect(one).toEqual({ address: "127.0.0.1", family: 4 });
    const list = await resolve("localhost", { all: true, family: 4 }, true);
    expect(list.address).toEqual([{ address: "127.0.0.1", family: 4 }]);
  });
});
