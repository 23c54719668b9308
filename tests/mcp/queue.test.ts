// Back-pressure: jobs beyond the concurrency limit wait as pending with their place in line; a full line is refused clearly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { structuredOf, textOf } from "../support/mcp-client.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld({ HERMES_MCP_MAX_CONCURRENT_JOBS: "1", HERMES_MCP_MAX_QUEUED_JOBS: "1", HERMES_MCP_SYNC_BUDGET_SECONDS: "1" });
});
afterAll(async () => {
  await world.close();
});

describe("the job queue", () => {
  test("waits in line, shows its position, starts when the slot frees, and refuses when full", async () => {
    const client = await world.client();
    const ask = async (prompt: string) =>
      structuredOf(await client.callTool({ name: "hermes_ask", arguments: { prompt, async_mode: true } })) as { job_id: string };
    const first = await ask("first in line [[delay:700]]");
    const second = await ask("second in line");
    const waiting = structuredOf(await client.callTool({ name: "hermes_check", arguments: { job_id: second.job_id } }));
    expect(waiting).toMatchObject({ status: "pending", queue_position: 1 });
    expect(world.gateway.chats.length).toBe(1);

    const refused = await client.callTool({ name: "hermes_ask", arguments: { prompt: "third", async_mode: true } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("HERMES_MCP_MAX_QUEUED_JOBS");

    const done = structuredOf(await client.callTool({ name: "hermes_check", arguments: { job_id: second.job_id, wait_seconds: 10 } }));
    expect(done).toMatchObject({ status: "completed", result: "echo: second in line" });
    const firstView = structuredOf(await client.callTool({ name: "hermes_check", arguments: { job_id: first.job_id } }));
    expect(firstView.status).toBe("completed");
    expect((done.started_at as number) >= (firstView.finished_at as number)).toBe(true);
  });

  test("a cancelled waiting job never reaches the gateway", async () => {
    const client = await world.client();
    const ask = async (prompt: string) =>
      structuredOf(await client.callTool({ name: "hermes_ask", arguments: { prompt, async_mode: true } })) as { job_id: string };
    const before = world.gateway.chats.length;
    const blocker = await ask("blocker [[delay:500]]");
    const waiting = await ask("never sent");
    const cancelled = structuredOf(await client.callTool({ name: "hermes_cancel", arguments: { job_id: waiting.job_id } }));
    expect(cancelled.status).toBe("cancelled");
    await client.callTool({ name: "hermes_check", arguments: { job_id: blocker.job_id, wait_seconds: 5 } });
    await Bun.sleep(100);
    expect(world.gateway.chats.length).toBe(before + 1);
    expect(world.gateway.chats.some((c) => c.prompt === "never sent")).toBe(false);
  });

  test("a sync call stuck in line turns into a job after its budget, then completes", async () => {
    const client = await world.client();
    await client.callTool({ name: "hermes_ask", arguments: { prompt: "hold the slot [[delay:2500]]", async_mode: true } });
    const result = await client.callTool({ name: "hermes_ask", arguments: { prompt: "behind it" } });
    const out = structuredOf(result);
    expect(out.status).toBe("pending");
    expect(out.note as string).toContain("hermes_check");
    const final = structuredOf(
      await client.callTool({ name: "hermes_check", arguments: { job_id: out.job_id as string, wait_seconds: 10 } }),
    );
    expect(final.status).toBe("completed");
  });
});
