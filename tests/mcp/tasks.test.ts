// Jobs as MCP tasks (2025-11-25): the SDK's real client creates, polls, waits on, lists and cancels tasks over HTTP against a real daemon and the fake gateway.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createToken } from "../support/daemon.ts";
import { connectClient, structuredOf, textOf } from "../support/mcp-client.ts";
import { cancelTask, createTask, errorOf, getTask, listTasks, taskResult, tasksClient, type TasksClient } from "../support/tasks-client.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
let alice: TasksClient;
beforeAll(async () => {
  world = await startWorld({ HERMES_MCP_HEARTBEAT_SECONDS: "1" });
  alice = await tasksClient(world.daemon.url, world.token);
});
afterAll(async () => {
  await alice.close();
  await world.close();
});

const chatOpen = (marker: string) =>
  world.gateway.waitFor(() => world.gateway.chats.some((c) => c.prompt?.includes(marker) && c.outcome === "open"), 3000, marker);

describe("tasks are advertised to 2025-era clients only", () => {
  test("the server declares tasks, and hermes_ask alone has taskSupport optional", async () => {
    expect(alice.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await alice.listTools();
    expect(Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport ?? "forbidden"]))).toMatchObject({
      hermes_ask: "optional",
      hermes_check: "forbidden",
      hermes_cancel: "forbidden",
      hermes_reset: "forbidden",
    });
  });

  test("a 2026-07-28 client sees neither (the revision has no tasks in core)", async () => {
    const modern = await world.client("modern");
    expect(modern.getServerCapabilities()?.tasks).toBeUndefined();
    const { tools } = await modern.listTools();
    expect(tools.find((t) => t.name === "hermes_ask")?.execution).toBeUndefined();
  });

  test("a tool without task support refuses a task-augmented call with -32601, and starts nothing", async () => {
    const before = world.gateway.chats.length;
    const error = await errorOf(createTask(alice, { job_id: "x" }, {}, "hermes_check"));
    expect(error.code).toBe(-32601);
    expect(error.message).toContain("cannot run as a task");
    expect(world.gateway.chats.length).toBe(before);
  });
});

describe("a long hermes_ask as a task", () => {
  test("answers at once with the task, polls as working, blocks on tasks/result with progress, then completes", async () => {
    const created = await createTask(alice, { prompt: "long task [[tools:5]] [[step:400]]", session_id: "trip" }, { ttl: 600_000 });
    const { task } = created;
    expect(task).toMatchObject({ status: "working", ttl: 600_000, pollInterval: 5000 });
    expect(Date.parse(task.createdAt)).not.toBeNaN();
    expect(created._meta?.["io.modelcontextprotocol/model-immediate-response"]).toContain(task.taskId);

    await chatOpen("long task");
    const running = await getTask(alice, task.taskId);
    expect(running).toMatchObject({ taskId: task.taskId, status: "working", ttl: 600_000 });
    expect(running.statusMessage).toMatch(/Hermes is working|waiting for a free Hermes slot/);

    const progress: string[] = [];
    const result = await taskResult(alice, task.taskId, (p) => progress.push(p.message ?? ""));
    expect(structuredOf(result)).toMatchObject({ job_id: task.taskId, status: "completed", session_id: "trip" });
    expect(structuredOf(result).answer).toContain("echo: long task");
    expect(result._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId: task.taskId });
    expect(progress.length).toBeGreaterThan(0);
    // The ending is announced on the tasks/result stream.
    expect(alice.notes.some((n) => n.method === "notifications/tasks/status" && n.params?.taskId === task.taskId)).toBe(true);

    const done = await getTask(alice, task.taskId);
    expect(done.status).toBe("completed");
    expect(done.pollInterval).toBeUndefined();
    expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    // The result can be fetched again, and the task is an ordinary job for hermes_check.
    expect(structuredOf(await taskResult(alice, task.taskId)).answer).toBe(structuredOf(result).answer);
    const checked = structuredOf(await alice.callTool({ name: "hermes_check", arguments: { job_id: task.taskId } }));
    expect(checked).toMatchObject({ job_id: task.taskId, status: "completed", result: structuredOf(result).answer });
    const listed = await listTasks(alice);
    expect(listed.tasks.find((t) => t.taskId === task.taskId)?.status).toBe("completed");
  });

  test("a failing task reads failed with the job's error, and tasks/result is the error hermes_ask would give", async () => {
    const { task } = await createTask(alice, { prompt: "doomed [[status:400]]" });
    const result = await taskResult(alice, task.taskId);
    expect(result.isError).toBe(true);
    const failed = await getTask(alice, task.taskId);
    expect(failed.status).toBe("failed");
    expect(textOf(result)).toContain(failed.statusMessage as string);
  });

  test("ttl: a tiny one is raised to a minute, a huge one is cut to the retention", async () => {
    const short = await createTask(alice, { prompt: "short ttl" }, { ttl: 5 });
    const long = await createTask(alice, { prompt: "long ttl" }, { ttl: 10 * 365 * 24 * 3_600_000 });
    expect(short.task.ttl).toBe(60_000);
    expect(long.task.ttl).toBe(24 * 3_600_000);
    await taskResult(alice, short.task.taskId);
    await taskResult(alice, long.task.taskId);
  });

  test("an unknown cursor is -32602", async () => {
    expect((await errorOf(listTasks(alice, "bm9wZQ"))).code).toBe(-32602);
  });
});

