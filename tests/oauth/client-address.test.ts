// The source address for per-address limits: a direct peer is itself; only a loopback peer (a local proxy or tunnel) is believed about the client behind it.
import { describe, expect, test } from "bun:test";
import { addressKey, clientAddress } from "../../src/oauth/client-address.ts";

const h = (headers: Record<string, string> = {}): Headers => new Headers(headers);

describe("clientAddress", () => {
  test("a non-loopback peer is the answer; CF-Connecting-IP and X-Forwarded-For are ignored (anyone can send them)", () => {
    expect(clientAddress("203.0.113.7", h())).toBe("203.0.113.7");
    expect(clientAddress("203.0.113.7", h({ "CF-Connecting-IP": "198.51.100.1", "X-Forwarded-For": "198.51.100.2" }))).toBe("203.0.113.7");
    expect(clientAddress("2001:db8::1", h({ "X-Forwarded-For": "198.51.100.2" }))).toBe("2001:db8::1");
  });

  test("a loopback peer (tunnel, reverse proxy) is believed: CF-Connecting-IP first", () => {
    for (const peer of ["127.0.0.1", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::ffff:7f00:1"]) {
      expect(clientAddress(peer, h({ "CF-Connecting-IP": "198.51.100.1", "X-Forwarded-For": "198.51.100.2" }))).toBe("198.51.100.1");
    }
  });

  test("then the last X-Forwarded-For hop (the one the proxy appended; earlier hops are the client's own claims)", () => {
    expect(clientAddress("127.0.0.1", h({ "X-Forwarded-For": "10.9.9.9, 198.51.100.2" }))).toBe("198.51.100.2");
    expect(clientAddress("127.0.0.1", h({ "X-Forwarded-For": " 2001:DB8::5 " }))).toBe("2001:db8::5");
  });

  test("garbage headers are ignored: the next source, or the loopback peer itself", () => {
    expect(clientAddress("127.0.0.1", h({ "CF-Connecting-IP": "not an ip", "X-Forwarded-For": "198.51.100.2" }))).toBe("198.51.100.2");
    expect(clientAddress("127.0.0.1", h({ "CF-Connecting-IP": "1.2.3.4.5", "X-Forwarded-For": "198.51.100.2, <script>" }))).toBe(
      "127.0.0.1",
    );
    expect(clientAddress("127.0.0.1", h({ "X-Forwarded-For": "" }))).toBe("127.0.0.1");
    expect(clientAddress("::1", h({ "CF-Connecting-IP": "999.1.1.1" }))).toBe("::1");
  });

  test("IPv4-mapped peers are their IPv4 address; no peer at all is 'unknown'", () => {
    expect(clientAddress("::ffff:203.0.113.7", h())).toBe("203.0.113.7");
    // Every spelling of the same mapped address is the same peer, so none escapes its per-address limits.
    expect(clientAddress("::FFFF:cb00:7107", h())).toBe("203.0.113.7");
    expect(clientAddress("0:0:0:0:0:ffff:203.0.113.7", h())).toBe("203.0.113.7");
    expect(clientAddress("::1", h({ "CF-Connecting-IP": "::ffff:cb00:7107" }))).toBe("203.0.113.7");
    expect(clientAddress(null, h({ "CF-Connecting-IP": "198.51.100.1" }))).toBe("unknown");
    expect(clientAddress("garbage", h())).toBe("unknown");
  });
});

describe("addressKey", () => {
  test("IPv4 counts per address; IPv6 per /64 (one subscriber's whole prefix)", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("64:ff9b::192.0.2.33")).toBe("64:ff9b:0:0::/64");
    expect(addressKey("unknown")).toBe("unknown");
  });
});
