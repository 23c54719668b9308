// Test harness: a fake gateway plus a real daemon wired to it, with a token — the usual starting point of an integration test.
import { createToken, makeHome, removeHome, startTestDaemon, type TestDaemon } from "./daemon.ts";
import { FAKE_GATEWAY_KEY, startFakeGateway, type FakeGateway } from "./fake-gateway.ts";
import { connectClient, type Era } from "./mcp-client.ts";

export interface World {
  gateway: FakeGateway;
  daemon: TestDaemon;
  token: string;
  home: string;
  env: Record<string, string>;
  client(era?: Era): ReturnType<typeof connectClient>;
  close(): Promise<void>;
}

/** A fake gateway, a throwaway HOME, the environment that points at the gateway, and a personal token: no daemon yet. */
export interface GatewayHome {
  gateway: FakeGateway;
  home: string;
  env: Record<string, string>;
  token: string;
  close(): Promise<void>;
}

export async function startGatewayHome(tokenName = "tests", env: Record<string, string> = {}): Promise<GatewayHome> {
  const gateway = await startFakeGateway();
  const home = makeHome();
  const fullEnv = { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url, ...env };
  const token = await createToken(home, tokenName, fullEnv);
  return {
    gateway,
    home,
    env: fullEnv,
    token,
    async close() {
      await gateway.stop();
      removeHome(home);
    },
  };
}

export async function startWorld(env: Record<string, string> = {}, options: { logFile?: string } = {}): Promise<World> {
  const base = await startGatewayHome("tests", env);
  const { gateway, home, token } = base;
  const fullEnv = base.env;
  const daemon = await startTestDaemon({ home, env: fullEnv, logFile: options.logFile });
  const clients: Awaited<ReturnType<typeof connectClient>>[] = [];
  return {
    gateway,
    daemon,
    token,
    home,
    env: fullEnv,
    async client(era = "legacy") {
      const client = await connectClient(daemon.url, token, era);
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await daemon.stop();
      await base.close();
    },
  };
}
