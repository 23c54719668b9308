// `hermes-mcp clients list|revoke`: every client that can reach /mcp (static, registered, metadata-document, personal tokens) and revocation by id.
import { defineCommand } from "citty";
import { listClients, ManagementError, revokeClient } from "../oauth/management.ts";
import { guarded, loadConfigOrExit, ui, withStore } from "./common.ts";
import { printTable, utcTime } from "./table.ts";

const list = defineCommand({
  meta: { name: "list", description: "List clients: id, kind, name, created, last used — never secrets" },
  run: () =>
    guarded(() => {
      const { config } = loadConfigOrExit();
      const rows = withStore(config.dbPath, (store) => listClients(store, config));
      if (rows.length === 0) {
        ui.info(
          "No clients yet. Run `hermes-mcp mint-client` (Claude), `hermes-mcp set-password` (apps that register themselves) or `hermes-mcp token create --name NAME`.",
        );
        return;
      }
      printTable(
        ["ID", "KIND", "NAME", "CREATED", "LAST USED", "CONNECTIONS"],
        rows.map((r) => [
          r.id,
          r.kind,
          r.name,
          utcTime(r.createdAt),
          utcTime(r.lastUsedAt, "never"),
          r.kind === "token" ? "-" : String(r.grants),
        ]),
      );
    }),
});

const revoke = defineCommand({
  meta: { name: "revoke", description: "Revoke a client (or pat:NAME) by id; the running daemon refuses its tokens at once" },
  args: { id: { type: "positional", required: true, description: "The id shown by `hermes-mcp clients list`" } },
  run: ({ args }) =>
    guarded(() => {
      const { config } = loadConfigOrExit();
      ui.success(withStore(config.dbPath, (store) => revokeClient(store, config, args.id), [ManagementError]));
    }),
});

export default defineCommand({
  meta: { name: "clients", description: "List and revoke the clients that can reach your Hermes Agent" },
  subCommands: { list, revoke },
});
