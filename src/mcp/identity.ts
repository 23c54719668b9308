// What hermes-mcp says of itself to a connecting client: its name and, per protocol era, its capabilities.
import { VERSION } from "../version.ts";

export const SERVER_INFO = { name: "hermes-mcp", title: "Hermes Agent", version: VERSION };

/** MCP tasks (2025-11-25): listed, cancelled, and created by tools/call. */
const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/**
 * The capabilities a server of each era declares. `tools.listChanged` is what the SDK sets itself once a tool is
 * registered; declaring it here lets the fast lane's initialize answer (fast-session.ts) say exactly what the SDK
 * says. MCP tasks exist only in the 2025-era protocol (2026-07-28 removed them from core).
 */
export function serverCapabilities(era: "legacy" | "modern"): Record<string, object> {
  return { logging: {}, tools: { listChanged: true }, ...(era === "legacy" ? { tasks: TASKS_CAPABILITY } : {}) };
}
