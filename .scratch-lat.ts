// scratch (not committed): direct vs ours vs fetch proxy vs raw-socket proxy, interleaved.
import { join } from "node:path";
import { FAKE_GATEWAY_KEY, preciseNow, startFakeGateway } from "./tests/support/fake-gateway.ts";
import { createToken, makeHome } from "./tests/support/daemon.ts";
import { MCP_HEADERS, startBinary, startProxyFloor } from "./bench/servers.ts";
import { percentile } from "./bench/stats.ts";
const binary = process.argv[2]!;
const gateway = await startFakeGateway();
const gatewayEnv = { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url };
const home = makeHome();
const token = await createToken(home, "bench", gatewayEnv);
const daemon = await startBinary(binary, home, { ...gatewayEnv, LOG_LEVEL: "INFO", HERMES_MCP_MAX_STORED_JOBS: "100000" }, join(home, "daemon.log"));
const proxy = await startProxyFloor(gateway.url, gateway.apiKey);
const rawProc = Bun.spawn([process.execPath, "/tmp/lat/raw-proxy.ts"], { stdout: "pipe", env: { ...process.env, BENCH_GATEWAY_URL: gateway.url, BENCH_GATEWAY_KEY: gateway.apiKey } });
const rd = rawProc.stdout.getReader(); let t = ""; while (!/LISTENING \d+/.test(t)) t += new TextDecoder().decode((await rd.read()).value);
const rawUrl = `http://127.0.0.1:${/LISTENING (\d+)/.exec(t)![1]}`;
const paths: Record<string, { total: number[]; in: number[]; out: number[] }> = {};
const timed = async (name: string | null, call: () => Promise<string>) => {
  const turns = gateway.chats.length; const sent = preciseNow(); const text = await call(); const done = preciseNow();
  const turn = gateway.chats[turns]!;
  if (name) { const p = (paths[name] ??= { total: [], in: [], out: [] }); p.total.push(done - sent); p.in.push(turn.startedAt - sent); p.out.push(done - turn.endedAt!); }
  return text;
};
const CALLS = Number(process.env.CALLS ?? 1000), WARM = 200;
for (let i = 0; i < CALLS + WARM; i++) {
  const c = i >= WARM; const prompt = `bench ${i}${process.env.DIRECTIVE ?? ""}`;
  await timed(c ? "direct" : null, async () => (await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { Authorization: `Bearer ${gateway.apiKey}`, "Content-Type": "application/json", Accept: "text/event-stream" }, body: JSON.stringify({ model: "hermes-agent", stream: true, messages: [{ role: "user", content: prompt }] }) })).text());
  const ours = await timed(c ? "ours" : null, async () => (await fetch(`${daemon.url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "hermes_ask", arguments: { prompt } } }) })).text());
  await timed(c ? "fetchProxy" : null, async () => (await fetch(`${proxy.url}/`, { method: "POST", body: prompt })).text());
  const raw = await timed(c ? "rawProxy" : null, async () => (await fetch(`${rawUrl}/`, { method: "POST", body: prompt })).text());
  if (!ours.includes('"status":"completed"') || !raw.includes('"chars"')) throw new Error(`bad: ${ours} / ${raw}`);
}
await daemon.stop(); await proxy.stop(); rawProc.kill();
const d = paths.direct!;
for (const [name, p] of Object.entries(paths)) {
  if (name === "direct") { console.log(`direct p50 ${percentile(p.total, 50).toFixed(3)} p99 ${percentile(p.total, 99).toFixed(3)}`); continue; }
  console.log(`${name.padEnd(10)} added p50 ${(percentile(p.total, 50) - percentile(d.total, 50)).toFixed(3)} p99 ${(percentile(p.total, 99) - percentile(d.total, 99)).toFixed(3)} | in ${(percentile(p.in, 50) - percentile(d.in, 50)).toFixed(3)} out ${(percentile(p.out, 50) - percentile(d.out, 50)).toFixed(3)}`);
}
process.exit(0);
