// Many callers, one owner: the static client, a registered app and two personal tokens on one daemon never see, stop or wipe each other's work.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { createToken, runCli } from "./support/daemon.ts";
import { connectClient, structuredOf } from "./support/mcp-client.ts";
import { approvedAppTokens, startOAuthWorld, staticTokens, type OAuthWorld } from "./support/oauth-flow.ts";

const APP_CALLBACK = "http://127.0.0.1:33418/callback";
const NEVER_ISSUED = "00000000-0000-4000-8000-000000000000";

let world: OAuthWorld;
const callers: Record<string, Client> = {};

beforeAll(async () => {
  world = await startOAuthWorld({ password: true });
  const tokens: Record<string, string> = {
    static: (await staticTokens(world)).access_token,
    app: (await approvedAppTokens(world.url, { name: "Trust App", redirectUri: APP_CALLBACK })).access_token,
    alice: await createToken(world.home, "alice", world.env),
    bob: await createToken(world.home, "bob", world.env),
  };
  for (const [name, token] of Object.entries(tokens)) callers[name] = await connectClient(world.url, token);
});
afterAll(async () => {
  await Promise.allSettled(Object.values(callers).map((c) => c.close()));
  await world.close();
});

const call = async (who: string, name: string, args: Record<string, unknown> = {}) =>
  structuredOf(await (callers[who] as Client).callTool({ name, arguments: args }));

describe("four principals on one daemon", () => {
  test("nobody reads, long-polls or cancels another's running job; every foreign answer is that of an id never issued", async () => {
    const jobs: Record<string, string> = {};
    for (const who of Object.keys(callers)) {
      jobs[who] = (await call(who, "hermes_ask", { prompt: `${who}'s private task [[hang]]`, async_mode: true })).job_id as string;
    }
    await world.gateway.waitFor(() => world.gateway.chats.filter((c) => c.outcome === "open").length >= 4, 5000, "four open chats");
    const disconnects = world.gateway.disconnects;
    const never = await call("bob", "hermes_check", { job_id: NEVER_ISSUED });
    for (const owner of Object.keys(callers)) {
      for (const other of Object.keys(callers).filter((w) => w !== owner)) {
        const jobId = jobs[owner] as string;
        for (const [tool, extra] of [
          ["hermes_check", {}],
          ["hermes_check", { wait_seconds: 1 }],
          ["hermes_cancel", {}],
        ] as const) {
          const foreign = await call(other, tool, { job_id: jobId, ...extra });
          expect({ ...foreign, job_id: "<id>" }).toEqual({ ...never, job_id: "<id>" });
        }
      }
    }
    // Every job is still running: no foreign cancel reached the gateway.
    expect(world.gateway.disconnects).toBe(disconnects);
    for (const who of Object.keys(callers)) expect((await call(who, "hermes_check", { job_id: jobs[who] })).status).toBe("running");

    // Each reset clears and counts only its caller's jobs.
    for (const who of Object.keys(callers)) {
      expect(await call(who, "hermes_reset")).toEqual({ cleared: 1, by_status: { running: 1 } });
    }
    await world.gateway.waitForDisconnect(5000, disconnects + 4);
  });

  test("the owner at the machine sees every principal's jobs and can cancel any of them", async () => {
    const appJob = (await call("app", "hermes_ask", { prompt: "app's long task [[hang]]", async_mode: true })).job_id as string;
    await call("static", "hermes_ask", { prompt: "static's quick task" });
    const listed = await runCli(["jobs", "list", "--json"], { home: world.home, env: world.env });
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { job_id?: string; id?: string; client?: string; principal?: string }[];
    const ids = rows.map((r) => r.job_id ?? r.id);
    expect(ids).toContain(appJob);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const disconnects = world.gateway.disconnects;
    const cancelled = await runCli(["jobs", "cancel", appJob], { home: world.home, env: world.env });
    expect(cancelled.code).toBe(0);
    await world.gateway.waitForDisconnect(5000, disconnects + 1);
    expect((await call("app", "hermes_check", { job_id: appJob })).status).toBe("cancelled");
  });

  test("the same session label is a separate Hermes conversation for each principal", async () => {
    for (const who of Object.keys(callers)) await call(who, "hermes_ask", { prompt: `${who} says hello`, session_id: "chat" });
    for (const who of Object.keys(callers)) await call(who, "hermes_ask", { prompt: `${who} follows up`, session_id: "chat" });
    const sent = Object.keys(callers).map((who) => world.gateway.chats.find((c) => c.prompt === `${who} follows up`)?.sessionIdSent);
    // Each follow-up threads on its own first turn's gateway session, and no two principals share one.
    expect(sent.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(sent).size).toBe(4);
  });
});
