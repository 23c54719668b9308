// The stress harness itself: seeded cases replay byte for byte, the raw sender tells an answer, a 1xx step, a silent close and a hang apart, and RSS trends are judged only on enough samples.
import { afterAll, describe, expect, test } from "bun:test";
import { type FuzzContext, fuzzCase } from "../../stress/fuzz-cases.ts";
import { sendRaw } from "../../stress/support/raw-http.ts";
import { MIN_PER_QUARTER, rssLimit, rssTrend } from "../../stress/support/measure.ts";
import { rngFor } from "../../stress/support/rng.ts";

const ctx: FuzzContext = {
  host: "127.0.0.1:1",
  token: "hmcp_pat_test",
  staticId: "static",
  staticSecret: "secret",
  consent: [{ req: "r", csrf: "c" }],
  dynamicClientId: "hmcp_client_x",
  redirectUri: "http://127.0.0.1:9/callback",
};

describe("fuzz cases", () => {
  test("case N of seed S is the same bytes every time, and different cases differ", () => {
    const a = fuzzCase(rngFor(42, 7), ctx);
    const b = fuzzCase(rngFor(42, 7), ctx);
    expect(Buffer.from(b.bytes).equals(Buffer.from(a.bytes))).toBe(true);
    expect(b.mutations).toEqual(a.mutations);
    const others = Array.from({ length: 20 }, (_, i) => Buffer.from(fuzzCase(rngFor(42, 100 + i), ctx).bytes).toString("latin1"));
    expect(new Set(others).size).toBe(20);
  });

  test("three hundred cases reach every target", () => {
    const targets = new Set(Array.from({ length: 300 }, (_, i) => fuzzCase(rngFor(1, i), ctx).target));
    expect([...targets].sort()).toEqual(["authorize", "consent", "discovery", "mcp", "register", "revoke", "token"]);
  });
});

describe("raw sender", () => {
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        const text = data.toString();
        if (text.startsWith("GET /500")) socket.end("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
        else if (text.startsWith("GET /continue")) socket.end("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n");
        else if (text.startsWith("GET /close")) socket.end();
        // /hang: never answers
      },
    },
  });
  afterAll(() => server.stop(true));
  const send = (path: string, giveUpAfterMs?: number) =>
    sendRaw(server.port, new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`), { timeoutMs: 300, giveUpAfterMs });

  test("reads the final status, past a 100 Continue", async () => {
    expect((await send("/500")).status).toBe(500);
    expect((await send("/continue")).status).toBe(204);
  });

  test("a close without a word, a hang, and giving up are three different outcomes", async () => {
    expect(await send("/close")).toMatchObject({ status: null, closed: true, timedOut: false, gaveUp: false });
    expect(await send("/hang")).toMatchObject({ status: null, timedOut: true, gaveUp: false });
    expect(await send("/hang", 100)).toMatchObject({ status: null, timedOut: false, gaveUp: true });
  });
});

describe("RSS trend under load", () => {
  const MiB = 1048576;
  test("a short run climbing to what the load needs is not judged a trend (the CI soak's 8 s gave four samples)", () => {
    const trend = rssTrend([112, 118, 125, 132].map((m) => m * MiB));
    expect(trend.judged).toBe(false);
    expect(trend.grows).toBe(false);
  });

  test("with enough samples, a garbage collector's sawtooth is flat and a steady climb grows", () => {
    const quarters = 4 * MIN_PER_QUARTER;
    const sawtooth = Array.from({ length: quarters }, (_, i) => (i % 2 === 0 ? 120 : 160) * MiB);
    expect(rssTrend(sawtooth)).toMatchObject({ judged: true, grows: false });
    const climb = Array.from({ length: quarters }, (_, i) => (120 + i * 5) * MiB);
    const trend = rssTrend(climb);
    expect(trend).toMatchObject({ judged: true, grows: true });
    expect(trend.late).toBeGreaterThan(rssLimit(trend.early));
  });

  test("the tolerance is 10 %, at least 16 MiB", () => {
    expect(rssLimit(100 * MiB)).toBe(116 * MiB);
    expect(rssLimit(400 * MiB)).toBe(440 * MiB);
  });
});
