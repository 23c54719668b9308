// The MCP SDK loads on first use: a fresh daemon and a whole 2025-era session never evaluate it; the first request that needs it still works.
import { expect, test } from "bun:test";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { join } from "node:path";
import { LEGACY_PROTOCOL_VERSIONS } from "../../src/mcp/fast-lane.ts";

test("the fast lane's pinned 2025-era revisions are the SDK's own", () => {
  expect(LEGACY_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < "2026"));
});

test("start-up modules and a 2025-era session (initialize, initialized, GET, calls) load no MCP SDK; the first request only it answers loads it", () => {
  // A process of its own: this test runner has long since loaded the SDK.
  const probe = Bun.spawnSync([process.execPath, join(import.meta.dir, "..", "support", "sdk-probe.ts")], { stderr: "pipe" });
  expect(probe.stderr.toString()).toBe("");
  const steps = JSON.parse(probe.stdout.toString());
  expect(steps.afterImport).toEqual([]);
  // Nor consola: the CLI's message helper loads with the first message, which serve never prints through.
  expect(steps.consolaAfterImport).toEqual([]);
  expect(steps.sessionAnswers).toEqual(["hermes-mcp", 202, 405, {}, -32601]);
  expect(steps.fastAnswers).toEqual([[], ["tools"], ["content", "structuredContent"]]);
  expect(steps.afterFastLane).toEqual([]);
  expect(steps.sdkAnswer).toContain("tasks");
  expect(steps.afterSdkRequest.some((path: string) => path.includes("@modelcontextprotocol/server/"))).toBe(true);
  // The client SDK (messaging's child) is not loaded by serving MCP at all.
  expect(steps.afterSdkRequest.some((path: string) => path.includes("@modelcontextprotocol/client/"))).toBe(false);
});
