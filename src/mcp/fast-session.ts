// A 2025-era session's own messages answered without the SDK: initialize, logging/setLevel, methods it lacks, its notifications, and the 405 for any method but POST.
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import { cancelCall } from "./cancellations.ts";
import type { ToolDeps } from "./deps.ts";
import { SERVER_INSTRUCTIONS } from "./descriptions.ts";
import { isLegacyProtocolVersion, sseError, sseResult, UNIMPLEMENTED_METHODS, type FastCall, type FastNotification } from "./fast-lane.ts";
import { SERVER_INFO, serverCapabilities } from "./identity.ts";
import { isPlainObject } from "../web/plain-object.ts";

/** Deeper than any real capability object; anything deeper is the SDK's to judge (its schemas recurse without a bound). */
const MAX_JSON_DEPTH = 32;

/** A JSON value as the SDK's JSONValueSchema accepts it: after JSON.parse that leaves out only non-finite numbers (1e400). */
function isJsonValue(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (depth >= MAX_JSON_DEPTH || typeof value !== "object") return false;
  const items = Array.isArray(value) ? value : Object.values(value);
  return items.every((item) => isJsonValue(item, depth + 1));
}

const isJsonObject = (value: unknown): value is Record<string, unknown> => isPlainObject(value) && isJsonValue(value, 0);
const JsonObject = z.custom<Record<string, unknown>>(isJsonObject);

/**
 * The initialize params the fast lane answers: a strict subset of the SDK's InitializeRequestParamsSchema (unknown keys
 * are dropped by both, as zod objects do). Whatever this refuses — a malformed field, `icons`, the deprecated `tasks`
 * capability, `_meta`, an unknown or 2026 protocol version — goes to the SDK, which words the error or negotiates.
 */
// Threat: an answer the SDK would refuse (the SDK is the authority on protocol errors); tests/mcp/fast-session.test.ts.
const FastInitializeParams = builtOnFirstUse(() =>
  z.object({
    protocolVersion: z.string().refine(isLegacyProtocolVersion),
    capabilities: z.object({
      experimental: z.record(z.string(), JsonObject).optional(),
      sampling: z.object({ context: JsonObject.optional(), tools: JsonObject.optional() }).optional(),
      elicitation: JsonObject.and(
        z.object({ form: JsonObject.and(z.object({ applyDefaults: z.boolean().optional() })).optional(), url: JsonObject.optional() }),
      ).optional(),
      roots: z.object({ listChanged: z.boolean().optional() }).optional(),
      extensions: z.record(z.string(), JsonObject).optional(),
      tasks: z.never().optional(),
    }),
    clientInfo: z.object({
      name: z.string(),
      title: z.string().optional(),
      version: z.string(),
      websiteUrl: z.string().optional(),
      description: z.string().optional(),
      icons: z.never().optional(),
    }),
    _meta: z.never().optional(),
  }),
);

/**
 * The SDK's stateless answer to a 2025-era initialize (the version asked for, which is one it supports; this server's
 * identity, capabilities and instructions), or null to leave the request to the SDK. A real client's session then never
 * loads the SDK: initialize, notifications/initialized, the refused GET, then fast-lane calls.
 */
export function fastInitialize(call: FastCall): Response | null {
  const params = FastInitializeParams.safeParse(call.params);
  if (!params.success) return null;
  return sseResult(call.id, {
    protocolVersion: params.data.protocolVersion,
    capabilities: serverCapabilities("legacy"),
    serverInfo: SERVER_INFO,
    instructions: SERVER_INSTRUCTIONS,
  });
}

/** MCP server/utilities/logging: the levels the SDK's LoggingLevelSchema takes. */
const SetLevelParams = builtOnFirstUse(() =>
  z.object({
    level: z.enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]),
    _meta: z.never().optional(),
  }),
);
const UNIMPLEMENTED = new Set<string>(UNIMPLEMENTED_METHODS);

/**
 * A session request answered as the SDK answers it, or null (the SDK's, or not a session request): initialize;
 * logging/setLevel, `{}` (each stateless request has its own server, so the SDK keeps no level either); -32601 for a
 * method this server does not have (inspectors and some clients list resources and prompts whatever the
 * capabilities say).
 */
export function fastSessionCall(call: FastCall): Response | null {
  if (call.method === "initialize") return fastInitialize(call);
  if (call.method === "logging/setLevel") return SetLevelParams.safeParse(call.params).success ? sseResult(call.id, {}) : null;
  return UNIMPLEMENTED.has(call.method) ? sseError(call.id, -32601, "Method not found") : null;
}

const CancelledParams = builtOnFirstUse(() =>
  z.object({
    requestId: z.union([z.string(), z.number().int()]).optional(),
    reason: z.string().optional(),
  }),
);

/**
 * 202, as the SDK answers every notification: for notifications/initialized and roots/list_changed at once, for a
 * well-formed notifications/cancelled once it has stopped the caller's call it names; null (the SDK's) for a cancel
 * whose params the SDK would refuse.
 */
export function fastNotification(deps: ToolDeps, notification: FastNotification, principal: string): Response | null {
  if (notification.method === "notifications/cancelled") {
    const params = CancelledParams.safeParse(notification.params);
    if (!params.success) return null;
    // Threat: a cancel naming another caller's request id. cancelCall matches the caller's own calls only.
    if (params.data.requestId !== undefined) cancelCall(deps, principal, params.data.requestId);
  }
  return new Response(null, { status: 202 });
}

const METHOD_NOT_ALLOWED = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null });

/**
 * What the SDK's stateless transport answers to every method but POST, whatever the headers: there is no stream to
 * GET (the server never sends unprompted) and no session to DELETE (MCP basic/transports, Streamable HTTP).
 */
export function methodNotAllowed(): Response {
  return new Response(METHOD_NOT_ALLOWED, {
    status: 405,
    headers: { Allow: "POST", "Content-Type": "application/json;charset=utf-8" },
  });
}
