// A client that vanishes in the middle of its /mcp request body is answered 400 and logged as an ordinary request, never an unhandled 500 (found by bun run fuzz).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startWorld, type World } from "../support/world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld({ LOG_LEVEL: "INFO" });
});
afterAll(() => world.close());

/** Sends the headers and half of a tools/list body to `path`, then closes the connection. */
async function dropMidBody(path: string): Promise<void> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${world.daemon.port}`,
    `Authorization: Bearer ${world.token}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${body.length}`,
  ].join("\r\n");
  const socket = await Bun.connect({ hostname: "127.0.0.1", port: world.daemon.port, socket: { data() {} } });
  socket.write(`${head}\r\n\r\n${body.slice(0, body.length / 2)}`);
  await Bun.sleep(100);
  socket.end();
}

test("a body cut short on the way through the router (/%2e%2e/mcp normalises to /mcp) is a 400, not an unhandled error", async () => {
  await dropMidBody("/%2e%2e/mcp");
  const deadline = Date.now() + 5000;
  while (!/path=\/mcp status=\d{3}|unhandled error/.test(world.daemon.logs()) && Date.now() < deadline) await Bun.sleep(50);
  expect(world.daemon.logs()).not.toContain("unhandled error");
  expect(world.daemon.logs()).toMatch(/path=\/mcp status=400/);
  // And the daemon is none the worse for it.
  expect((await fetch(`${world.daemon.url}/healthz`)).status).toBe(200);
});
