// A fake `hermes mcp serve`: an SDK stdio MCP server with Hermes's ten messaging tools over in-memory conversations, steered by files in a control directory.
//
// Run as: bun tests/support/fake-hermes-mcp.ts --control DIR
// At start it writes DIR/env.json (its whole environment) and DIR/pid (appends its pid, one a line). While running it
// watches DIR every 50 ms:
//   refuse-start    exists at start: exit 3 at once (a child that never comes up)
//   crash           exists when a tool is called: the file is removed and the process exits mid-call
//   hang            exists when a tool is called: the file is removed, stdin is no longer read, nothing is ever answered again
//   hide            lists tool names (one a line) to withdraw; tools/list_changed is sent when it changes
//   incoming        text of a message arriving on telegram:100 (the file is removed; an event is queued)
// Every tools/call is appended to DIR/calls (tool name and arguments as JSON, one a line).
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const control = process.argv[process.argv.indexOf("--control") + 1] as string;
const at = (name: string): string => join(control, name);

writeFileSync(at("env.json"), JSON.stringify(process.env));
appendFileSync(at("pid"), `${process.pid}\n`);
process.stderr.write(`fake hermes mcp serve starting (pid ${process.pid}) api_key=sk-fakeleak1234567890\n`);
if (existsSync(at("refuse-start"))) process.exit(3);

interface Message {
  id: string;
  from: string;
  text: string;
  attachment?: { mimeType: string; bytes: number };
}
interface Conversation {
  session_key: string;
  platform: string;
  name: string;
  messages: Message[];
}
interface Event {
  cursor: number;
  type: "message";
  session_key: string;
  message: Message;
}

const conversations: Conversation[] = [
  {
    session_key: "telegram:100",
    platform: "telegram",
    name: "Alice",
    messages: [
      { id: "m1", from: "Alice", text: "Are we still on for Friday?" },
      { id: "m2", from: "Alice", text: "here is the photo", attachment: { mimeType: "image/png", bytes: 64 } },
      { id: "m3", from: "Alice", text: "and the huge scan", attachment: { mimeType: "image/png", bytes: 6 * 1024 * 1024 } },
    ],
  },
  { session_key: "discord:#general", platform: "discord", name: "#general", messages: [{ id: "d1", from: "Bob", text: "deploy done" }] },
];
const events: Event[] = [];
let cursor = 0;
const waiters = new Set<() => void>();

function push(sessionKey: string, message: Message): void {
  const conversation = conversations.find((c) => c.session_key === sessionKey);
  conversation?.messages.push(message);
  events.push({ cursor: ++cursor, type: "message", session_key: sessionKey, message });
  for (const wake of waiters) wake();
}

const json = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value) }] });
const fail = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true });

function sabotage(tool: string, args: unknown): void {
  appendFileSync(at("calls"), `${JSON.stringify({ tool, args })}\n`);
  if (existsSync(at("crash"))) {
    rmSync(at("crash"));
    process.exit(1);
  }
  if (existsSync(at("hang"))) {
    rmSync(at("hang"));
    process.stdin.pause();
    process.stdin.removeAllListeners("data");
    // Never answer again (and never exit on our own).
    setInterval(() => {}, 1 << 30);
    throw new HangForever();
  }
}
class HangForever extends Error {}
const never = new Promise<never>(() => {});

const server = new McpServer({ name: "hermes", version: "0.0.0-fake" }, { capabilities: { tools: { listChanged: true } } });

function tool<S extends z.ZodRawShape>(
  name: string,
  description: string,
  shape: S,
  run: (args: z.output<z.ZodObject<S>>) => unknown | Promise<unknown>,
) {
  return server.registerTool(name, { description, inputSchema: z.object(shape) }, async (args: z.output<z.ZodObject<S>>) => {
    try {
      sabotage(name, args);
    } catch (error) {
      if (error instanceof HangForever) return never;
      throw error;
    }
    return (await run(args)) as never;
  });
}

