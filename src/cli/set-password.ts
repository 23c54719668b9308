// `hermes-mcp set-password`: the owner's password for approving dynamic clients (prompted twice on a terminal, one line from stdin otherwise).
import { defineCommand } from "citty";
import { MIN_PASSWORD_LENGTH, PasswordError, setConsentPassword } from "../oauth/password.ts";
import { CliExit, guarded, loadConfigOrExit, ui, withStore } from "./common.ts";
import { openHiddenInput } from "./hidden-input.ts";

const MAX_LINE_BYTES = 4096;

/** Reads the first line of standard input (for scripts: `echo "$PW" | hermes-mcp set-password`). */
async function readFirstLine(): Promise<string> {
  let text = "";
  for await (const chunk of Bun.stdin.stream()) {
    text += new TextDecoder().decode(chunk);
    if (text.includes("\n") || text.length > MAX_LINE_BYTES) break;
  }
  return (text.split("\n")[0] ?? "").replace(/\r$/, "");
}

export default defineCommand({
  meta: {
    name: "set-password",
    description: "Set the password that approves new apps (turns on dynamic registration and client metadata documents)",
  },
  run: () =>
    guarded(async () => {
      const { config } = loadConfigOrExit();
      let password: string;
      if (process.stdin.isTTY) {
        const input = openHiddenInput();
        try {
          password = await input.read("New password: ");
          // Say it now, not after the user has typed a too-short password twice.
          if (password.length < MIN_PASSWORD_LENGTH)
            throw new CliExit(`the password must be at least ${MIN_PASSWORD_LENGTH} characters; nothing was changed`);
          if ((await input.read("Repeat it: ")) !== password)
            throw new CliExit("the two passwords differ; nothing was changed — run `hermes-mcp set-password` again");
        } finally {
          input.close();
        }
      } else {
        password = await readFirstLine();
        if (password === "") throw new CliExit("no password on standard input (expected one line)");
      }
      await withStore(config.dbPath, (store) => setConsentPassword(store, password), [PasswordError]);
      ui.success("Password set (stored as an argon2id hash). Apps that register themselves now get an approval page asking for it.");
      if (!config.oauth.dynamicClients)
        ui.warn("OAUTH_DYNAMIC_CLIENTS=false: dynamic registration and client metadata documents stay off until you remove it.");
    }),
});
