// The gateway's HTTP/1.1 client against real loopback servers: framing, keep-alive, stale connections, aborts, bad answers.
import { afterEach, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { join } from "node:path";
import { GatewayClient } from "../../src/gateway/client.ts";
import { GatewayError } from "../../src/gateway/errors.ts";
import { gatewayFetchFor, Http1Agent } from "../../src/gateway/http1.ts";
import { MalformedAnswer } from "../../src/gateway/http1-response.ts";
import { reserveClosedPort } from "../support/fake-gateway.ts";
import { until } from "../support/until.ts";

interface RawServer {
  url: string;
  /** Connections opened so far. */
  opened: () => number;
  /** Connections the client closed or the server saw end. */
  closed: () => number;
  /** Every request as received (head and body). */
  requests: string[];
  stop: () => void;
}

type Answer = (socket: Socket<{ buffer: string }>, request: string, index: number) => void;

/** A TCP server that reads each whole request (head + Content-Length body) and lets the test answer it byte for byte. */
function rawServer(answer: Answer): RawServer {
  let opened = 0;
  let closed = 0;
  const requests: string[] = [];
  const listener: TCPSocketListener<{ buffer: string }> = Bun.listen<{ buffer: string }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        opened++;
        socket.data = { buffer: "" };
      },
      data(socket, data) {
        socket.data.buffer += data.toString("latin1");
        for (;;) {
          const end = socket.data.buffer.indexOf("\r\n\r\n");
          if (end < 0) return;
          const length = Number(/content-length: (\d+)/i.exec(socket.data.buffer.slice(0, end))?.[1] ?? 0);
          if (socket.data.buffer.length < end + 4 + length) return;
          const request = socket.data.buffer.slice(0, end + 4 + length);
          socket.data.buffer = socket.data.buffer.slice(end + 4 + length);
          requests.push(request);
          answer(socket, request, requests.length - 1);
        }
      },
      close() {
        closed++;
      },
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    opened: () => opened,
    closed: () => closed,
    requests,
    stop: () => listener.stop(true),
  };
}

const ok = (body: string, extra = ""): string =>
  `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

const servers: RawServer[] = [];
const agents: Http1Agent[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop();
  for (const agent of agents.splice(0)) agent.close();
});
function serve(answer: Answer): RawServer {
  const server = rawServer(answer);
  servers.push(server);
  return server;
}
function newAgent(): Http1Agent {
  const agent = new Http1Agent();
  agents.push(agent);
  return agent;
}
const get = (agent: Http1Agent, url: string, signal?: AbortSignal) => agent.fetch(url, { method: "GET", headers: {}, signal });

describe("against Bun.serve", () => {
  test("a POST with a JSON body, the headers and the status come back as fetch gives them", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) =>
        Response.json(
          {
            method: request.method,
            path: new URL(request.url).pathname,
            auth: request.headers.get("authorization"),
            body: await request.json(),
          },
          { status: 201, headers: { "x-hermes-session-id": "s-1" } },
        ),
    });
    try {
      const response = await newAgent().fetch(`http://127.0.0.1:${server.port}/v1/chat/completions?x=1`, {
        method: "POST",
        headers: { Authorization: "Bearer k", "Content-Type": "application/json" },
        body: JSON.stringify({ prompt: "héllo ✓" }),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get("x-hermes-session-id")).toBe("s-1");
      expect(await response.json()).toEqual({
        method: "POST",
        path: "/v1/chat/completions",
        auth: "Bearer k",
        body: { prompt: "héllo ✓" },
      });
    } finally {
      server.stop(true);
    }
  });

  test("a 4 MiB request body goes out whole (the socket's backpressure is waited out)", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => new Response(String((await request.text()).length)),
    });
    try {
      const body = "x".repeat(4 * 1024 * 1024);
      const response = await newAgent().fetch(`http://127.0.0.1:${server.port}/`, { method: "POST", headers: {}, body });
      expect(await response.text()).toBe(String(body.length));
    } finally {
      server.stop(true);
    }
  });

  test("a streamed answer arrives piece by piece, before the server has finished", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode("data: first\n\n"));
              await released;
              controller.enqueue(new TextEncoder().encode("data: second\n\n"));
              controller.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    });
    try {
      const response = await newAgent().fetch(`http://127.0.0.1:${server.port}/`, { method: "GET", headers: {} });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
      release();
      let rest = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
      expect(rest).toBe("data: second\n\n");
    } finally {
      server.stop(true);
    }
  });
});

