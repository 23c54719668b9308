// `hermes-mcp restore FILE`: puts a backup in place of the database while serve is stopped, keeping the one it replaces.
import { defineCommand } from "citty";
import { restoreDatabase } from "../store/backup.ts";
import { DaemonLockedError } from "../store/daemon-lock.ts";
import { StoreError } from "../store/database.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import { describeContents } from "./backup-contents.ts";
import { backupToRestore } from "./backup-files.ts";
import { CliExit, guarded, loadConfigOrExit, ui } from "./common.ts";
import { howToStop } from "./stop-advice.ts";

export default defineCommand({
  meta: {
    name: "restore",
    description: "Put a backup in place of the database (serve stopped); the database it replaces is kept beside it",
  },
  args: { file: { type: "positional", required: true, description: "A file `hermes-mcp backup` wrote" } },
  run: ({ args }) =>
    guarded(() => {
      const { config } = loadConfigOrExit();
      const file = backupToRestore(args.file);
      // As serve does: the lock file and the database's -wal and -shm files are created private.
      process.umask(0o077);
      let restored;
      try {
        restored = restoreDatabase(config.dbPath, file);
      } catch (error) {
        if (error instanceof DaemonLockedError)
          throw new CliExit(
            `${error.message}. Nothing was changed: stop it first (${howToStop(error.holder)}), restore, then start it again.`,
          );
        if (error instanceof StoreError) throw new CliExit(`${error.message}; nothing was changed`);
        throw error;
      }
      const { contents, aside } = restored;
      const upgraded = contents.version < MIGRATIONS.length ? `; upgraded to schema ${MIGRATIONS.length}` : "";
      ui.success(`Restored ${file} into ${config.dbPath} (${describeContents(contents)}${upgraded}).`);
      if (aside) ui.info(`The database it replaced is kept at ${aside}.`);
      ui.info(
        "Start hermes-mcp again. What came after the backup is not in it: a client that signed in or refreshed its token since signs in once more, and a personal token created since is gone.",
      );
    }),
});
