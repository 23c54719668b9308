// `hermes-mcp backup FILE`: a consistent copy of the database, safe to take while serve runs.
import { defineCommand } from "citty";
import { backupDatabase } from "../store/backup.ts";
import { StoreError } from "../store/database.ts";
import { describeContents } from "./backup-contents.ts";
import { backupTarget } from "./backup-files.ts";
import { CliExit, guarded, loadConfigOrExit, ui } from "./common.ts";
import { shellCommand } from "../shell-word.ts";

export default defineCommand({
  meta: {
    name: "backup",
    description: "Write a consistent copy of the database to FILE (safe while serve runs; a new file, private)",
  },
  args: {
    file: {
      type: "positional",
      required: true,
      description: "The new file to write, e.g. ~/hermes-mcp-backup.db; or a folder, for hermes-mcp-<UTC time>.db in it",
    },
  },
  run: ({ args }) =>
    guarded(() => {
      const { config } = loadConfigOrExit();
      const target = backupTarget(args.file);
      let contents;
      try {
        contents = backupDatabase(config.dbPath, target);
      } catch (error) {
        if (error instanceof StoreError) throw new CliExit(`${error.message}; nothing was written`);
        throw error;
      }
      ui.success(`Backed up ${config.dbPath} to ${target} (${describeContents(contents)}).`);
      ui.info(
        `It holds token hashes and job results, so it is private (mode 600): keep it so. To put it back: ${shellCommand(["hermes-mcp", "restore", target])}`,
      );
    }),
});