describe("cancelling a task", () => {
  test("tasks/cancel closes the gateway stream and the task stays cancelled", async () => {
    const { task } = await createTask(alice, { prompt: "cancel-me [[hang]]" });
    await chatOpen("cancel-me");
    const before = world.gateway.disconnects;
    const cancelled = await cancelTask(alice, task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    expect(cancelled.statusMessage).toContain("cancelled by tasks/cancel");
    await world.gateway.waitForDisconnect(3000, before + 1);
    expect((await getTask(alice, task.taskId)).status).toBe("cancelled");
    const result = await taskResult(alice, task.taskId);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("cancelled by tasks/cancel");
    // A task already in a terminal status cannot be cancelled (-32602).
    const again = await errorOf(cancelTask(alice, task.taskId));
    expect(again.code).toBe(-32602);
    expect(again.message).toContain("already ended");
  });
});

describe("a second principal", () => {
  test("cannot get, wait on, list or cancel the first one's tasks: they read as never issued", async () => {
    const bob = await tasksClient(world.daemon.url, await createToken(world.home, "bob-tasks", world.env));
    try {
      const { task } = await createTask(alice, { prompt: "alice's private task [[hang]]" });
      await chatOpen("alice's private task");
      const never = "00000000-0000-4000-8000-000000000000";
      for (const ask of [getTask, taskResult, cancelTask] as const) {
        const foreign = await errorOf(ask(bob, task.taskId));
        const unknown = await errorOf(ask(bob, never));
        expect(foreign).toEqual(unknown);
        expect(foreign.code).toBe(-32602);
      }
      expect((await listTasks(bob)).tasks.map((t) => t.taskId)).not.toContain(task.taskId);
      expect((await listTasks(alice)).tasks.map((t) => t.taskId)).toContain(task.taskId);
      // Bob's attempts changed nothing: Alice's task still runs, and she can still cancel it.
      expect((await getTask(alice, task.taskId)).status).toBe("working");
      expect((await cancelTask(alice, task.taskId)).status).toBe("cancelled");
    } finally {
      await bob.close();
    }
  });
});

describe("a 2025-era client that knows nothing of tasks", () => {
  test("still gets sync answers and async jobs through the tools", async () => {
    const plain = await connectClient(world.daemon.url, world.token);
    try {
      const sync = structuredOf(await plain.callTool({ name: "hermes_ask", arguments: { prompt: "plain sync" } }));
      expect(sync).toMatchObject({ status: "completed", answer: "echo: plain sync" });
      const job = structuredOf(await plain.callTool({ name: "hermes_ask", arguments: { prompt: "plain async", async_mode: true } }));
      const checked = structuredOf(await plain.callTool({ name: "hermes_check", arguments: { job_id: job.job_id, wait_seconds: 5 } }));
      expect(checked).toMatchObject({ status: "completed", result: "echo: plain async" });
      // Its job is a task for a tasks-capable client of the same principal.
      expect((await getTask(alice, job.job_id as string)).status).toBe("completed");
    } finally {
      await plain.close();
    }
  });
});
