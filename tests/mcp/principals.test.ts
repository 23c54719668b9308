// Callers are isolated from each other: two personal access tokens against the real daemon, with the SDK's real client, in both protocol eras.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { createToken, runCli } from "../support/daemon.ts";
import { connectClient, structuredOf, textOf, type Era } from "../support/mcp-client.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
let bobToken: string;
beforeAll(async () => {
  world = await startWorld({ HERMES_MCP_SYNC_BUDGET_SECONDS: "2" });
  bobToken = await createToken(world.home, "bob", world.env);
});
afterAll(async () => {
  await world.close();
});

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
const askAsync = async (client: Client, prompt: string, session_id?: string) =>
  (
    structuredOf(await call(client, "hermes_ask", { prompt, async_mode: true, ...(session_id ? { session_id } : {}) })) as {
      job_id: string;
    }
  ).job_id;

/** The answer for `result` with the job id replaced, to compare with the answer for an id that never existed. */
const withoutId = (result: unknown, id: string): unknown => {
  const text = textOf(result).replaceAll(id, "<id>");
  const structured = { ...structuredOf(result), job_id: "<id>" };
  return { text, structured, isError: (result as { isError?: boolean }).isError ?? false };
};

describe.each(["legacy", "modern"] as Era[])("two tokens over the %s protocol", (era) => {
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    alice = await world.client(era);
    bob = await connectClient(world.daemon.url, bobToken, era);
  });
  afterAll(async () => {
    await bob.close();
  });

  test("B cannot check, long-poll or cancel A's job: the answers are those of an id that never existed", async () => {
    const jobId = await askAsync(alice, `alice's secret work ${era} [[hang]]`);
    await world.gateway.waitFor(
      () => world.gateway.chats.some((c) => c.prompt?.includes(`alice's secret work ${era}`) && c.outcome === "open"),
      3000,
      "alice's chat",
    );
    const never = "00000000-0000-4000-8000-000000000000";
    for (const [name, args] of [
      ["hermes_check", {}],
      ["hermes_check", { wait_seconds: 2 }],
      ["hermes_cancel", {}],
    ] as const) {
      const foreign = await call(bob, name, { job_id: jobId, ...args });
      const unknown = await call(bob, name, { job_id: never, ...args });
      expect(withoutId(foreign, jobId)).toEqual(withoutId(unknown, never));
      expect(structuredOf(foreign).status).toBe("unknown");
    }
    const disconnects = world.gateway.disconnects;
    expect(structuredOf(await call(alice, "hermes_check", { job_id: jobId }))).toMatchObject({
      status: "running",
      prompt_chars: expect.any(Number),
    });
    expect(world.gateway.chats.find((c) => c.prompt?.includes(`alice's secret work ${era}`))?.outcome).toBe("open");
    expect(structuredOf(await call(alice, "hermes_cancel", { job_id: jobId })).status).toBe("cancelled");
    await world.gateway.waitForDisconnect(3000, disconnects + 1);
  });

  test("B's reset clears and counts only B's jobs; A's running job keeps running and A's answers stay", async () => {
    await call(alice, "hermes_reset", {});
    await call(bob, "hermes_reset", {});
    const done = structuredOf(await call(alice, "hermes_ask", { prompt: `alice done ${era}` })) as { job_id: string };
    const running = await askAsync(alice, `alice running ${era} [[hang]]`);
    await call(bob, "hermes_ask", { prompt: `bob done ${era}` });
    await world.gateway.waitFor(
      () => world.gateway.chats.some((c) => c.prompt?.includes(`alice running ${era}`) && c.outcome === "open"),
      3000,
      "alice's chat",
    );
    const disconnects = world.gateway.disconnects;
    expect(structuredOf(await call(bob, "hermes_reset", {}))).toEqual({ cleared: 1, by_status: { completed: 1 } });
    expect(structuredOf(await call(alice, "hermes_check", { job_id: running })).status).toBe("running");
    expect(structuredOf(await call(alice, "hermes_check", { job_id: done.job_id }))).toMatchObject({
      status: "completed",
      result: `echo: alice done ${era}`,
    });
    expect(world.gateway.disconnects).toBe(disconnects);
    expect(world.gateway.chats.find((c) => c.prompt?.includes(`alice running ${era}`))?.outcome).toBe("open");
    expect(structuredOf(await call(alice, "hermes_reset", {}))).toEqual({ cleared: 2, by_status: { completed: 1, running: 1 } });
    await world.gateway.waitForDisconnect(3000, disconnects + 1);
  });

  test("the same session label is a different conversation for each token", async () => {
    const label = `shared-label-${era}`;
    await call(alice, "hermes_ask", { prompt: `alice first ${era}`, session_id: label });
    await call(bob, "hermes_ask", { prompt: `bob first ${era}`, session_id: label });
    expect(world.gateway.chats.at(-1)?.sessionIdSent).toBeNull();
  });
});

describe("a re-created token is a new identity", () => {
  test("revoking dave and creating dave again: no old conversation, no old jobs", async () => {
    const oldToken = await createToken(world.home, "dave", world.env);
    const oldDave = await connectClient(world.daemon.url, oldToken);
    await call(oldDave, "hermes_ask", { prompt: "dave plans a trip", session_id: "trip" });
    const first = world.gateway.chats.at(-1);
    await call(oldDave, "hermes_ask", { prompt: "dave continues", session_id: "trip" });
    expect(world.gateway.chats.at(-1)?.sessionIdSent).toBe(first?.sessionIdReturned as string);
    const oldJob = await askAsync(oldDave, "dave's old job");
    await oldDave.close();

    expect((await runCli(["token", "revoke", "dave"], { home: world.home, env: world.env })).code).toBe(0);
    const newDave = await connectClient(world.daemon.url, await createToken(world.home, "dave", world.env));
    try {
      await call(newDave, "hermes_ask", { prompt: "new dave, same label", session_id: "trip" });
      const chat = world.gateway.chats.at(-1);
      expect(chat?.prompt).toBe("new dave, same label");
      expect(chat?.sessionIdSent).toBeNull();
      expect(structuredOf(await call(newDave, "hermes_check", { job_id: oldJob })).status).toBe("unknown");
      expect(structuredOf(await call(newDave, "hermes_reset", {}))).toEqual({ cleared: 1, by_status: { completed: 1 } });
    } finally {
      await newDave.close();
    }
  });
});

describe("the stored-jobs cap is per client", () => {
  test("B filling its share does not refuse A", async () => {
    const small = await startWorld({ HERMES_MCP_MAX_STORED_JOBS: "10" });
    try {
      const bob = await connectClient(small.daemon.url, await createToken(small.home, "bob", small.env));
      const alice = await small.client();
      for (let i = 0; i < 10; i++) await askAsync(bob, `bob fills ${i}`);
      const refused = await call(bob, "hermes_ask", { prompt: "one too many", async_mode: true });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain("hermes_reset");
      const accepted = await call(alice, "hermes_ask", { prompt: "alice still welcome" });
      expect(structuredOf(accepted)).toMatchObject({ status: "completed", answer: "echo: alice still welcome" });
      await bob.close();
    } finally {
      await small.close();
    }
  });
});
