// A gateway behind https with a private CA: an untrusted certificate is named as such (not "nothing answers"), and
// NODE_EXTRA_CA_CERTS written in the env file reaches doctor and serve, as systemd's EnvironmentFile= once carried it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { untrustedGatewayFix } from "../../src/gateway/errors.ts";
import { askOverHttp } from "../support/mcp-client.ts";
import { createToken, freePort, runCli, startTestDaemon, tempHomes } from "../support/daemon.ts";
import { FAKE_GATEWAY_CERT, FAKE_GATEWAY_KEY, startFakeGateway, type FakeGateway } from "../support/fake-gateway.ts";
import { until } from "../support/until.ts";

let gateway: FakeGateway;
const home = tempHomes();
beforeAll(async () => {
  gateway = await startFakeGateway({ tls: true });
});
afterAll(async () => {
  await gateway.stop();
});

const settings = (): Record<string, string> => ({ HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url });

function envFile(h: string, text: string): void {
  mkdirSync(join(h, ".config", "hermes-mcp"), { recursive: true });
  writeFileSync(join(h, ".config", "hermes-mcp", "env"), text, { mode: 0o600 });
}

test("doctor: an untrusted certificate is named with both ways out; its CA in the env file makes the gateway check pass", async () => {
  const h = home();
  const untrusted = await runCli(["doctor"], { home: h, env: { ...settings(), BIND_PORT: String(freePort()) } });
  expect(untrusted.code).toBe(1);
  expect(untrusted.stdout).toContain(
    `✖ Hermes gateway reachable at ${gateway.url} — its TLS certificate is not trusted here (DEPTH_ZERO_SELF_SIGNED_CERT)`,
  );
  expect(untrusted.stdout).toContain("set HERMES_API_URL to the gateway's plain http address");
  expect(untrusted.stdout).toContain("NODE_EXTRA_CA_CERTS=/path/to/its-ca.pem in the env file");
  expect(untrusted.stdout).not.toContain("nothing answers there");
  envFile(h, `NODE_EXTRA_CA_CERTS=${FAKE_GATEWAY_CERT}\n`);
  const trusted = await runCli(["doctor"], { home: h, env: { ...settings(), BIND_PORT: String(freePort()) } });
  expect(trusted.stdout).toContain(`✔ Hermes gateway reachable at ${gateway.url} — version`);
  expect(trusted.stdout).toContain("✔ gateway accepts HERMES_API_KEY");
});

test("serve: a call through an untrusted gateway fails saying why; with the CA in the env file it completes", async () => {
  const h = home();
  const token = await createToken(h, "tls", settings());
  const untrusted = await startTestDaemon({ home: h, env: settings() });
  try {
    const text = (await askOverHttp(untrusted.url, token)).text;
    expect(text).toContain("has a TLS certificate this machine does not trust (DEPTH_ZERO_SELF_SIGNED_CERT)");
    // The start-up check's line: written on its own time, not before this answer.
    await until("the start-up check's line", () => untrusted.logs().includes("its TLS certificate is not trusted here"), 5000);
    expect(untrusted.logs()).toContain("its TLS certificate is not trusted here");
  } finally {
    await untrusted.stop();
  }
  envFile(h, `NODE_EXTRA_CA_CERTS=${FAKE_GATEWAY_CERT}\n`);
  const trusted = await startTestDaemon({ home: h, env: settings() });
  try {
    expect((await askOverHttp(trusted.url, token)).text).toContain('\\"status\\":\\"completed\\"');
  } finally {
    await trusted.stop();
  }
});

test("on Windows the fix sets the CA in the user's environment, since the env file cannot set it there", () => {
  expect(untrustedGatewayFix("win32")).toContain("setx NODE_EXTRA_CA_CERTS C:\\path\\to\\its-ca.pem");
  expect(untrustedGatewayFix("win32")).not.toContain("in the env file");
  for (const platform of ["linux", "darwin"] as const)
    expect(untrustedGatewayFix(platform)).toEndWith("or put NODE_EXTRA_CA_CERTS=/path/to/its-ca.pem in the env file");
});
