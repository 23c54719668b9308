// The tunnel probe: an HMAC of the caller's challenge under the per-start key, first, then an end event a second later; bad challenges refused.
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { PROBE_PATH, tunnelProbeRoutes } from "../../src/http/tunnel-probe.ts";

const app = tunnelProbeRoutes("the-key");

describe("GET /.well-known/hermes-mcp/probe", () => {
  test("streams the proof for the challenge, then an end event", async () => {
    const challenge = "A".repeat(32);
    const response = await app.request(`${PROBE_PATH}?challenge=${challenge}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    // The same stream headers as /mcp's, so what the probe sees through a tunnel is what tool calls see.
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const text = await response.text();
    const proof = createHmac("sha256", "the-key").update(challenge).digest("hex");
    expect(text).toBe(`event: proof\ndata: {"proof":"${proof}"}\n\nevent: end\ndata: {}\n\n`);
  });

  test("a missing, short or odd challenge is a 400 that says what is expected", async () => {
    for (const query of ["", "?challenge=short", `?challenge=${"a".repeat(129)}`, `?challenge=${"a".repeat(20)}%0A`]) {
      const response = await app.request(`${PROBE_PATH}${query}`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error_description: string }).error_description).toContain("challenge");
    }
  });
});
