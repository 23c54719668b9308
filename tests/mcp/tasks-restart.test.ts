// A task survives kill -9 of the daemon while its client polls: after the restart it is found, failed with why, and never re-run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestDaemon } from "../support/daemon.ts";
import type { FakeGateway } from "../support/fake-gateway.ts";
import { startGatewayHome, type GatewayHome } from "../support/world.ts";
import { structuredOf, textOf } from "../support/mcp-client.ts";
import { createTask, getTask, listTasks, taskResult, tasksClient } from "../support/tasks-client.ts";

let base: GatewayHome;
let gateway: FakeGateway;
let home: string;
let env: Record<string, string>;
let token: string;
beforeAll(async () => {
  base = await startGatewayHome("task-survivor");
  ({ gateway, home, env, token } = base);
});
afterAll(() => base.close());

test("kill -9 while polling a task: after the restart it is findable, failed with the restart message, and not re-run", async () => {
  const first = await startTestDaemon({ home, env });
  const client = await tasksClient(first.url, token);
  const finished = (await createTask(client, { prompt: "finished before the crash" })).task.taskId;
  expect(structuredOf(await taskResult(client, finished)).answer).toBe("echo: finished before the crash");
  const { task } = await createTask(client, { prompt: "task-victim [[hang]]" }, { ttl: 3_600_000 });
  await gateway.waitFor(() => gateway.chats.some((c) => c.prompt?.startsWith("task-victim") && c.outcome === "open"), 3000, "the chat");
  // Polling, as a task client does, when the daemon dies.
  expect((await getTask(client, task.taskId)).status).toBe("working");
  await first.kill9();
  await expect(getTask(client, task.taskId)).rejects.toThrow();
  await client.close().catch(() => {});

  const second = await startTestDaemon({ home, env, port: first.port });
  const again = await tasksClient(second.url, token);
  try {
    const after = await getTask(again, task.taskId);
    expect(after).toMatchObject({ taskId: task.taskId, status: "failed", ttl: 3_600_000 });
    expect(after.statusMessage).toContain("hermes-mcp restarted while this job was in progress");
    const result = await taskResult(again, task.taskId);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("may have finished");
    expect(structuredOf(await taskResult(again, finished)).answer).toBe("echo: finished before the crash");
    expect((await listTasks(again)).tasks.map((t) => t.taskId)).toEqual(expect.arrayContaining([task.taskId, finished]));
    expect(gateway.chats.filter((c) => c.prompt?.startsWith("task-victim")).length).toBe(1);
  } finally {
    await again.close();
    await second.stop();
  }
});
