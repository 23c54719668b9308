// The stress harness itself: seeded cases replay byte for byte, and the raw sender tells an answer, a 1xx step, a silent close and a hang apart.
import { afterAll, describe, expect, test } from "bun:test";
import { type FuzzContext, fuzzCase } from "../../stress/fuzz-cases.ts";
import { sendRaw } from "../../stress/support/raw-http.ts";
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