describe("framing", () => {
  test("a chunked body split into single bytes, with extensions and trailers, reads whole; the connection is reused", async () => {
    const server = serve((socket) => {
      const raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n";
      void (async () => {
        for (const byte of raw) {
          socket.write(byte);
          socket.flush();
          await Bun.sleep(0);
        }
      })();
    });
    const agent = newAgent();
    expect(await (await get(agent, `${server.url}/a`)).text()).toBe("hello, world");
    expect(await (await get(agent, `${server.url}/b`)).text()).toBe("hello, world");
    expect(server.opened()).toBe(1);
  });

  test("the HTTP chunks of one socket read reach the reader as one read (a gateway's last packet is read once, not per chunk)", async () => {
    let finish: () => void = () => {};
    const server = serve((socket) => {
      // Head first, then the body's chunks in a single write, the way a gateway's last packet comes.
      socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      finish = () => {
        socket.write('d\r\ndata: delta\n\n\r\n14\r\ndata: {"finish":1}\n\n\r\ne\r\ndata: [DONE]\n\n\r\n0\r\n\r\n');
      };
    });
    const response = await get(newAgent(), server.url);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const pending = reader.read();
    finish();
    const first = await pending;
    expect(new TextDecoder().decode(first.value)).toBe('data: delta\n\ndata: {"finish":1}\n\ndata: [DONE]\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  test("a chunk that breaks in the same read as good ones: a reader already waiting gets the good bytes, then the fault", async () => {
    let more: () => void = () => {};
    const server = serve((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      more = () => socket.write("5\r\nhello\r\nzz\r\n");
    });
    const response = await get(newAgent(), server.url);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const pending = reader.read();
    more();
    expect(new TextDecoder().decode((await pending).value)).toBe("hello");
    expect(await reader.read().catch((caught: unknown) => caught)).toBeInstanceOf(MalformedAnswer);
  });

  test("Content-Length bodies: one connection carries request after request", async () => {
    const server = serve((socket, _request, index) => socket.write(ok(`answer ${index}`)));
    const agent = newAgent();
    for (let i = 0; i < 5; i++) expect(await (await get(agent, server.url)).text()).toBe(`answer ${i}`);
    expect(server.opened()).toBe(1);
  });

  test("a body that ends with the connection reads whole; that connection is not reused", async () => {
    const server = serve((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end");
      socket.end();
    });
    const agent = newAgent();
    expect(await (await get(agent, server.url)).text()).toBe("until the end");
    expect(await (await get(agent, server.url)).text()).toBe("until the end");
    expect(server.opened()).toBe(2);
  });

  test("an HTTP/1.0 answer without keep-alive: its connection is not reused", async () => {
    const server = serve((socket) => socket.write("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nold"));
    const agent = newAgent();
    expect(await (await get(agent, server.url)).text()).toBe("old");
    expect(await (await get(agent, server.url)).text()).toBe("old");
    expect(server.opened()).toBe(2);
  });

  test("Connection: close is honoured: the next request opens a new connection", async () => {
    const server = serve((socket) => socket.write(ok("bye", "Connection: close\r\n")));
    const agent = newAgent();
    await (await get(agent, server.url)).text();
    await (await get(agent, server.url)).text();
    expect(server.opened()).toBe(2);
  });

  test("204 has no body; interim 100 answers are skipped", async () => {
    const server = serve((socket, _request, index) =>
      socket.write(index === 0 ? "HTTP/1.1 204 No Content\r\n\r\n" : `HTTP/1.1 100 Continue\r\n\r\n${ok("after continue")}`),
    );
    const agent = newAgent();
    const empty = await get(agent, server.url);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect(await (await get(agent, server.url)).text()).toBe("after continue");
    expect(server.opened()).toBe(1);
  });

  test("bytes after the answer make the connection untrusted: it is closed, not reused", async () => {
    const server = serve((socket) => socket.write(`${ok("one")}HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo`));
    const agent = newAgent();
    expect(await (await get(agent, server.url)).text()).toBe("one");
    expect(await (await get(agent, server.url)).text()).toBe("one");
    expect(server.opened()).toBe(2);
  });

  for (const [what, raw, message] of [
    ["an unreadable status line", "HTTP/2 200 OK\r\n\r\n", "malformed response"],
    ["a header line without a colon", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed response"],
    [
      "both Transfer-Encoding and Content-Length",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
      "malformed response",
    ],
    ["conflicting Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\n", "malformed response"],
    ["a 101 nobody asked for", "HTTP/1.1 101 Switching Protocols\r\n\r\n", "switch of protocols"],
    ["headers past 64 KiB", `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(70 * 1024)}\r\n\r\n`, "larger than 64 KiB"],
    ["a status no response can carry", "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", "status 999"],
  ] as const) {
    test(`${what}: the fetch rejects, saying so (a malformed answer, not a connection failure)`, async () => {
      const server = serve((socket) => socket.write(raw));
      const error = await get(newAgent(), server.url).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MalformedAnswer);
      expect((error as Error).message).toContain(message);
    });
  }

  test("a body cut short (Content-Length not reached, or a broken chunk): reading it fails; a broken chunk as a malformed answer", async () => {
    const short = serve((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this");
      socket.end();
    });
    const broken = serve((socket) => socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"));
    const overlong = serve((socket) => socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${"1".repeat(9000)}`));
    for (const server of [short, broken, overlong]) {
      const response = await get(newAgent(), server.url);
      expect(response.status).toBe(200);
      const error = await response.text().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      // Cut short is the connection's doing; a chunk that cannot be read is the gateway's.
      expect(error instanceof MalformedAnswer).toBe(server !== short);
    }
  });
});

describe("connections", () => {
  test("a connection the server closed after answering leaves the pool: the next request opens a new one", async () => {
    const server = serve((socket, _request, index) => {
      socket.write(ok(`answer ${index}`));
      socket.end();
    });
    const agent = newAgent();
    expect(await (await get(agent, server.url)).text()).toBe("answer 0");
    expect(await (await get(agent, server.url)).text()).toBe("answer 1");
    expect(server.opened()).toBe(2);
  });

  test("a kept-alive connection closed just as a request was sent on it: retried once on a fresh one", async () => {
    const server = serve((socket, _request, index) => {
      // The second request arrives on the kept-alive connection; the server drops it unanswered, as one closing an
      // idle connection at that very moment would.
      if (index === 1) socket.end();
      else socket.write(ok(`answer ${index}`));
    });
    const agent = newAgent();
    expect(await (await get(agent, server.url)).text()).toBe("answer 0");
    expect(await (await get(agent, server.url)).text()).toBe("answer 2");
    expect(server.requests.length).toBe(3);
    expect(server.opened()).toBe(2);
  });

  test("a fresh connection closed before any answer is not retried: the fetch rejects", async () => {
    const server = serve((socket) => socket.end());
    const error = await get(newAgent(), server.url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(server.requests.length).toBe(1);
  });

  test("a gateway URL naming localhost reaches a gateway bound to 127.0.0.1", async () => {
    const server = serve((socket) => socket.write(ok("by name")));
    expect(await (await get(newAgent(), server.url.replace("127.0.0.1", "localhost"))).text()).toBe("by name");
  });

  test("nothing listening: a TypeError naming the address", async () => {
    const port = await reserveClosedPort();
    const error = await get(newAgent(), `http://127.0.0.1:${port}/v1/health`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(`could not connect to 127.0.0.1:${port}`);
  });

  test("aborting before the answer rejects with the signal's reason at once and closes the connection", async () => {
    const server = serve(() => {});
    const controller = new AbortController();
    const pending = get(newAgent(), server.url, controller.signal);
    await until("server.requests.length === 1", () => server.requests.length === 1, 2000, 5);
    controller.abort(new Error("caller gave up"));
    expect(await pending.catch((caught: unknown) => (caught as Error).message)).toBe("caller gave up");
    await until("server.closed() === 1", () => server.closed() === 1, 2000, 5);
  });

  test("aborting mid-body errors the body and closes the connection; an aborted signal sends nothing", async () => {
    const server = serve((socket) => socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"));
    const controller = new AbortController();
    const agent = newAgent();
    const response = await get(agent, server.url, controller.signal);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("abc");
    controller.abort(new Error("stop"));
    expect(await reader.read().catch((caught: unknown) => (caught as Error).message)).toBe("stop");
    await until("server.closed() === 1", () => server.closed() === 1, 2000, 5);
    const error = await get(agent, server.url, controller.signal).catch((caught: unknown) => (caught as Error).message);
    expect(error).toBe("stop");
    expect(server.requests.length).toBe(1);
  });

  test("cancelling the body closes the connection (it cannot carry another request mid-answer)", async () => {
    const server = serve((socket) => socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"));
    const response = await get(newAgent(), server.url);
    await response.body?.cancel();
    await until("server.closed() === 1", () => server.closed() === 1, 2000, 5);
  });

  test("a CR or LF in a header value is refused before anything is sent (RFC 9110 §5.5)", async () => {
    const server = serve((socket) => socket.write(ok("never")));
    const error = await newAgent()
      .fetch(server.url, { method: "GET", headers: { "X-Hermes-Session-Id": "a\r\nX-Injected: 1" } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(server.opened()).toBe(0);
  });

  test("an unused connection is closed after the idle time", async () => {
    const server = serve((socket) => socket.write(ok("once")));
    const agent = new Http1Agent(1);
    agents.push(agent);
    expect(await (await get(agent, server.url)).text()).toBe("once");
    expect(server.closed()).toBe(0);
    // Bun's socket timeouts tick every 4 s (uSockets' granularity): a 1 s idle time ends at a tick, up to 4 s and more
    // on a busy machine, not at 1 s.
    await until("server.closed() === 1", () => server.closed() === 1, 12_000, 5);
  }, 15_000);

  test("close() closes every idle connection at once and says how many; the next request opens a fresh one", async () => {
    const server = serve((socket) => setTimeout(() => socket.write(ok("later")), 50));
    const agent = newAgent();
    // Six at once: six connections, all idle once answered.
    const answers = await Promise.all(Array.from({ length: 6 }, () => get(agent, server.url).then((r) => r.text())));
    expect(answers).toEqual(Array(6).fill("later"));
    expect(server.opened()).toBe(6);
    expect(agent.close()).toBe(6);
    await until("server.closed() === 6", () => server.closed() === 6, 2000, 5);
    expect(agent.close()).toBe(0);
    expect(await (await get(agent, server.url)).text()).toBe("later");
    expect(server.opened()).toBe(7);
  });

  test("an idle kept-alive connection does not keep a process alive", async () => {
    const server = serve((socket) => socket.write(ok("done")));
    const script = `import { Http1Agent } from ${JSON.stringify(join(import.meta.dir, "../../src/gateway/http1.ts"))};
      const r = await new Http1Agent().fetch(${JSON.stringify(server.url)}, { method: "GET", headers: {} });
      console.log(await r.text());`;
    const started = performance.now();
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => child.kill(), 10_000);
    expect(await child.exited).toBe(0);
    clearTimeout(timer);
    expect((await new Response(child.stdout).text()).trim()).toBe("done");
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("through GatewayClient", () => {
  test("an answer that is not HTTP/1.1 is a malformed answer, not an unreachable gateway", async () => {
    const server = serve((socket) => socket.write("SSH-2.0-OpenSSH_9.6\r\n\r\n"));
    const client = new GatewayClient({ baseUrl: server.url, apiKey: "k", model: "hermes-agent", fetch: newAgent().fetch });
    const error = await client.chat({ prompt: "hi", timeoutMs: 2000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe("malformed");
  });

  test("a stream whose chunked framing breaks mid-answer is a malformed answer, with the text so far kept", async () => {
    const frame = `data: ${JSON.stringify({ choices: [{ delta: { content: "half an answer" }, finish_reason: null }] })}\n\n`;
    const server = serve((socket) => {
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(frame).toString(16)}\r\n${frame}\r\n`,
      );
      // Later, once the first frame has been read: a size line that is not one.
      setTimeout(() => socket.write("not-a-size\r\n"), 50);
    });
    const client = new GatewayClient({ baseUrl: server.url, apiKey: "k", model: "hermes-agent", fetch: newAgent().fetch });
    const error = await client.chat({ prompt: "hi", timeoutMs: 2000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe("malformed");
    expect((error as GatewayError).partialText).toBe("half an answer");
  });

  test("a gateway that stops answering mid-call: the call's deadline ends it and closes the connection", async () => {
    const server = serve(() => {});
    const client = new GatewayClient({ baseUrl: server.url, apiKey: "k", model: "hermes-agent", fetch: newAgent().fetch });
    const error = await client.chat({ prompt: "hi", timeoutMs: 200 }).catch((caught: unknown) => caught);
    expect((error as GatewayError).kind).toBe("timeout");
    await until("server.closed() === 1", () => server.closed() === 1, 2000, 5);
  });
});

describe("gatewayFetchFor", () => {
  test("plain http gets our client; https, a configured proxy or an unreadable URL keep Bun's fetch", () => {
    expect(gatewayFetchFor("http://127.0.0.1:8642", {})).not.toBe(fetch);
    expect(gatewayFetchFor("https://gateway.example", {})).toBe(fetch);
    expect(gatewayFetchFor("http://127.0.0.1:8642", { HTTP_PROXY: "http://proxy:3128" })).toBe(fetch);
    expect(gatewayFetchFor("http://127.0.0.1:8642", { http_proxy: "http://proxy:3128" })).toBe(fetch);
    expect(gatewayFetchFor("not a url", {})).toBe(fetch);
  });
});
