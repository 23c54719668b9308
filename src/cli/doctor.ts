// `hermes-mcp doctor`: one screen that explains every misconfiguration, one ✔/⚠/✖ line per check; exit 1 on any ✖.
import { defineCommand } from "citty";
import { ConfigError, loadConfig, missingApiKeyWarning, withBoundPort } from "../config/load.ts";
import { runningDaemon } from "../store/daemon-lock.ts";
import { guarded } from "./common.ts";
import { messagingChecks } from "./doctor-messaging.ts";
import { type Check, databaseChecks, diskRoomCheck, dynamicClientsCheck, issuerChecks, portCheck } from "./doctor-checks.ts";
import { gatewayChecks } from "./gateway-checks.ts";
import { checksAsJson } from "./doctor-json.ts";
import { runningCodeChecks, settingsSinceStartChecks } from "./doctor-running.ts";
import { tunnelChecks } from "./doctor-tunnel.ts";
import { writeStdout } from "./output.ts";
import { styleFor } from "./style.ts";

const style = styleFor(process.stdout);

function print(check: Check): void {
  const mark = !check.ok ? style.red("✖") : check.warn ? style.yellow("⚠") : style.green("✔");
  const lines = [`${mark} ${check.title}${check.detail ? ` — ${check.detail}` : ""}`];
  if (check.fix && (!check.ok || check.warn)) lines.push(`    fix: ${check.fix}`);
  writeStdout(`${lines.join("\n")}\n`);
}

export default defineCommand({
  meta: { name: "doctor", description: "Check configuration, gateway, key, model, database, port, issuer, messaging and the public URL" },
  args: { json: { type: "boolean", description: "One JSON object for scripts: {ok, checks: [{status, title, detail, fix}]}" } },
  run: ({ args }) =>
    guarded(async () => {
      let loaded;
      try {
        loaded = loadConfig();
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        const problems: Check[] = error.problems.map((problem) => ({ ok: false, title: "configuration", detail: problem }));
        if (args.json) writeStdout(checksAsJson(problems));
        else for (const problem of problems) print(problem);
        process.exit(1);
      }
      const running = runningDaemon(loaded.config.dbPath);
      // BIND_PORT=0: the daemon that runs knows the port it picked; the issuer follows it.
      const config =
        running !== null && running !== "unknown" && running.port !== null ? withBoundPort(loaded.config, running.port) : loaded.config;
      // Start-up notes only say where a value came from, which the checks below say again; the missing key is a ✖ check of its own.
      const warnings = loaded.warnings.filter((w) => w !== missingApiKeyWarning(config.paths.hermesEnvFile));
      const checks: Check[] = [{ ok: true, title: "configuration valid" }];
      for (const warning of warnings) checks.push({ ok: true, warn: true, title: warning });
      checks.push(
        ...(await gatewayChecks(config)),
        ...databaseChecks(config),
        ...diskRoomCheck(config),
        ...dynamicClientsCheck(config),
        await portCheck(config, running, loaded.config.bind),
        ...(await runningCodeChecks(running)),
        // Hermes rewrites its own .env for its own settings: it counts only while the gateway key comes from it.
        ...settingsSinceStartChecks(
          config.gateway.apiKeySource === "hermes-env"
            ? [config.paths.userEnvFile, config.paths.hermesEnvFile]
            : [config.paths.userEnvFile],
          running,
        ),
        ...issuerChecks(config),
        ...(await messagingChecks(config)),
        ...(await tunnelChecks(config, running)),
      );
      const failed = checks.filter((c) => !c.ok).length;
      if (args.json) {
        writeStdout(checksAsJson(checks));
        process.exit(failed === 0 ? 0 : 1);
      }
      for (const check of checks) print(check);
      writeStdout(failed === 0 ? `\n${style.green("All checks passed.")}\n` : `\n${style.red(`${failed} check(s) failed.`)}\n`);
      process.exit(failed === 0 ? 0 : 1);
    }),
});