const registered = {
  conversations_list: tool(
    "conversations_list",
    "List active conversations, optionally by platform or name.",
    { platform: z.string().optional(), search: z.string().optional() },
    ({ platform, search }) =>
      json(
        conversations
          .filter((c) => (!platform || c.platform === platform) && (!search || c.name.includes(search)))
          .map(({ session_key, platform, name }) => ({ session_key, platform, name })),
      ),
  ),
  conversation_get: tool("conversation_get", "One conversation by session key.", { session_key: z.string() }, ({ session_key }) => {
    const c = conversations.find((x) => x.session_key === session_key);
    return c
      ? json({ session_key, platform: c.platform, name: c.name, messages: c.messages.length })
      : fail(`no conversation ${session_key}`);
  }),
  messages_read: tool(
    "messages_read",
    "Recent history of a conversation.",
    { session_key: z.string(), limit: z.number().int().optional() },
    ({ session_key, limit }) => {
      const c = conversations.find((x) => x.session_key === session_key);
      return c
        ? json(c.messages.slice(-(limit ?? 50)).map(({ id, from, text }) => ({ id, from, text })))
        : fail(`no conversation ${session_key}`);
    },
  ),
  attachments_fetch: tool(
    "attachments_fetch",
    "Non-text attachments of one message.",
    { session_key: z.string(), message_id: z.string() },
    ({ session_key, message_id }) => {
      const m = conversations.find((x) => x.session_key === session_key)?.messages.find((x) => x.id === message_id);
      if (!m?.attachment) return fail("no attachment");
      return {
        content: [
          { type: "image" as const, mimeType: m.attachment.mimeType, data: Buffer.alloc(m.attachment.bytes, 7).toString("base64") },
        ],
      };
    },
  ),
  channels_list: tool("channels_list", "Messaging targets across all platforms.", { platform: z.string().optional() }, () =>
    json(conversations.map((c) => ({ target: c.session_key, name: c.name }))),
  ),
  events_poll: tool(
    "events_poll",
    "New events since a cursor (non-blocking).",
    { after_cursor: z.number().int().optional() },
    ({ after_cursor }) => json({ events: events.filter((e) => e.cursor > (after_cursor ?? 0)), cursor }),
  ),
  events_wait: tool(
    "events_wait",
    "Block until the next event after a cursor, or until timeout_ms.",
    { after_cursor: z.number().int().optional(), timeout_ms: z.number().int().optional() },
    async ({ after_cursor, timeout_ms }) => {
      const after = after_cursor ?? cursor;
      const ready = (): Event[] => events.filter((e) => e.cursor > after);
      if (ready().length === 0) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            waiters.delete(done);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, timeout_ms ?? 30_000);
          waiters.add(done);
        });
      }
      writeFileSync(at("last-wait-timeout"), String(timeout_ms ?? ""));
      return json({ events: ready(), cursor });
    },
  ),
  messages_send: tool(
    "messages_send",
    "Send a text message through a platform target such as telegram:123456.",
    { target: z.string(), message: z.string() },
    ({ target, message }) => {
      if (target.startsWith("leak:")) {
        return fail(
          "gateway refused: Authorization: Bearer abcdef1234567890XYZ token=tg-secret-123 API_KEY=sk-live0123456789abcdef password=hunter2 session_key=telegram:100",
        );
      }
      if (!conversations.some((c) => c.session_key === target)) return fail(`unknown target ${target}`);
      push(target, { id: `s${cursor + 1}`, from: "Hermes", text: message });
      return json({ sent: true, target });
    },
  ),
  permissions_list_open: tool("permissions_list_open", "Pending approval requests.", {}, () => json([])),
  permissions_respond: tool("permissions_respond", "Allow or deny one approval.", { id: z.string(), allow: z.boolean() }, () =>
    json({ ok: true }),
  ),
};

let hidden = "";
setInterval(() => {
  if (existsSync(at("incoming"))) {
    const text = readFileSync(at("incoming"), "utf8").trim();
    rmSync(at("incoming"));
    push("telegram:100", { id: `in${cursor + 1}`, from: "Alice", text });
  }
  const nowHidden = existsSync(at("hide")) ? readFileSync(at("hide"), "utf8").trim() : "";
  if (nowHidden !== hidden) {
    hidden = nowHidden;
    const names = new Set(hidden.split("\n").filter(Boolean));
    for (const [name, registeredTool] of Object.entries(registered)) {
      if (names.has(name) && registeredTool.enabled) registeredTool.disable();
      else if (!names.has(name) && !registeredTool.enabled) registeredTool.enable();
    }
  }
}, 50).unref();

await server.connect(new StdioServerTransport());
