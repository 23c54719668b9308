// `hermes-mcp serve`: run the daemon until SIGTERM/SIGINT, then stop gracefully (jobs interrupted and recorded, database closed).
import { defineCommand } from "citty";
import { startDaemon } from "../daemon.ts";
import { createLogger } from "../log.ts";
import { StoreError } from "../store/database.ts";
import { CliExit, guarded, loadConfigOrExit } from "./common.ts";

export default defineCommand({
  meta: { name: "serve", description: "Run the MCP bridge (Streamable HTTP on BIND_HOST:BIND_PORT)" },
  run: () =>
    guarded(async () => {
      const loaded = loadConfigOrExit();
      // Files we create (database, WAL) are private by default.
      process.umask(0o077);
      const log = createLogger(loaded.config.log.level, loaded.config.log.format);
      let daemon;
      try {
        daemon = startDaemon(loaded, log);
      } catch (error) {
        if (error instanceof StoreError) throw new CliExit(error.message);
        const code = (error as { code?: string }).code;
        if (code === "EADDRINUSE" || /in use|EADDRINUSE/i.test((error as Error).message)) {
          throw new CliExit(
            `port ${loaded.config.bind.port} on ${loaded.config.bind.host} is already in use — is hermes-mcp already running (systemctl --user status hermes-mcp)? Otherwise set BIND_PORT to a free port`,
          );
        }
        throw error;
      }
      const running = daemon;
      let signalled = false;
      const onSignal = (signal: string): void => {
        if (signalled) process.exit(130);
        signalled = true;
        log.info(`received ${signal}`);
        running.stop().then(() => process.exit(0));
      };
      process.on("SIGTERM", () => onSignal("SIGTERM"));
      process.on("SIGINT", () => onSignal("SIGINT"));
      // Keep the command pending while the server runs.
      await new Promise(() => {});
    }),
});
