// The test support's "nothing listens here" port: refused, and never the port a later bind to port 0 (a daemon's, a gateway's) is handed.
import { expect, test } from "bun:test";
import { ephemeralRangeStart, reserveClosedPort } from "./support/fake-gateway.ts";

test("the closed port refuses connections, lies below the ephemeral range, and no bind to port 0 is handed it", async () => {
  const port = reserveClosedPort();
  await expect(Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } })).rejects.toThrow();
  expect(port).toBeLessThan(ephemeralRangeStart());
  // What a bind(0)-and-close port shared with freePort allowed: a daemon listening on the "closed" gateway port.
  const held = Array.from({ length: 200 }, () => Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } }));
  try {
    expect(held.map((listener) => listener.port)).not.toContain(port);
  } finally {
    for (const listener of held) listener.stop(true);
  }
});
