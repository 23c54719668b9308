// When the gateway is down or the key is wrong, the daemon still serves and says exactly what to fix.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createToken, makeHome, removeHome, startTestDaemon, type TestDaemon } from "../support/daemon.ts";
import { reserveClosedPort, startFakeGateway, type FakeGateway } from "../support/fake-gateway.ts";
import { connectClient, textOf } from "../support/mcp-client.ts";

const homes: string[] = [];
const daemons: TestDaemon[] = [];
let gateway: FakeGateway;
beforeAll(async () => {
  gateway = await startFakeGateway();
});
afterAll(async () => {
  for (const d of daemons) await d.stop();
  await gateway.stop();
  for (const h of homes) removeHome(h);
});

async function askWith(env: Record<string, string>): Promise<{ text: string; daemon: TestDaemon; isError: boolean }> {
  const home = makeHome();
  homes.push(home);
  const token = await createToken(home, "t", env);
  const daemon = await startTestDaemon({ home, env });
  daemons.push(daemon);
  const client = await connectClient(daemon.url, token);
  const result = await client.callTool({ name: "hermes_ask", arguments: { prompt: "hello" } });
  await client.close();
  return { text: textOf(result), daemon, isError: result.isError === true };
}

describe("gateway configuration problems", () => {
  test("gateway down: serve still starts, and the call says where it looked and how to check", async () => {
    const url = `http://127.0.0.1:${reserveClosedPort()}`;
    const { text, isError } = await askWith({ HERMES_API_KEY: "k".repeat(20), HERMES_API_URL: url });
    expect(isError).toBe(true);
    expect(text).toContain(`Hermes gateway unreachable at ${url}`);
    expect(text).toContain("systemctl --user status hermes-gateway");
  });

  test("wrong key: says it does not match API_SERVER_KEY", async () => {
    const { text } = await askWith({ HERMES_API_KEY: "wrong-key-0123456789", HERMES_API_URL: gateway.url });
    expect(text).toContain("HERMES_API_KEY does not match API_SERVER_KEY in ~/.hermes/.env");
  });

  test("no key anywhere: serve starts, warns, and the tool explains how to set it", async () => {
    const { text, daemon } = await askWith({ HERMES_API_URL: gateway.url });
    expect(text).toContain("HERMES_API_KEY is not set");
    expect(daemon.logs()).toContain("HERMES_API_KEY is not set");
  });
});
