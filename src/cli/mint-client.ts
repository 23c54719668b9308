// `hermes-mcp mint-client [--write [--force]]`: a fresh static OAuth client id and 256-bit secret, printed as env lines or written to the env file.
import { defineCommand } from "citty";
import { userPaths } from "../config/user-paths.ts";
import { CliExit, guarded, ui } from "./common.ts";
import { writeStdout } from "./output.ts";
import { newStaticClient, writeStaticClient } from "./static-client.ts";

export default defineCommand({
  meta: {
    name: "mint-client",
    description: "Print OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET lines, or --write them to ~/.config/hermes-mcp/env",
  },
  args: {
    write: { type: "boolean", description: "Write them into ~/.config/hermes-mcp/env (folder 0700, file 0600), keeping its other lines" },
    force: {
      type: "boolean",
      description: "With --write: replace a static client already in the file (connected apps using it must be given the new pair)",
    },
  },
  run: ({ args }) =>
    guarded(() => {
      if (!args.write) {
        const { id, secret } = newStaticClient();
        ui.info(
          "Add these lines to ~/.config/hermes-mcp/env (mode 0600), or run `hermes-mcp mint-client --write` to have them written there; paste the same id and secret into your client's OAuth settings:",
        );
        writeStdout(`OAUTH_CLIENT_ID=${id}\nOAUTH_CLIENT_SECRET=${secret}\n`);
        return;
      }
      const path = userPaths().userEnvFile;
      const outcome = writeStaticClient(path, { replace: args.force === true });
      if (!outcome.written) {
        throw new CliExit(
          `${path} already has a static client (OAUTH_CLIENT_ID=${outcome.existingId ?? "(unset)"}); nothing was changed. ` +
            "Replacing it signs out every app using it until you paste the new pair: run `hermes-mcp mint-client --write --force` to do that.",
        );
      }
      // The secret stays in the file, off the terminal and out of scroll-back; the user copies it from there when needed.
      ui.success(`Wrote OAUTH_CLIENT_ID=${outcome.client.id} and a new OAUTH_CLIENT_SECRET to ${path} (mode 0600).`);
      // The real environment wins over the file (src/config/load.ts): say so rather than let the new pair be ignored.
      if (process.env.OAUTH_CLIENT_ID || process.env.OAUTH_CLIENT_SECRET)
        ui.warn("OAUTH_CLIENT_ID/OAUTH_CLIENT_SECRET are also set in your environment, which wins over the file: unset them.");
      ui.info(
        `Paste the id and the secret (\`grep OAUTH_CLIENT_SECRET ${path}\`) into your client's OAuth settings, and restart hermes-mcp serve if it is running.`,
      );
    }),
});
