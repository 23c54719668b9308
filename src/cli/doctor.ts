// `hermes-mcp doctor`: one screen that explains every misconfiguration, one ✔/✖ line per check; exit 1 on any ✖.
import { defineCommand } from "citty";
import { ConfigError, loadConfig } from "../config/load.ts";
import { type Check, databaseCheck, dynamicClientsCheck, gatewayChecks, issuerChecks, portCheck } from "./doctor-checks.ts";
import { guarded } from "./common.ts";

function print(check: Check): void {
  const mark = !check.ok ? "✖" : check.warn ? "⚠" : "✔";
  const lines = [`${mark} ${check.title}${check.detail ? ` — ${check.detail}` : ""}`];
  if (check.fix && (!check.ok || check.warn)) lines.push(`    fix: ${check.fix}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

export default defineCommand({
  meta: { name: "doctor", description: "Check configuration, gateway, key, model, database, port and issuer" },
  run: () =>
    guarded(async () => {
      let loaded;
      try {
        loaded = loadConfig();
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        for (const problem of error.problems) print({ ok: false, title: "configuration", detail: problem });
        process.exit(1);
      }
      const { config, notes, warnings } = loaded;
      const checks: Check[] = [{ ok: true, title: "configuration valid" }];
      for (const note of notes) checks.push({ ok: true, warn: false, title: note });
      for (const warning of warnings) checks.push({ ok: true, warn: true, title: warning });
      checks.push(...(await gatewayChecks(config)), databaseCheck(config), ...dynamicClientsCheck(config), await portCheck(config), ...issuerChecks(config));
      for (const check of checks) print(check);
      const failed = checks.filter((c) => !c.ok).length;
      process.stdout.write(failed === 0 ? "\nAll checks passed.\n" : `\n${failed} check(s) failed.\n`);
      process.exit(failed === 0 ? 0 : 1);
    }),
});
