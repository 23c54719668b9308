// A client that hangs up in the middle of its /token body: no 500, no ERROR line — a dropped connection is the client's problem, not a server fault.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { staticTokens, startOAuthWorld, type OAuthWorld } from "../support/oauth-flow.ts";

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld({ password: true });
});
afterAll(async () => {
  await world.close();
});

/** Sends the request line, headers and `body` (shorter than its Content-Length), then closes the socket. */
async function sendHalfAndHangUp(path: string, contentType: string, body: string): Promise<void> {
  const socket = await Bun.connect({ hostname: "127.0.0.1", port: world.daemon.port, socket: { data() {} } });
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${world.daemon.port}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length * 2}\r\n\r\n${body}`,
  );
  socket.flush();
  await Bun.sleep(50);
  socket.end();
}

/** Waits for the daemon's request line for `path` (logs arrive asynchronously); "" if none came. */
async function requestLine(path: string, count: number): Promise<string[]> {
  for (let i = 0; i < 150; i++) {
    const lines = world.daemon
      .logs()
      .split("\n")
      .filter((line) => line.includes(`path=${path} `));
    if (lines.length >= count) return lines;
    await Bun.sleep(20);
  }
  return world.daemon
    .logs()
    .split("\n")
    .filter((line) => line.includes(`path=${path} `));
}

test("half a /token body, then a hang-up: answered as a client error, nothing logged at ERROR, and the server carries on", async () => {
  const { refresh_token } = await staticTokens(world);
  const before = (await requestLine("/token", 1)).length;
  await sendHalfAndHangUp(
    "/token",
    "application/x-www-form-urlencoded",
    `grant_type=refresh_token&refresh_token=${refresh_token}&client_id=x`,
  );
  const lines = await requestLine("/token", before + 1);
  expect(lines.length).toBeGreaterThan(before);
  expect(lines.slice(before).join("\n")).not.toContain("status=500");
  expect(world.daemon.logs()).not.toContain("ERROR");
  // The same hang-up on /register (JSON body) and on the consent form.
  await sendHalfAndHangUp("/register", "application/json", '{"redirect_uris":["https://app.example/cb"],"client_name":"x');
  await sendHalfAndHangUp("/authorize", "application/x-www-form-urlencoded", "req=abc&csrf=def&action=approve&password=x");
  expect((await requestLine("/register", 1)).join("\n")).not.toContain("status=500");
  expect((await requestLine("/authorize", 1)).join("\n")).not.toContain("status=500");
  expect(world.daemon.logs()).not.toContain("ERROR");
  expect((await fetch(`${world.url}/healthz`)).status).toBe(200);
});
