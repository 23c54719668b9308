// `hermes-mcp connect CLIENT [--token NAME]`: what to paste into Claude, Claude Code, Codex, Cursor, VS Code, the Inspector or mcp-remote.
import { defineCommand } from "citty";
import { existsSync } from "node:fs";
import { hasConsentPassword } from "../oauth/password.ts";
import { createPersonalToken, PersonalTokenError, revokePersonalToken } from "../oauth/personal-tokens.ts";
import { CliExit, guarded, loadConfigOrExit, ui, withStore } from "./common.ts";
import { deliverNewToken, writeStdout } from "./output.ts";
import { resolveConnectClient } from "./connect-clients.ts";
import { CONNECT_CLIENTS, type ConnectClient, connectSnippet } from "./connect-formats.ts";

/** Clients that send a fixed header, and so can use a personal access token. */
const HEADER_CLIENTS: readonly ConnectClient[] = ["claude-code", "codex", "cursor", "vscode", "inspector", "mcp-remote"];
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export default defineCommand({
  meta: { name: "connect", description: "Print paste-ready configuration for an MCP client, from this bridge's settings" },
  args: {
    client: { type: "positional", required: true, description: `${CONNECT_CLIENTS.join(" | ")} (claude: Claude.ai, Desktop and mobile)` },
    token: { type: "string", description: "Create a personal access token NAME and put it in the configuration (clients with a header)" },
    name: { type: "string", description: "The server's name in the client's configuration (default hermes)" },
  },
  run: ({ args }) =>
    guarded(() => {
      const resolved = resolveConnectClient(args.client);
      if ("error" in resolved) throw new CliExit(resolved.error);
      const { client } = resolved;
      const name = args.name ?? "hermes";
      if (!SERVER_NAME.test(name)) throw new CliExit(`--name "${name}" is not allowed: use 1–64 letters, digits, dashes or underscores`);
      if (args.token !== undefined && !HEADER_CLIENTS.includes(client))
        throw new CliExit(
          `${client} signs in with OAuth and takes no header, so --token does not apply: run \`hermes-mcp connect ${client}\` without it`,
        );
      const { config } = loadConfigOrExit();
      // Claude connects from Anthropic's servers: a loopback URL can never work for it.
      if (client === "claude" && config.issuerIsDefault)
        throw new CliExit(
          "Claude reaches connectors from the internet: set OAUTH_ISSUER_URL (and MCP_ALLOWED_HOSTS) to your tunnel's https URL in ~/.config/hermes-mcp/env first",
        );
      if (config.issuerIsDefault)
        ui.warn(`OAUTH_ISSUER_URL is not set, so this uses ${config.resourceUrl}, which works only on this machine.`);

      let token: string | null = null;
      let dynamicClients = false;
      if (args.token !== undefined || existsSync(config.dbPath)) {
        withStore(
          config.dbPath,
          (store) => {
            dynamicClients = config.oauth.dynamicClients && hasConsentPassword(store);
            if (args.token !== undefined) token = createPersonalToken(store, args.token);
          },
          [PersonalTokenError],
        );
      }
      // Without a token or the static client, a client must introduce itself, which needs the consent password.
      const staticUsable = client === "claude" || client === "inspector";
      if (token === null && !dynamicClients && !(staticUsable && config.staticClient)) {
        if (client === "claude")
          throw new CliExit(
            "no static client is configured and apps cannot register themselves yet: run `hermes-mcp mint-client --write` (then restart hermes-mcp), or `hermes-mcp set-password`",
          );
        ui.warn(
          `${client} registers itself, which stays off until you run \`hermes-mcp set-password\`${HEADER_CLIENTS.includes(client) ? `; or use a token: \`hermes-mcp connect ${client} --token NAME\`` : ""}.`,
        );
      }

      const snippet = connectSnippet(client, {
        url: config.resourceUrl,
        name,
        staticClient: client === "claude" || client === "inspector" ? config.staticClient : null,
        token,
      });
      if (token === null) writeStdout(snippet.text);
      else {
        const tokenName = args.token as string;
        const undelivered = deliverNewToken(snippet.text, tokenName, () =>
          withStore(config.dbPath, (store) => revokePersonalToken(store, tokenName)),
        );
        if (undelivered) throw new CliExit(undelivered);
      }
      if (token !== null)
        ui.success(
          `Created the personal access token "${args.token}"; it is shown only now (revoke: hermes-mcp token revoke ${args.token}).`,
        );
      for (const note of snippet.notes) ui.info(note);
      if (config.messaging.mode !== "off") ui.warn(messagingNote(client, config.messaging.mode, config.messaging.staticClient));
    }),
});

/**
 * Messaging is a power of its own (issue 12): say what it grants, its risk, and how this client would get it — never by
 * default, whatever the snippet above holds.
 */
export function messagingNote(client: ConnectClient, mode: "read" | "send", staticLevel: "off" | "read" | "send"): string {
  const power = mode === "send" ? "read your chats and send messages as your Hermes bot" : "read your chats";
  const how = HEADER_CLIENTS.includes(client)
    ? "with a personal token, only one created with `hermes-mcp token create --name NAME --messaging read` (or send), as `--token` here makes one without it; signed in on the consent page, only if you tick the messaging box there"
    : client === "claude"
      ? `with the static client it follows OAUTH_STATIC_CLIENT_MESSAGING (now ${staticLevel}); an app approved on the page gets it only if you tick its box`
      : "an app approved on the consent page gets it only if you tick the messaging box there";
  return `Messaging is on (HERMES_MCP_MESSAGING=${mode}): a client granted it can ${power}, and a message from a stranger can carry a prompt injection aimed at the model reading it. This client has it only if you grant it: ${how}.`;
}
