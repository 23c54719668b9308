// `bun run build:profile`: records which functions a served session runs (packaging/bytecode-order.txt), so every build lays them out together.
import { chmodSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToken, makeHome, removeHome } from "../tests/support/daemon.ts";
import { FAKE_GATEWAY_KEY, startFakeGateway } from "../tests/support/fake-gateway.ts";
import { MCP_HEADERS, startBinary } from "../bench/servers.ts";

const ROOT = join(import.meta.dir, "..");
const ORDER = join(ROOT, "packaging", "bytecode-order.txt");
const work = mkdtempSync(join(tmpdir(), "hermes-mcp-profile-"));
const recorded = join(work, "bytecode-order.txt");

// The profile is recorded on a binary laid out without one: it names functions, so it applies to later builds too.
const build = Bun.spawnSync([process.execPath, "scripts/release.ts", "--host", "--no-bytecode-order", "--out", work], { cwd: ROOT, stderr: "inherit" });
if (build.exitCode !== 0) process.exit(1);

const gateway = await startFakeGateway();
const gatewayEnv = { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url };
const home = makeHome();
try {
  const token = await createToken(home, "profile", gatewayEnv);
  const daemon = await startBinary(join(work, "hermes-mcp"), home, { ...gatewayEnv, BUN_BYTECODE_ORDER_OUT: recorded });
  const headers = { ...MCP_HEADERS, Authorization: `Bearer ${token}` };
  const post = async (body: unknown, version?: string): Promise<void> => {
    const extra: Record<string, string> = version ? { "mcp-protocol-version": version } : {};
    const response = await fetch(`${daemon.url}/mcp`, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    await response.text();
  };
  // What a client does first: OAuth discovery, then an MCP session of each protocol era, then the tools.
  for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/healthz"]) {
    await (await fetch(`${daemon.url}${path}`)).text();
  }
  await (await fetch(`${daemon.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: "{}" })).text();
  await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "profile", version: "1" } } });
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, "2025-11-25");
  for (let round = 0; round < 3; round++) {
    await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, "2025-11-25");
    await post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "hermes_ask", arguments: { prompt: "profile" } } }, "2025-11-25");
    await post({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "hermes_check", arguments: {} } }, "2025-11-25");
    await post({ jsonrpc: "2.0", id: 5, method: "ping" }, "2025-11-25");
  }
  // Stopped gracefully: the runtime writes the profile as it exits.
  await daemon.stop();
  renameSync(recorded, ORDER);
  chmodSync(ORDER, 0o644);
  process.stderr.write(`wrote ${ORDER}\n`);
} finally {
  await gateway.stop();
  removeHome(home);
  rmSync(work, { recursive: true, force: true });
}
