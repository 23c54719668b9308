// The official MCP conformance suite's generic server scenarios, run against the real daemon.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Server } from "bun";
import { startWorld, type World } from "../support/world.ts";

const SUITE = join(import.meta.dir, "..", "..", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

let world: World;
let gate: Server<undefined>;
beforeAll(async () => {
  world = await startWorld();
  // The suite has no way to send a bearer token; this loopback hop adds ours and changes nothing else (Host and Origin
  // pass through untouched, so the DNS-rebinding scenario still meets our guards).
  gate = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      if (!headers.has("authorization")) headers.set("authorization", `Bearer ${world.token}`);
      return fetch(`${world.daemon.url}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.body,
        redirect: "manual",
      });
    },
  });
});
afterAll(async () => {
  gate.stop(true);
  await world.close();
});

describe("MCP conformance suite (server scenarios)", () => {
  test.each(["server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection"])("%s", async (scenario) => {
    const proc = Bun.spawn([process.execPath, SUITE, "server", "--url", `http://localhost:${gate.port}/mcp`, "--scenario", scenario], {
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out);
    expect(summary, `${out}\n${err}`).not.toBeNull();
    expect(summary?.[3]).toBe("0");
    expect(summary?.[1]).toBe(summary?.[2] as string);
    expect(code).toBe(0);
  });
});
