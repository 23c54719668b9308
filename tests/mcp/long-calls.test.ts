// Long work: heartbeats keep a slow sync call alive (through an idle-cutting proxy too), timeouts and client disconnects interrupt Hermes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectClient, structuredOf, textOf, type Era } from "../support/mcp-client.ts";
import { startIdleProxy, type IdleProxy } from "../support/idle-proxy.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
let proxy: IdleProxy;
beforeAll(async () => {
  // No sync-to-job overflow here: these calls must stay sync for their whole length.
  world = await startWorld({ HERMES_MCP_SYNC_BUDGET_SECONDS: "0", HERMES_MCP_HEARTBEAT_SECONDS: "1", HERMES_REQUEST_TIMEOUT_SECONDS: "4" });
  proxy = startIdleProxy(world.daemon.port, 1600);
});
afterAll(async () => {
  proxy.stop();
  await world.close();
});

describe("heartbeats", () => {
  test("a silent slow call sends a heartbeat progress notification at least every heartbeat interval", async () => {
    const client = await world.client("legacy");
    const messages: { at: number; message: string }[] = [];
    const started = Date.now();
    const result = await client.callTool(
      { name: "hermes_ask", arguments: { prompt: "quietly slow [[delay:2600]]" } },
      { onprogress: (p) => messages.push({ at: Date.now() - started, message: p.message ?? "" }) },
    );
    expect(structuredOf(result).status).toBe("completed");
    const beats = messages.filter((m) => m.message.includes("still working"));
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[0]?.message).toMatch(/\d+ s elapsed/);
  });

  test("without a progress token, the call is kept alive with log notifications instead", async () => {
    const client = await world.client("legacy");
    const logs: string[] = [];
    client.setNotificationHandler("notifications/message", (n) => {
      logs.push(String(n.params.data));
    });
    const result = await client.callTool({ name: "hermes_ask", arguments: { prompt: "no token [[delay:2300]]" } });
    expect(structuredOf(result).status).toBe("completed");
    expect(logs.some((l) => l.includes("still working"))).toBe(true);
  });

  test("streams carry headers tunnels do not buffer", async () => {
    const response = await fetch(`${world.daemon.url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${world.token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    await response.text();
  });

  test.each(["legacy", "modern"] as Era[])("a %s call longer than a proxy's idle cut completes thanks to the heartbeats", async (era) => {
    const client = await connectClient(proxy.url, world.token, era);
    try {
      const result = await client.callTool(
        { name: "hermes_ask", arguments: { prompt: `through the proxy ${era} [[delay:3500]]` } },
        { onprogress: () => {} },
      );
      expect(structuredOf(result)).toMatchObject({ status: "completed", answer: `echo: through the proxy ${era}` });
    } finally {
      await client.close();
    }
  });

  test("the proxy really does cut a silent connection (so the test above can fail)", async () => {
    const before = proxy.cuts;
    const silent = await fetch(`${proxy.url}/healthz`, { headers: { Connection: "keep-alive" } });
    expect(silent.ok).toBe(true);
    await silent.text();
    // A request that gets no answer for longer than the idle cut: the gateway's [[hang]] behind a raw socket.
    const hung = startIdleProxy(world.gateway.port, 400);
    const attempt = fetch(`${hung.url}/v1/chat/completions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${world.env.HERMES_API_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: "hermes-agent", stream: true, messages: [{ role: "user", content: "[[hang]]" }] }),
    }).then(
      () => "answered",
      () => "cut",
    );
    expect(await attempt).toBe("cut");
    expect(hung.cuts).toBe(1);
    hung.stop();
    expect(proxy.cuts).toBeGreaterThanOrEqual(before);
  });
});

describe("interruptions", () => {
  test("a sync call past HERMES_REQUEST_TIMEOUT_SECONDS fails with the timeout and the gateway sees the disconnect", async () => {
    const client = await world.client("legacy");
    const before = world.gateway.disconnects;
    const result = await client.callTool(
      { name: "hermes_ask", arguments: { prompt: "never answers [[hang]]" } },
      { onprogress: () => {}, timeout: 20_000 },
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("no answer from Hermes within 4 s");
    await world.gateway.waitForDisconnect(3000, before + 1);
  });

  test.each(["legacy", "modern"] as Era[])("a %s client that cancels a sync call interrupts Hermes and the job records it", async (era) => {
    const client = await world.client(era);
    const marker = `walk away ${era}`;
    const controller = new AbortController();
    const before = world.gateway.disconnects;
    const call = client.callTool({ name: "hermes_ask", arguments: { prompt: `${marker} [[hang]]` } }, { signal: controller.signal });
    await world.gateway.waitFor(() => world.gateway.chats.some((c) => c.prompt?.startsWith(marker)), 3000, "chat to arrive");
    controller.abort("user pressed stop");
    await expect(call).rejects.toThrow();
    await world.gateway.waitForDisconnect(3000, before + 1);
    expect(world.gateway.chats.find((c) => c.prompt?.startsWith(marker))?.outcome).toBe("disconnected");
  });
});
