// The answer to a request that failed unexpectedly: 503 while the database refuses writes (a full disk), else 500; the owner hears why in the log.
import type { Logger } from "../log.ts";
import { publicStorageMessage, type StorageAlarm } from "../store/storage-failure.ts";

/** How soon a client may try again while the database refuses writes: the owner has to act, so not at once. */
const STORAGE_RETRY_AFTER_SECONDS = 30;

export function failureResponse(error: unknown, path: string, alarm: StorageAlarm, log: Logger): Response {
  const storage = alarm.report(error, `answer a request to ${path}`);
  if (storage) {
    // A condition that passes (RFC 9110 §15.6.4): a client that honours Retry-After does not hammer a full disk.
    return Response.json(
      { error: "temporarily_unavailable", error_description: publicStorageMessage(storage) },
      { status: 503, headers: { "retry-after": String(STORAGE_RETRY_AFTER_SECONDS) } },
    );
  }
  log.error("request failed", { path, error: (error as Error).message });
  return Response.json({ error: "server_error", error_description: "internal error; see the hermes-mcp log" }, { status: 500 });
}
