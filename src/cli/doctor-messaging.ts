// doctor's messaging check: whether it is on, where `hermes` is, whether `hermes mcp serve` starts, and which tools it offers.
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import { silentLogger } from "../log.ts";
import { resolveHermesCommand } from "../messaging/command.ts";
import { childEnvironment } from "../messaging/environment.ts";
import { MessagingService } from "../messaging/service.ts";
import type { Check } from "./doctor-checks.ts";

/** One attempt, no restarts: doctor reports the first failure instead of waiting through a backoff. */
const ONE_TRY = { baseMs: 60_000, maxMs: 60_000, maxFailures: 1 };

export async function messagingChecks(
  config: Config,
  env: Record<string, string | undefined> = process.env,
  log: Logger = silentLogger,
): Promise<Check[]> {
  const { messaging } = config;
  if (messaging.mode === "off") {
    return [{ ok: true, title: "messaging off", detail: "set HERMES_MCP_MESSAGING=read or send to offer Hermes's messaging tools" }];
  }
  const checks: Check[] = [
    {
      ok: true,
      title: `messaging on (${messaging.mode})`,
      detail:
        messaging.mode === "send"
          ? "approved clients may read your chats and send as your Hermes bot"
          : "approved clients may read your chats",
    },
  ];
  const command = resolveHermesCommand(messaging.command, { ...env, ...childEnvironment(env, messaging.env) });
  if (!command.ok) {
    checks.push({
      ok: false,
      title: "hermes command found",
      detail: command.problem,
      fix: command.fix,
    });
    return checks;
  }
  checks.push({ ok: true, title: "hermes command found", detail: [command.command, ...command.args].join(" ") });
  const service = new MessagingService({
    config: { ...messaging, timeoutMs: Math.min(messaging.timeoutMs, 30_000) },
    log,
    version: config.version,
    parentEnv: env,
    backoff: ONE_TRY,
  });
  try {
    const { childTools, offered } = await service.probe();
    checks.push({ ok: true, title: "hermes mcp serve starts", detail: `${childTools.length} tool(s): ${childTools.join(", ")}` });
    checks.push(
      offered.length > 0
        ? { ok: true, title: "messaging tools offered", detail: offered.join(", ") }
        : {
            ok: false,
            title: "messaging tools offered",
            detail: "none: Hermes offers none of the messaging tools, or HERMES_MCP_MESSAGING_TOOLS filters them all out",
            fix: "update Hermes Agent, or loosen HERMES_MCP_MESSAGING_TOOLS",
          },
    );
  } catch (error) {
    checks.push({
      ok: false,
      title: "hermes mcp serve starts",
      detail: (error as Error).message,
      fix: `run \`${[command.command, ...command.args].join(" ")}\` yourself to see why it fails (it needs Hermes's session store in ~/.hermes), or fix HERMES_MCP_HERMES_COMMAND`,
    });
  } finally {
    await service.close();
  }
  if (config.staticClient && messaging.staticClient !== "off") {
    checks.push({
      ok: true,
      warn: true,
      title: `the static client gets messaging (${messaging.staticClient})`,
      detail: "OAUTH_STATIC_CLIENT_MESSAGING",
    });
  }
  return checks;
}
