// `hermes-mcp mint-client`: print a fresh static OAuth client id and 256-bit secret as env-file lines.
import { defineCommand } from "citty";
import { randomBytes } from "node:crypto";
import { generateToken } from "../crypto/tokens.ts";
import { guarded, ui } from "./common.ts";

export default defineCommand({
  meta: { name: "mint-client", description: "Print OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET lines for your env file" },
  run: () =>
    guarded(() => {
      const id = `hermes-${randomBytes(8).toString("hex")}`;
      const secret = generateToken("");
      ui.info("Add these lines to ~/.config/hermes-mcp/env (mode 0600) and paste the same id and secret into your client's OAuth settings:");
      process.stdout.write(`OAUTH_CLIENT_ID=${id}\nOAUTH_CLIENT_SECRET=${secret}\n`);
    }),
});
