// The SSRF guard for client metadata documents: which addresses are off-limits, however they are spelled, and the DNS lookup that enforces it.
import { describe, expect, test } from "bun:test";
import { guardedLookup, isForbiddenAddress } from "../../src/oauth/ssrf.ts";

describe("isForbiddenAddress", () => {
  test("loopback, private, link-local, shared, reserved and multicast IPv4 are forbidden", () => {
    for (const address of [
      "127.0.0.1",
      "127.8.9.10",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "198.18.0.1",
    ]) {
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: true });
    }
  });

  test("the same targets spelled as IPv6 (mapped, compatible, translated, NAT64) are forbidden too", () => {
    for (const address of [
      "::1",
      "::",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "::ffff:a9fe:a9fe",
      "::127.0.0.1",
      "::ffff:0:7f00:1",
      "64:ff9b::7f00:1",
      "fe80::1",
      "fd12:3456::1",
      "ff02::1",
      "2002:7f00:1::1",
    ]) {
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: true });
    }
  });

  test("public addresses are allowed; what is not an IP address at all is refused", () => {
    for (const address of ["1.1.1.1", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:1.1.1.1"]) {
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: false });
    }
    expect(isForbiddenAddress("example.com")).toBe(true);
    expect(isForbiddenAddress("")).toBe(true);
  });

  test("the test-only loopback switch opens loopback and nothing else", () => {
    expect(isForbiddenAddress("127.0.0.1", true)).toBe(false);
    expect(isForbiddenAddress("::1", true)).toBe(false);
    expect(isForbiddenAddress("::ffff:127.0.0.1", true)).toBe(false);
    for (const address of ["10.0.0.1", "169.254.169.254", "192.168.0.1", "fd00::1"]) expect(isForbiddenAddress(address, true)).toBe(true);
  });
});

describe("guardedLookup", () => {
  const resolve = (host: string, allowLoopback: boolean): Promise<{ code?: string; address?: unknown }> =>
    new Promise((done) =>
      guardedLookup(allowLoopback)(host, {}, (error, address) =>
        done(error ? { code: (error as NodeJS.ErrnoException).code } : { address }),
      ),
    );

  test("a name that resolves to loopback is refused at connect time", async () => {
    expect((await resolve("localhost", false)).code).toBe("EFORBIDDENADDRESS");
  });

  test("with the test-only switch the same name resolves", async () => {
    const answer = await resolve("localhost", true);
    expect(answer.code).toBeUndefined();
    expect(typeof answer.address).toBe("string");
  });
});
