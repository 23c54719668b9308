// Test harness: the MCP SDK's real client speaking the 2025-11-25 tasks utility (SDK 2.x carries its wire schemas but no task API; requests are sent with those schemas).
import { Client, specTypeSchemas, StreamableHTTPClientTransport, type Notification } from "@modelcontextprotocol/client";

const S = specTypeSchemas;

export type TasksClient = Client & { notes: Notification[] };

/** A 2025-era client that declares the tasks capability and records every notification it gets. */
export async function tasksClient(baseUrl: string, token: string): Promise<TasksClient> {
  const client = new Client({ name: "hermes-mcp-task-tests", version: "1.0.0" }, { capabilities: { tasks: { list: {}, cancel: {} } } });
  const notes: Notification[] = [];
  client.fallbackNotificationHandler = async (n) => {
    notes.push(n);
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return Object.assign(client, { notes });
}

export const createTask = (client: Client, args: Record<string, unknown>, task: Record<string, unknown> = {}, name = "hermes_ask") =>
  client.request({ method: "tools/call", params: { name, arguments: args, task } }, S.CreateTaskResult);
export const getTask = (client: Client, taskId: string) => client.request({ method: "tasks/get", params: { taskId } }, S.GetTaskResult);
export const taskResult = (client: Client, taskId: string, onprogress?: (p: { message?: string }) => void) =>
  client.request({ method: "tasks/result", params: { taskId } }, S.CallToolResult, { timeout: 30_000, onprogress });
export const listTasks = (client: Client, cursor?: string) =>
  client.request({ method: "tasks/list", params: cursor === undefined ? {} : { cursor } }, S.ListTasksResult);
export const cancelTask = (client: Client, taskId: string) =>
  client.request({ method: "tasks/cancel", params: { taskId } }, S.CancelTaskResult);

/** The JSON-RPC error a request failed with, as {code, message}. */
export async function errorOf(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: number; message: string };
    return { code: e.code ?? 0, message: e.message };
  }
  throw new Error("expected the request to fail");
}
