// `hermes-mcp token create|list|revoke`: personal access tokens for clients that send a static Authorization header.
import { defineCommand } from "citty";
import { createPersonalToken, listPersonalTokens, PersonalTokenError, revokePersonalToken } from "../oauth/personal-tokens.ts";
import type { TokenMessaging } from "../store/personal-tokens.ts";
import type { Store } from "../store/index.ts";
import { CliExit, guarded, loadConfigOrExit, ui, withStore } from "./common.ts";
import { deliverNewToken } from "./output.ts";
import { printTable, utcTime } from "./table.ts";

/** The database's personal tokens, a PersonalTokenError told as it is. */
const withTokens = <T>(body: (store: Store) => T): T => withStore(loadConfigOrExit().config.dbPath, body, [PersonalTokenError]);

/** --messaging: absent is none; read or send as asked; anything else is refused with the choices. */
function messagingOf(raw: string | undefined): TokenMessaging {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "off") return "off";
  if (value === "read" || value === "send") return value;
  throw new CliExit(`--messaging takes read or send (got "${raw}"); leave it out for a token without messaging`);
}

const create = defineCommand({
  meta: { name: "create", description: "Create a token; it is printed once, as the last line of output" },
  args: {
    name: { type: "string", required: true, description: "A name to recognise it by (e.g. cursor-laptop)" },
    messaging: {
      type: "string",
      description: "Also let it use Hermes's messaging tools: read (your chats) or send (and send as your Hermes bot); default: none",
    },
  },
  run: ({ args }) =>
    guarded(() => {
      const messaging = messagingOf(args.messaging);
      const token = withTokens((store) => createPersonalToken(store, args.name, Date.now(), messaging));
      ui.success(`Token "${args.name}" created. It is shown only now; only its hash is stored.`);
      if (messaging !== "off") {
        ui.warn(
          messaging === "send"
            ? "This token can read your messages and send messages as your Hermes bot (while HERMES_MCP_MESSAGING=send)."
            : "This token can read your messages (while HERMES_MCP_MESSAGING is read or send).",
        );
      }
      ui.info("Send it as the header  Authorization: Bearer <token>  to /mcp.");
      const undelivered = deliverNewToken(`${token}\n`, args.name, () => withTokens((store) => revokePersonalToken(store, args.name)));
      if (undelivered) throw new CliExit(undelivered);
    }),
});

const list = defineCommand({
  meta: { name: "list", description: "List tokens (name, created, last used) — never the tokens themselves" },
  run: () =>
    guarded(() => {
      const tokens = withTokens((store) => listPersonalTokens(store));
      if (tokens.length === 0) {
        ui.info("No personal access tokens. Create one with `hermes-mcp token create --name NAME`.");
        return;
      }
      printTable(
        ["NAME", "CREATED", "LAST USED", "MESSAGING"],
        tokens.map((t) => [t.name, utcTime(t.createdAt), utcTime(t.lastUsedAt, "never"), t.messaging]),
      );
    }),
});

const revoke = defineCommand({
  meta: { name: "revoke", description: "Revoke a token by name (the running daemon refuses it at once)" },
  args: { name: { type: "positional", required: true, description: "The token's name" } },
  run: ({ args }) =>
    guarded(() => {
      withTokens((store) => revokePersonalToken(store, args.name));
      ui.success(`Token "${args.name}" revoked.`);
    }),
});

export default defineCommand({
  meta: { name: "token", description: "Manage personal access tokens" },
  subCommands: { create, list, revoke },
});
