// One fake gateway for a whole test file: started before its first test, stopped after its last, with the settings that point hermes-mcp at it.
import { afterAll, beforeAll } from "bun:test";
import { FAKE_GATEWAY_KEY, type FakeGateway, startFakeGateway } from "./fake-gateway.ts";

export interface GatewayForFile {
  /** The running gateway (only inside tests and hooks: it starts in beforeAll). */
  readonly gateway: FakeGateway;
  /** HERMES_API_KEY and HERMES_API_URL for it. */
  env(): Record<string, string>;
}

export function fakeGatewayForFile(): GatewayForFile {
  let running: FakeGateway | undefined;
  beforeAll(async () => {
    running = await startFakeGateway();
  });
  afterAll(async () => {
    await running?.stop();
  });
  const gateway = (): FakeGateway => {
    if (!running) throw new Error("the file's fake gateway starts in beforeAll: use it inside a test or hook");
    return running;
  };
  return {
    get gateway() {
      return gateway();
    },
    env: () => ({ HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway().url }),
  };
}
