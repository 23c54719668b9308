// The MCP SDK loads on first use: a fresh daemon and 2025-era fast-lane calls never evaluate it; the first request that needs it still works.
import { expect, test } from "bun:test";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { join } from "node:path";
import { LEGACY_PROTOCOL_VERSIONS } from "../../src/mcp/fast-lane.ts";

test("the fast lane's pinned 2025-era revisions are the SDK's own", () => {
  expect(LEGACY_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < "2026"));
});

test("start-up modules, ping, tools/list and a tool call load no MCP SDK; the first initialize loads it and is answered", () => {
  // A process of its own: this test runner has long since loaded the SDK.
  const probe = Bun.spawnSync([process.execPath, join(import.meta.dir, "..", "support", "sdk-probe.ts")], { stderr: "pipe" });
  expect(probe.stderr.toString()).toBe("");
  const steps = JSON.parse(probe.stdout.toString());
  expect(steps.afterImport).toEqual([]);
  // Nor consola: the CLI's message helper loads with the first message, which serve never prints through.
  expect(steps.consolaAfterImport).toEqual([]);
  expect(steps.fastAnswers).toEqual([[], ["tools"], ["content", "structuredContent"]]);
  expect(steps.afterFastLane).toEqual([]);
  expect(steps.initializedAs).toBe("hermes-mcp");
  expect(steps.afterInitialize.some((path: string) => path.includes("@modelcontextprotocol/server/"))).toBe(true);
  // The client SDK (messaging's child) is not loaded by serving MCP at all.
  expect(steps.afterInitialize.some((path: string) => path.includes("@modelcontextprotocol/client/"))).toBe(false);
});
